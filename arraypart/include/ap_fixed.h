// arraypart stand-in for Vitis HLS ap_fixed.h (our own code, written from the documented
// behaviour). ap_fixed<W, I, Q, O, N> is a W-bit two's complement value with I integer
// bits (W - I fraction bits); ap_ufixed is unsigned. Every assignment quantizes with Q
// (AP_TRN by default: toward minus infinity; AP_RND, AP_RND_ZERO, AP_RND_MIN_INF,
// AP_RND_INF, AP_RND_CONV, AP_TRN_ZERO) and handles overflow with O (AP_WRAP by default;
// AP_SAT, AP_SAT_ZERO, AP_SAT_SYM; AP_WRAP_SM is taken as AP_WRAP; N is ignored).
//
// Documented approximation: arithmetic between fixed-point values (+ - * /) is computed in
// double and quantized when assigned, where Vitis keeps a full-precision fixed result, so
// results agree with Vitis while the exact result fits in 53 significant bits. Conversions
// between formats go through long double (exact up to 64 significant bits). Shifts (<< >>)
// keep the type, as in Vitis. The raw bits are an ap_int_base<W, S> (range(), operator[]).
#ifndef ARRAYPART_AP_FIXED_H
#define ARRAYPART_AP_FIXED_H

#include <cstdio>

#include "ap_common.h"

template <int W, int I, bool S, ap_q_mode Q, ap_o_mode O, int N> class ap_fixed_base;

namespace ap_detail {
template <int W, int I, bool S, ap_q_mode Q, ap_o_mode O, int N>
ap_fixed_base<W, I, S, Q, O, N> fixed_base_of(const ap_fixed_base<W, I, S, Q, O, N>*);
void fixed_base_of(...);
template <class T> struct is_ap_fixed {
  static constexpr bool value = !std::is_void<decltype(fixed_base_of((T*)nullptr))>::value;
};
// Some operand is fixed point and the other is a number of any kind.
template <class A, class B> struct fixed_pair {
  static constexpr bool value =
      (is_ap_fixed<A>::value || is_ap_fixed<B>::value) &&
      (is_ap_fixed<A>::value || is_ap_int<A>::value || std::is_arithmetic<A>::value) &&
      (is_ap_fixed<B>::value || is_ap_int<B>::value || std::is_arithmetic<B>::value);
};
template <class T>
inline typename std::enable_if<std::is_arithmetic<T>::value, long double>::type
real_of(const T& v) { return (long double)v; }
template <int W, bool S> inline long double real_of(const ap_int_base<W, S>& v) {
  return v.to_long_double();
}

// The integer nearest to x under quantization mode q.
inline long double quantize(long double x, ap_q_mode q) {
  long double f = std::floor(x);
  long double frac = x - f;
  switch (q) {
    case AP_TRN: return f;
    case AP_TRN_ZERO: return std::trunc(x);
    case AP_RND: return frac >= 0.5L ? f + 1 : f;           // half toward plus infinity
    case AP_RND_MIN_INF: return frac > 0.5L ? f + 1 : f;    // half toward minus infinity
    case AP_RND_ZERO:                                        // half toward zero
      return frac == 0.5L ? (x < 0 ? f + 1 : f) : std::round(x);
    case AP_RND_INF: return std::round(x);                   // half away from zero
    case AP_RND_CONV:                                        // half to even
      return frac == 0.5L ? (std::fmod(f, 2.0L) == 0 ? f : f + 1) : std::round(x);
  }
  return f;
}

// An integer value r brought into the range of a W-bit integer under overflow mode o.
inline long double overflow(long double r, int w, bool s, ap_o_mode o) {
  long double span = std::ldexp(1.0L, w);
  long double lo = s ? -std::ldexp(1.0L, w - 1) : 0.0L;
  long double hi = s ? std::ldexp(1.0L, w - 1) - 1 : span - 1;
  if (r >= lo && r <= hi) return r;
  switch (o) {
    case AP_SAT: return r < lo ? lo : hi;
    case AP_SAT_ZERO: return 0;
    case AP_SAT_SYM: return r < lo ? (s ? -hi : 0) : hi;
    default: {
      long double m = r - std::floor((r - lo) / span) * span;
      return m;
    }
  }
}
}  // namespace ap_detail

template <int W, int I, bool S, ap_q_mode Q, ap_o_mode O, int N>
class ap_fixed_base {
 public:
  static constexpr int width = W;
  static constexpr int iwidth = I;
  static constexpr int fwidth = W - I;
  static constexpr bool sign_flag = S;
  ap_int_base<W, S> V;  // the raw bits: value = V * 2^-(W - I)

  ap_fixed_base() {}
  template <class T, typename std::enable_if<std::is_arithmetic<T>::value, int>::type = 0>
  ap_fixed_base(T v) { set_real(ap_detail::real_of(v)); }
  template <int W2, bool S2>
  ap_fixed_base(const ap_int_base<W2, S2>& v) { set_real(v.to_long_double()); }
  template <int W2, bool S2>
  ap_fixed_base(const ap_range_ref<W2, S2>& v) { set_real(v.get().to_long_double()); }
  template <int W2, int I2, bool S2, ap_q_mode Q2, ap_o_mode O2, int N2>
  ap_fixed_base(const ap_fixed_base<W2, I2, S2, Q2, O2, N2>& v) { set_real(v.to_long_double()); }

  // Conversions.
  long double to_long_double() const { return std::ldexp(V.to_long_double(), -fwidth); }
  double to_double() const { return (double)to_long_double(); }
  float to_float() const { return (float)to_long_double(); }
  operator double() const { return to_double(); }
  int to_int() const { return (int)std::trunc(to_long_double()); }
  unsigned to_uint() const { return (unsigned)std::trunc(to_long_double()); }
  long long to_int64() const { return (long long)std::trunc(to_long_double()); }
  unsigned long long to_uint64() const { return (unsigned long long)std::trunc(to_long_double()); }
  long to_long() const { return (long)to_int64(); }
  template <class Str = std::string> Str to_string() const {  // needs <string>
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", to_double());
    return Str(text);
  }
  int length() const { return W; }

  // Raw bits.
  ap_range_ref<W, S> range(int hi, int lo) { return V.range(hi, lo); }
  ap_range_ref<W, S> range() { return V.range(); }
  ap_int_base<W, false> range(int hi, int lo) const { return V.get_range(hi, lo); }
  ap_int_base<W, false> range() const { return V.get_range(W - 1, 0); }
  ap_range_ref<W, S> operator()(int hi, int lo) { return V.range(hi, lo); }
  ap_bit_ref<W, S> operator[](int i) { return V[i]; }
  bool operator[](int i) const { return V.test(i); }
  ap_bit_ref<W, S> bit(int i) { return V[i]; }
  bool get_bit(int i) const { return V.test(i); }
  void set_bit(int i, bool b) { V.set_bit(i, b); }
  bool is_neg() const { return V.is_neg(); }
  bool iszero() const { return V.iszero(); }

  ap_fixed_base& operator++() { return *this = ap_fixed_base(to_long_double() + 1); }
  ap_fixed_base& operator--() { return *this = ap_fixed_base(to_long_double() - 1); }
  ap_fixed_base operator++(int) { ap_fixed_base t(*this); ++*this; return t; }
  ap_fixed_base operator--(int) { ap_fixed_base t(*this); --*this; return t; }
#define AP_FIXED_COMPOUND(OP)                                                        \
  template <class T> ap_fixed_base& operator OP##=(const T& v) {                     \
    return *this = ap_fixed_base(*this OP v);                                        \
  }
  AP_FIXED_COMPOUND(+) AP_FIXED_COMPOUND(-) AP_FIXED_COMPOUND(*) AP_FIXED_COMPOUND(/)
#undef AP_FIXED_COMPOUND
  ap_fixed_base& operator<<=(int n) { return *this = *this << n; }
  ap_fixed_base& operator>>=(int n) { return *this = *this >> n; }
  ap_fixed_base operator<<(int n) const { ap_fixed_base r; r.V = V.shift(n); return r; }
  ap_fixed_base operator>>(int n) const { ap_fixed_base r; r.V = V.shift(-n); return r; }
  template <int W2, bool S2> ap_fixed_base operator<<(const ap_int_base<W2, S2>& n) const {
    return *this << (int)n.to_int64();
  }
  template <int W2, bool S2> ap_fixed_base operator>>(const ap_int_base<W2, S2>& n) const {
    return *this >> (int)n.to_int64();
  }
  double operator-() const { return -to_double(); }
  ap_fixed_base operator+() const { return *this; }
  bool operator!() const { return V.iszero(); }

  // Quantize a real value into this format.
  void set_real(long double x) {
    if (std::isnan(x)) x = 0;
    long double scaled = std::ldexp(x, fwidth);
    long double r = ap_detail::quantize(scaled, Q);
    r = ap_detail::overflow(r, W, S, O);
    V = ap_int_base<W, S>(r);
  }
};

namespace ap_detail {
template <int W, int I, bool S, ap_q_mode Q, ap_o_mode O, int N>
inline long double real_of(const ap_fixed_base<W, I, S, Q, O, N>& v) { return v.to_long_double(); }
}  // namespace ap_detail

// Arithmetic with a fixed-point operand: computed in double (see the top of this file).
#define AP_FIXED_OP(OP, RET)                                                                \
  template <class A, class B,                                                               \
            typename std::enable_if<ap_detail::fixed_pair<A, B>::value, int>::type = 0>    \
  inline RET operator OP(const A& a, const B& b) {                                          \
    return (RET)(ap_detail::real_of(a) OP ap_detail::real_of(b));                           \
  }
AP_FIXED_OP(+, double) AP_FIXED_OP(-, double) AP_FIXED_OP(*, double) AP_FIXED_OP(/, double)
AP_FIXED_OP(==, bool) AP_FIXED_OP(!=, bool) AP_FIXED_OP(<, bool) AP_FIXED_OP(<=, bool)
AP_FIXED_OP(>, bool) AP_FIXED_OP(>=, bool)
#undef AP_FIXED_OP

template <int W, int I, ap_q_mode Q = AP_TRN, ap_o_mode O = AP_WRAP, int N = 0>
class ap_fixed : public ap_fixed_base<W, I, true, Q, O, N> {
 public:
  using ap_fixed_base<W, I, true, Q, O, N>::ap_fixed_base;
  ap_fixed() : ap_fixed_base<W, I, true, Q, O, N>() {}
  template <int W2, int I2, bool S2, ap_q_mode Q2, ap_o_mode O2, int N2>
  ap_fixed(const ap_fixed_base<W2, I2, S2, Q2, O2, N2>& o) : ap_fixed_base<W, I, true, Q, O, N>(o) {}
};

template <int W, int I, ap_q_mode Q = AP_TRN, ap_o_mode O = AP_WRAP, int N = 0>
class ap_ufixed : public ap_fixed_base<W, I, false, Q, O, N> {
 public:
  using ap_fixed_base<W, I, false, Q, O, N>::ap_fixed_base;
  ap_ufixed() : ap_fixed_base<W, I, false, Q, O, N>() {}
  template <int W2, int I2, bool S2, ap_q_mode Q2, ap_o_mode O2, int N2>
  ap_ufixed(const ap_fixed_base<W2, I2, S2, Q2, O2, N2>& o) : ap_fixed_base<W, I, false, Q, O, N>(o) {}
};

template <class C, class T, int W, int I, bool S, ap_q_mode Q, ap_o_mode O, int N>
inline std::basic_ostream<C, T>& operator<<(std::basic_ostream<C, T>& os,
                                            const ap_fixed_base<W, I, S, Q, O, N>& v) {
  return os << v.to_double();
}

#include "ap_int.h"

#endif  // ARRAYPART_AP_FIXED_H
