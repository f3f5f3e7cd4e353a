// arraypart stand-in for Vitis HLS hls_math.h (our own code): hls:: math functions that
// forward to <cmath>, with overloads for the arbitrary-precision types (computed in double,
// returned in the argument's type).
#ifndef ARRAYPART_HLS_MATH_H
#define ARRAYPART_HLS_MATH_H

#include "arraypart_save_min_max.inc"
#include <cmath>
#include <cstdlib>
#include "arraypart_restore_min_max.inc"

#include "ap_fixed.h"
#include "ap_int.h"

namespace hls {

using std::abs;
using std::acos;
using std::asin;
using std::atan;
using std::atan2;
using std::ceil;
using std::copysign;
using std::cos;
using std::cosh;
using std::exp;
using std::exp2;
using std::fabs;
using std::floor;
using std::fma;
using std::fmax;
using std::fmin;
using std::fmod;
using std::hypot;
using std::isinf;
using std::isnan;
using std::log;
using std::log10;
using std::log2;
using std::nearbyint;
using std::pow;
using std::remainder;
using std::round;
using std::rint;
using std::signbit;
using std::sin;
using std::sinh;
using std::sqrt;
using std::tan;
using std::tanh;
using std::trunc;

#define HLS_MATH_FLOAT(_AP_NAME) \
  inline float _AP_NAME##f(float x) { return std::_AP_NAME(x); }
HLS_MATH_FLOAT(sqrt) HLS_MATH_FLOAT(exp) HLS_MATH_FLOAT(log) HLS_MATH_FLOAT(sin)
HLS_MATH_FLOAT(cos) HLS_MATH_FLOAT(tan) HLS_MATH_FLOAT(fabs) HLS_MATH_FLOAT(floor)
HLS_MATH_FLOAT(ceil) HLS_MATH_FLOAT(round) HLS_MATH_FLOAT(trunc) HLS_MATH_FLOAT(atan)
HLS_MATH_FLOAT(log2) HLS_MATH_FLOAT(log10) HLS_MATH_FLOAT(exp2) HLS_MATH_FLOAT(tanh)
#undef HLS_MATH_FLOAT
inline float powf(float x, float y) { return std::pow(x, y); }
inline float atan2f(float y, float x) { return std::atan2(y, x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float recipf(float x) { return 1.0f / x; }
inline double recip(double x) { return 1.0 / x; }

#define HLS_MATH_FIXED(_AP_NAME)                                                           \
  template <int _AP_W, int _AP_I, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N>                             \
  ap_fixed<_AP_W, _AP_I, _AP_Q, _AP_O, _AP_N> _AP_NAME(const ap_fixed<_AP_W, _AP_I, _AP_Q, _AP_O, _AP_N>& x) {                     \
    return ap_fixed<_AP_W, _AP_I, _AP_Q, _AP_O, _AP_N>(std::_AP_NAME(x.to_double()));                          \
  }                                                                                    \
  template <int _AP_W, int _AP_I, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N>                             \
  ap_ufixed<_AP_W, _AP_I, _AP_Q, _AP_O, _AP_N> _AP_NAME(const ap_ufixed<_AP_W, _AP_I, _AP_Q, _AP_O, _AP_N>& x) {                   \
    return ap_ufixed<_AP_W, _AP_I, _AP_Q, _AP_O, _AP_N>(std::_AP_NAME(x.to_double()));                         \
  }
HLS_MATH_FIXED(sqrt) HLS_MATH_FIXED(exp) HLS_MATH_FIXED(log) HLS_MATH_FIXED(sin)
HLS_MATH_FIXED(cos) HLS_MATH_FIXED(tan) HLS_MATH_FIXED(floor) HLS_MATH_FIXED(ceil)
HLS_MATH_FIXED(round) HLS_MATH_FIXED(trunc) HLS_MATH_FIXED(fabs) HLS_MATH_FIXED(abs)
HLS_MATH_FIXED(atan) HLS_MATH_FIXED(tanh) HLS_MATH_FIXED(log2) HLS_MATH_FIXED(exp2)
#undef HLS_MATH_FIXED

template <int _AP_W> ap_int<_AP_W> abs(const ap_int<_AP_W>& x) { return x.is_neg() ? ap_int<_AP_W>(-x) : x; }
template <int _AP_W> ap_uint<_AP_W> abs(const ap_uint<_AP_W>& x) { return x; }
// The names in parentheses: a kernel's min(X, Y) / max(X, Y) macro does not expand.
template <class _AP_T> _AP_T (min)(_AP_T a, _AP_T b) { return b < a ? b : a; }
template <class _AP_T> _AP_T (max)(_AP_T a, _AP_T b) { return a < b ? b : a; }

}  // namespace hls

#endif  // ARRAYPART_HLS_MATH_H
