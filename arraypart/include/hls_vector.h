// arraypart stand-in for Vitis HLS hls_vector.h (our own code): hls::vector<T, N>, N
// elements with element-wise arithmetic and comparison, broadcast from a scalar, indexing
// and reductions.
#ifndef ARRAYPART_HLS_VECTOR_H
#define ARRAYPART_HLS_VECTOR_H

#include <array>
#include <cstddef>
#include <initializer_list>
#include <iosfwd>

namespace hls {

template <typename T, std::size_t N>
class vector {
  static_assert(N > 0, "hls::vector needs at least one element");

 public:
  vector() : data_() {}
  vector(const T& v) { data_.fill(v); }
  vector(std::initializer_list<T> values) : data_() {
    std::size_t i = 0;
    for (const T& v : values)
      if (i < N) data_[i++] = v;
  }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  static constexpr std::size_t size() { return N; }
  T* begin() { return data_.data(); }
  T* end() { return data_.data() + N; }
  const T* begin() const { return data_.data(); }
  const T* end() const { return data_.data() + N; }

#define HLS_VECTOR_OP(OP)                                                  \
  vector& operator OP##=(const vector& o) {                                \
    for (std::size_t i = 0; i < N; ++i) data_[i] OP## = o.data_[i];        \
    return *this;                                                          \
  }                                                                        \
  vector& operator OP##=(const T& o) {                                     \
    for (std::size_t i = 0; i < N; ++i) data_[i] OP## = o;                 \
    return *this;                                                          \
  }                                                                        \
  friend vector operator OP(vector a, const vector& b) { return a OP## = b; } \
  friend vector operator OP(vector a, const T& b) { return a OP## = b; }   \
  friend vector operator OP(const T& a, const vector& b) { return vector(a) OP## = b; }
  HLS_VECTOR_OP(+) HLS_VECTOR_OP(-) HLS_VECTOR_OP(*) HLS_VECTOR_OP(/)
  HLS_VECTOR_OP(%) HLS_VECTOR_OP(&) HLS_VECTOR_OP(|) HLS_VECTOR_OP(^)
#undef HLS_VECTOR_OP
  vector operator-() const {
    vector r;
    for (std::size_t i = 0; i < N; ++i) r.data_[i] = -data_[i];
    return r;
  }
  friend bool operator==(const vector& a, const vector& b) { return a.data_ == b.data_; }
  friend bool operator!=(const vector& a, const vector& b) { return !(a == b); }

  T reduce_add() const {
    T r = data_[0];
    for (std::size_t i = 1; i < N; ++i) r = r + data_[i];
    return r;
  }
  T reduce_mult() const {
    T r = data_[0];
    for (std::size_t i = 1; i < N; ++i) r = r * data_[i];
    return r;
  }
  T reduce_min() const {
    T r = data_[0];
    for (std::size_t i = 1; i < N; ++i) r = data_[i] < r ? data_[i] : r;
    return r;
  }
  T reduce_max() const {
    T r = data_[0];
    for (std::size_t i = 1; i < N; ++i) r = r < data_[i] ? data_[i] : r;
    return r;
  }

 private:
  std::array<T, N> data_;
};

template <class C, class Tr, typename T, std::size_t N>
std::basic_ostream<C, Tr>& operator<<(std::basic_ostream<C, Tr>& os, const vector<T, N>& v) {
  os << '(';
  for (std::size_t i = 0; i < N; ++i) os << (i ? ", " : "") << v[i];
  return os << ')';
}

}  // namespace hls

#endif  // ARRAYPART_HLS_VECTOR_H
