// arraypart stand-in for Vitis HLS hls_vector.h (our own code): hls::vector<T, N>, N
// elements with element-wise arithmetic and comparison, broadcast from a scalar, indexing
// and reductions.
#ifndef ARRAYPART_HLS_VECTOR_H
#define ARRAYPART_HLS_VECTOR_H

#include "arraypart_save_min_max.inc"
#include <array>
#include <cstddef>
#include <cstdint>  // Vitis's headers bring the fixed-width types in
#include <initializer_list>
#include <iosfwd>
#include "arraypart_restore_min_max.inc"

namespace hls {

template <typename _AP_T, std::size_t _AP_N>
class vector {
  static_assert(_AP_N > 0, "hls::vector needs at least one element");

 public:
  vector() : data_() {}
  vector(const _AP_T& v) { data_.fill(v); }
  vector(std::initializer_list<_AP_T> values) : data_() {
    std::size_t i = 0;
    for (const _AP_T& v : values)
      if (i < _AP_N) data_[i++] = v;
  }
  _AP_T& operator[](std::size_t i) { return data_[i]; }
  const _AP_T& operator[](std::size_t i) const { return data_[i]; }
  static constexpr std::size_t size() { return _AP_N; }
  _AP_T* begin() { return data_.data(); }
  _AP_T* end() { return data_.data() + _AP_N; }
  const _AP_T* begin() const { return data_.data(); }
  const _AP_T* end() const { return data_.data() + _AP_N; }

#define HLS_VECTOR_OP(_AP_OP)                                                  \
  vector& operator _AP_OP##=(const vector& o) {                                \
    for (std::size_t i = 0; i < _AP_N; ++i) data_[i] _AP_OP## = o.data_[i];        \
    return *this;                                                          \
  }                                                                        \
  vector& operator _AP_OP##=(const _AP_T& o) {                                     \
    for (std::size_t i = 0; i < _AP_N; ++i) data_[i] _AP_OP## = o;                 \
    return *this;                                                          \
  }                                                                        \
  friend vector operator _AP_OP(vector a, const vector& b) { return a _AP_OP## = b; } \
  friend vector operator _AP_OP(vector a, const _AP_T& b) { return a _AP_OP## = b; }   \
  friend vector operator _AP_OP(const _AP_T& a, const vector& b) { return vector(a) _AP_OP## = b; }
  HLS_VECTOR_OP(+) HLS_VECTOR_OP(-) HLS_VECTOR_OP(*) HLS_VECTOR_OP(/)
  HLS_VECTOR_OP(%) HLS_VECTOR_OP(&) HLS_VECTOR_OP(|) HLS_VECTOR_OP(^)
#undef HLS_VECTOR_OP
  vector operator-() const {
    vector r;
    for (std::size_t i = 0; i < _AP_N; ++i) r.data_[i] = -data_[i];
    return r;
  }
  friend bool operator==(const vector& a, const vector& b) { return a.data_ == b.data_; }
  friend bool operator!=(const vector& a, const vector& b) { return !(a == b); }

  _AP_T reduce_add() const {
    _AP_T r = data_[0];
    for (std::size_t i = 1; i < _AP_N; ++i) r = r + data_[i];
    return r;
  }
  _AP_T reduce_mult() const {
    _AP_T r = data_[0];
    for (std::size_t i = 1; i < _AP_N; ++i) r = r * data_[i];
    return r;
  }
  _AP_T reduce_min() const {
    _AP_T r = data_[0];
    for (std::size_t i = 1; i < _AP_N; ++i) r = data_[i] < r ? data_[i] : r;
    return r;
  }
  _AP_T reduce_max() const {
    _AP_T r = data_[0];
    for (std::size_t i = 1; i < _AP_N; ++i) r = r < data_[i] ? data_[i] : r;
    return r;
  }

 private:
  std::array<_AP_T, _AP_N> data_;
};

template <class _AP_C, class Tr, typename _AP_T, std::size_t _AP_N>
std::basic_ostream<_AP_C, Tr>& operator<<(std::basic_ostream<_AP_C, Tr>& os, const vector<_AP_T, _AP_N>& v) {
  os << '(';
  for (std::size_t i = 0; i < _AP_N; ++i) os << (i ? ", " : "") << v[i];
  return os << ')';
}

}  // namespace hls

#endif  // ARRAYPART_HLS_VECTOR_H
