// arraypart stand-in for Vitis HLS hls_stream.h (our own code): hls::stream<T> as an
// unbounded FIFO backed by std::deque, as in Vitis C simulation. read() on an empty stream
// prints a warning to stderr and returns T(); full() is always false. As in Vitis,
// stream<T, DEPTH> derives from stream<T> (DEPTH only sizes the hardware FIFO), so a
// stream with a depth can be passed where a stream<T>& is expected.
#ifndef ARRAYPART_HLS_STREAM_H
#define ARRAYPART_HLS_STREAM_H

#include "arraypart_save_min_max.inc"
#include <cstddef>
#include <cstdint>  // Vitis's headers bring the fixed-width types in
#include <deque>
#include "arraypart_restore_min_max.inc"
#ifndef __SYNTHESIS__
#include <cstdio>  // the empty read's warning (C simulation only)
#endif

namespace hls {

template <typename _AP_T, int _AP_DEPTH = 0>
class stream;

template <typename _AP_T>
class stream<_AP_T, 0> {
 public:
  stream() : name_("hls::stream") {}
  explicit stream(const char* name) : name_(name) {}
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  _AP_T read() {
    if (fifo_.empty()) {
#ifndef __SYNTHESIS__
      std::fprintf(stderr, "WARNING: hls::stream '%s' is read while empty\n", name_);
#endif
      return _AP_T();
    }
    _AP_T v = fifo_.front();
    fifo_.pop_front();
    return v;
  }
  void read(_AP_T& v) { v = read(); }
  bool read_nb(_AP_T& v) {
    if (fifo_.empty()) return false;
    v = read();
    return true;
  }
  void write(const _AP_T& v) { fifo_.push_back(v); }
  bool write_nb(const _AP_T& v) {
    write(v);
    return true;
  }
  void operator>>(_AP_T& v) { read(v); }
  void operator<<(const _AP_T& v) { write(v); }
  bool empty() const { return fifo_.empty(); }
  bool full() const { return false; }
  std::size_t size() const { return fifo_.size(); }
  const char* name() const { return name_; }

 private:
  const char* name_;
  std::deque<_AP_T> fifo_;
};

template <typename _AP_T, int _AP_DEPTH>
class stream : public stream<_AP_T, 0> {
 public:
  stream() {}
  explicit stream(const char* name) : stream<_AP_T, 0>(name) {}
};

}  // namespace hls

#endif  // ARRAYPART_HLS_STREAM_H
