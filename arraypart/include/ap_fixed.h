// arraypart stand-in for Vitis HLS ap_fixed.h (our own code, written from the documented
// behaviour). ap_fixed<W, I, Q, O, N> is a W-bit two's complement value with I integer
// bits (W - I fraction bits); ap_ufixed is unsigned. Every assignment quantizes with Q
// (AP_TRN by default: toward minus infinity; AP_RND, AP_RND_ZERO, AP_RND_MIN_INF,
// AP_RND_INF, AP_RND_CONV, AP_TRN_ZERO) and handles overflow with O (AP_WRAP by default;
// AP_SAT, AP_SAT_ZERO, AP_SAT_SYM; AP_WRAP_SM is taken as AP_WRAP; N is ignored).
//
// Arithmetic (+ - * /) and comparisons between a fixed-point value and another or an
// integer are exact: the raw bits are combined with the integer core (ap_common.h) and the
// result is held in Vitis' full-precision result format (a product of ap_fixed<W1, I1>
// and ap_fixed<W2, I2> is an ap_fixed<W1 + W2, I1 + I2>, so (x * x) >> 1 shifts it; a
// quotient divides the raw bits, truncating toward zero). Conversions between formats
// and from integers quantize and handle overflow exactly, on the raw bits. With a
// floating-point operand the arithmetic is computed in double; a floating-point value
// is converted exactly (through long double, 64 significant bits). Shifts (<< >>)
// keep the type, as in Vitis. The raw bits are an ap_int_base<W, S> (range(),
// operator[]). Approximations: bitwise operators give a double; formats
// wider than AP_INT_MAX_W are capped (see fixed_of).
#ifndef ARRAYPART_AP_FIXED_H
#define ARRAYPART_AP_FIXED_H

#include "ap_common.h"
#ifndef __SYNTHESIS__
#include <cstdio>  // to_string (C simulation only; see ap_common.h)
#endif

template <int _AP_W, int _AP_I, bool _AP_S, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N> class ap_fixed_base;

namespace ap_detail {
template <int _AP_W, int _AP_I, bool _AP_S, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N>
ap_fixed_base<_AP_W, _AP_I, _AP_S, _AP_Q, _AP_O, _AP_N> fixed_base_of(const ap_fixed_base<_AP_W, _AP_I, _AP_S, _AP_Q, _AP_O, _AP_N>*);
void fixed_base_of(...);
template <class _AP_T> struct is_ap_fixed {
  static constexpr bool value = !std::is_void<decltype(fixed_base_of((_AP_T*)nullptr))>::value;
};
// Some operand is fixed point and the other is a number of any kind.
template <class _AP_A, class _AP_B> struct fixed_pair {
  static constexpr bool value =
      (is_ap_fixed<_AP_A>::value || is_ap_fixed<_AP_B>::value) &&
      (is_ap_fixed<_AP_A>::value || is_ap_int<_AP_A>::value || std::is_arithmetic<_AP_A>::value) &&
      (is_ap_fixed<_AP_B>::value || is_ap_int<_AP_B>::value || std::is_arithmetic<_AP_B>::value);
};
template <class _AP_T>
inline typename std::enable_if<std::is_arithmetic<_AP_T>::value, long double>::type
real_of(const _AP_T& v) { return (long double)v; }
template <int _AP_W, bool _AP_S> inline long double real_of(const ap_int_base<_AP_W, _AP_S>& v) {
  return v.to_long_double();
}

// Whether quantization mode q rounds a value up to the next multiple of the LSB: the value
// is negative or not, the truncated (floor) raw value is odd or not, the first dropped
// bit (worth half an LSB) is set or not, and the bits below it are all zero or not.
inline bool rounds_up(ap_q_mode q, bool negative, bool odd, bool half, bool rest) {
  switch (q) {
    case AP_TRN: return false;
    case AP_TRN_ZERO: return negative && (half || rest);  // toward zero
    case AP_RND: return half;                             // half toward plus infinity
    case AP_RND_MIN_INF: return half && rest;             // half toward minus infinity
    case AP_RND_ZERO: return half && (rest || negative);  // half toward zero
    case AP_RND_INF: return half && (rest || !negative);  // half away from zero
    case AP_RND_CONV: return half && (rest || odd);       // half to even
  }
  return false;
}

// An integer x brought into the range of a W-bit integer by overflow mode o: AP_WRAP
// (and AP_WRAP_SM, taken as it) keeps the low W bits; AP_SAT takes the nearest end,
// AP_SAT_ZERO zero, AP_SAT_SYM the nearest end of the symmetric range [-max, max].
template <int _AP_W, bool _AP_S, int _AP_W2>
ap_int_base<_AP_W, _AP_S> in_range(const ap_int_base<_AP_W2, true>& x, ap_o_mode o) {
  ap_int_base<_AP_W, _AP_S> r(x);
  if (o == AP_WRAP || o == AP_WRAP_SM || r == x) return r;
  ap_int_base<_AP_W, false> ones = ~ap_int_base<_AP_W, false>(0);
  ap_int_base<_AP_W, _AP_S> hi(_AP_S ? ones >> 1 : ones), lo(_AP_S ? ~(ones >> 1) : ap_int_base<_AP_W, false>(0));
  if (o == AP_SAT_ZERO) return 0;
  if (!x.is_neg()) return hi;
  if (o == AP_SAT_SYM && _AP_S) return ap_int_base<_AP_W, _AP_S>(lo + 1);
  return lo;
}

}  // namespace ap_detail

template <int _AP_W, int _AP_I, bool _AP_S, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N>
class ap_fixed_base {
 public:
  static constexpr int width = _AP_W;
  static constexpr int iwidth = _AP_I;
  static constexpr int fwidth = _AP_W - _AP_I;
  static constexpr bool sign_flag = _AP_S;
  ap_int_base<_AP_W, _AP_S> _AP_V;  // the raw bits: value = V * 2^-(W - I)

  ap_fixed_base() {}
  template <class _AP_T, typename std::enable_if<std::is_floating_point<_AP_T>::value, int>::type = 0>
  ap_fixed_base(_AP_T v) { set_real(v); }
  template <class _AP_T, typename std::enable_if<std::is_integral<_AP_T>::value, int>::type = 0>
  ap_fixed_base(_AP_T v) { set_raw<0>(typename ap_detail::int_of<_AP_T>::type(v)); }
  template <int _AP_W2, bool _AP_S2>
  ap_fixed_base(const ap_int_base<_AP_W2, _AP_S2>& v) { set_raw<0>(v); }
  template <int _AP_W2, bool _AP_S2>
  ap_fixed_base(const ap_range_ref<_AP_W2, _AP_S2>& v) { set_raw<0>(v.get()); }
  template <int _AP_W2, int _AP_I2, bool _AP_S2, ap_q_mode _AP_Q2, ap_o_mode _AP_O2, int _AP_N2>
  ap_fixed_base(const ap_fixed_base<_AP_W2, _AP_I2, _AP_S2, _AP_Q2, _AP_O2, _AP_N2>& v) {
    set_raw<_AP_W2 - _AP_I2>(v._AP_V);
  }

  // Conversions.
  long double to_long_double() const { return std::ldexp(_AP_V.to_long_double(), -fwidth); }
  double to_double() const { return (double)to_long_double(); }
  float to_float() const { return (float)to_long_double(); }
  operator double() const { return to_double(); }
  // The integer part, truncated toward zero (as a C cast would), exact at any width; the
  // C-typed conversions wrap it to their width.
  ap_int_base<ap_detail::ap_max(_AP_I, 1), _AP_S> to_ap_int_base() const {
    typedef ap_int_base<ap_detail::ap_cap(ap_detail::ap_max(_AP_W, _AP_I) + 1), _AP_S> wide;
    if (_AP_I <= 0) return 0;  // |value| < 1
    wide v(_AP_V);
    if (fwidth > 0 && _AP_V.is_neg()) v = v + (wide(1).shift(fwidth) - 1);  // floor -> trunc
    return ap_int_base<ap_detail::ap_max(_AP_I, 1), _AP_S>(v.shift(-fwidth));
  }
  int to_int() const { return to_ap_int_base().to_int(); }
  unsigned to_uint() const { return to_ap_int_base().to_uint(); }
  long long to_int64() const { return to_ap_int_base().to_int64(); }
  unsigned long long to_uint64() const { return to_ap_int_base().to_uint64(); }
  long to_long() const { return (long)to_int64(); }
#ifndef __SYNTHESIS__
  template <class Str = std::string> Str to_string() const {  // needs <string>
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", to_double());
    return Str(text);
  }
#else
  template <class Str = std::string> Str to_string() const;
#endif
  int length() const { return _AP_W; }

  // Raw bits.
  ap_range_ref<_AP_W, _AP_S> range(int hi, int lo) { return _AP_V.range(hi, lo); }
  ap_range_ref<_AP_W, _AP_S> range() { return _AP_V.range(); }
  ap_int_base<_AP_W, false> range(int hi, int lo) const { return _AP_V.get_range(hi, lo); }
  ap_int_base<_AP_W, false> range() const { return _AP_V.get_range(_AP_W - 1, 0); }
  ap_range_ref<_AP_W, _AP_S> operator()(int hi, int lo) { return _AP_V.range(hi, lo); }
  ap_bit_ref<_AP_W, _AP_S> operator[](int i) { return _AP_V[i]; }
  bool operator[](int i) const { return _AP_V.test(i); }
  ap_bit_ref<_AP_W, _AP_S> bit(int i) { return _AP_V[i]; }
  bool get_bit(int i) const { return _AP_V.test(i); }
  void set_bit(int i, bool b) { _AP_V.set_bit(i, b); }
  bool is_neg() const { return _AP_V.is_neg(); }
  bool iszero() const { return _AP_V.iszero(); }

  ap_fixed_base& operator++() { return *this = ap_fixed_base(*this + 1); }
  ap_fixed_base& operator--() { return *this = ap_fixed_base(*this - 1); }
  ap_fixed_base operator++(int) { ap_fixed_base t(*this); ++*this; return t; }
  ap_fixed_base operator--(int) { ap_fixed_base t(*this); --*this; return t; }
#define AP_FIXED_COMPOUND(_AP_OP)                                                        \
  template <class _AP_T> ap_fixed_base& operator _AP_OP##=(const _AP_T& v) {                     \
    return *this = ap_fixed_base(*this _AP_OP v);                                        \
  }
  AP_FIXED_COMPOUND(+) AP_FIXED_COMPOUND(-) AP_FIXED_COMPOUND(*) AP_FIXED_COMPOUND(/)
#undef AP_FIXED_COMPOUND
  ap_fixed_base& operator<<=(int n) { return *this = *this << n; }
  ap_fixed_base& operator>>=(int n) { return *this = *this >> n; }
  ap_fixed_base operator<<(int n) const { ap_fixed_base r; r._AP_V = _AP_V.shift(n); return r; }
  ap_fixed_base operator>>(int n) const { ap_fixed_base r; r._AP_V = _AP_V.shift(-n); return r; }
  template <int _AP_W2, bool _AP_S2> ap_fixed_base operator<<(const ap_int_base<_AP_W2, _AP_S2>& n) const {
    return *this << (int)n.to_int64();
  }
  template <int _AP_W2, bool _AP_S2> ap_fixed_base operator>>(const ap_int_base<_AP_W2, _AP_S2>& n) const {
    return *this >> (int)n.to_int64();
  }
  // Negation: one more integer bit, signed (as Vitis); exact.
  typedef ap_fixed_base<ap_detail::ap_cap(_AP_W + 1), _AP_I + 1 - (_AP_W + 1 - ap_detail::ap_cap(_AP_W + 1)),
                        true, AP_TRN, AP_WRAP, 0> negated;
  negated operator-() const {
    negated r;
    r._AP_V = -_AP_V;
    return r;
  }
  ap_fixed_base operator+() const { return *this; }
  bool operator!() const { return _AP_V.iszero(); }

  // The value of raw bits v with _AP_F2 fraction bits, quantized by Q and brought into
  // range by O, exactly (integer arithmetic at a width that holds v aligned to this
  // format, capped at AP_INT_MAX_W).
  template <int _AP_F2, int _AP_W2, bool _AP_S2> void set_raw(const ap_int_base<_AP_W2, _AP_S2>& v) {
    constexpr int up = fwidth - _AP_F2;
    set_scaled<ap_detail::ap_cap(ap_detail::ap_max(_AP_W2 + ap_detail::ap_max(up, 0), _AP_W) + 2)>(v, up);
  }
  // A real value: x = m * 2^(e - 64) with a 64-bit integer m (long double has 64
  // significant bits), then exactly as raw bits.
  void set_real(long double x) {
    if (std::isnan(x)) x = 0;
    if (std::isinf(x)) x = std::copysign(std::ldexp(1.0L, 16000), x);
    int e = 0;
    const long double m = std::frexp(x, &e);
    ap_int_base<65, true> raw((unsigned long long)std::ldexp(std::fabs(m), 64));
    if (m < 0) raw = ap_int_base<65, true>(-raw);
    // bits shifted past the width of the format are all zero: shifting further changes nothing
    set_scaled<ap_detail::ap_cap(_AP_W + 68)>(raw, ap_detail::ap_min(e - 64 + fwidth, _AP_W + 1));
  }
  // The raw bits v * 2^up (up < 0: a right shift, quantized by Q), brought into range by
  // O; computed at _AP_T bits, which hold v shifted by up.
  template <int _AP_T, int _AP_W2, bool _AP_S2> void set_scaled(const ap_int_base<_AP_W2, _AP_S2>& v, int up) {
    typedef ap_int_base<_AP_T, true> wide;
    wide x(v);
    if (up >= 0) {
      x = x.shift(up);
    } else {
      wide q = x.shift(up);       // floor
      const int below = -up - 1;  // the dropped bit worth half an LSB
      bool half = below < wide::width ? x.test(below) : x.is_neg();
      bool rest = below == 0 ? false : below < wide::width ? !x.shift(wide::width - below).iszero()
                                                           : !x.iszero();
      bool up_one = ap_detail::rounds_up(_AP_Q, x.is_neg(), q.test(0), half, rest);
      x = up_one ? wide(q + 1) : q;
    }
    _AP_V = ap_detail::in_range<_AP_W, _AP_S>(x, _AP_O);
  }
};

namespace ap_detail {
template <int _AP_W, int _AP_I, bool _AP_S, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N>
inline long double real_of(const ap_fixed_base<_AP_W, _AP_I, _AP_S, _AP_Q, _AP_O, _AP_N>& v) { return v.to_long_double(); }
}  // namespace ap_detail

namespace ap_detail {
// A fixed-point operand with a floating-point one: the C arithmetic on double.
template <class _AP_A, class _AP_B> struct fixed_float_pair {
  static constexpr bool value = fixed_pair<_AP_A, _AP_B>::value &&
      (std::is_floating_point<_AP_A>::value || std::is_floating_point<_AP_B>::value);
};
}  // namespace ap_detail

// Arithmetic and comparisons with a floating-point operand: computed in double.
#define AP_FIXED_OP(_AP_OP, _AP_RET, _AP_PAIR)                                                      \
  template <class _AP_A, class _AP_B,                                                               \
            typename std::enable_if<ap_detail::_AP_PAIR<_AP_A, _AP_B>::value, int>::type = 0>      \
  inline _AP_RET operator _AP_OP(const _AP_A& a, const _AP_B& b) {                                  \
    return (_AP_RET)(ap_detail::real_of(a) _AP_OP ap_detail::real_of(b));                           \
  }
AP_FIXED_OP(+, double, fixed_float_pair) AP_FIXED_OP(-, double, fixed_float_pair)
AP_FIXED_OP(*, double, fixed_float_pair) AP_FIXED_OP(/, double, fixed_float_pair)
AP_FIXED_OP(==, bool, fixed_float_pair) AP_FIXED_OP(!=, bool, fixed_float_pair)
AP_FIXED_OP(<, bool, fixed_float_pair) AP_FIXED_OP(<=, bool, fixed_float_pair)
AP_FIXED_OP(>, bool, fixed_float_pair) AP_FIXED_OP(>=, bool, fixed_float_pair)
#undef AP_FIXED_OP

namespace ap_detail {
// Fraction bits of an operand of a bitwise operator: W - I for fixed point, else 0.
template <int _AP_W, int _AP_I, bool _AP_S, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N>
constexpr int frac_of(const ap_fixed_base<_AP_W, _AP_I, _AP_S, _AP_Q, _AP_O, _AP_N>*) { return _AP_W - _AP_I; }
constexpr int frac_of(const void*) { return 0; }
template <class _AP_A, class _AP_B> struct fixed_logic_pair {
  static constexpr bool value = fixed_pair<_AP_A, _AP_B>::value &&
      !std::is_floating_point<_AP_A>::value && !std::is_floating_point<_AP_B>::value;
};
}  // namespace ap_detail

// Bitwise operators with a fixed-point operand (2 ^ x): Vitis aligns both binary points
// and combines the two's complement bits; here over 64-bit words at the finer point.
#define AP_FIXED_LOGIC(_AP_OP)                                                                      \
  template <class _AP_A, class _AP_B,                                                               \
            typename std::enable_if<ap_detail::fixed_logic_pair<_AP_A, _AP_B>::value, int>::type = 0> \
  inline double operator _AP_OP(const _AP_A& a, const _AP_B& b) {                                   \
    const int fa = ap_detail::frac_of(&a), fb = ap_detail::frac_of(&b), f = fa > fb ? fa : fb;      \
    const long long bits = (long long)std::ldexp(ap_detail::real_of(a), f)                          \
        _AP_OP (long long)std::ldexp(ap_detail::real_of(b), f);                                     \
    return (double)std::ldexp((long double)bits, -f);                                               \
  }
AP_FIXED_LOGIC(&) AP_FIXED_LOGIC(|) AP_FIXED_LOGIC(^)
#undef AP_FIXED_LOGIC

template <int _AP_W, int _AP_I, ap_q_mode _AP_Q = AP_TRN, ap_o_mode _AP_O = AP_WRAP, int _AP_N = 0>
class ap_fixed : public ap_fixed_base<_AP_W, _AP_I, true, _AP_Q, _AP_O, _AP_N> {
 public:
  using ap_fixed_base<_AP_W, _AP_I, true, _AP_Q, _AP_O, _AP_N>::ap_fixed_base;
  ap_fixed() : ap_fixed_base<_AP_W, _AP_I, true, _AP_Q, _AP_O, _AP_N>() {}
  template <int _AP_W2, int _AP_I2, bool _AP_S2, ap_q_mode _AP_Q2, ap_o_mode _AP_O2, int _AP_N2>
  ap_fixed(const ap_fixed_base<_AP_W2, _AP_I2, _AP_S2, _AP_Q2, _AP_O2, _AP_N2>& o) : ap_fixed_base<_AP_W, _AP_I, true, _AP_Q, _AP_O, _AP_N>(o) {}
};

template <int _AP_W, int _AP_I, ap_q_mode _AP_Q = AP_TRN, ap_o_mode _AP_O = AP_WRAP, int _AP_N = 0>
class ap_ufixed : public ap_fixed_base<_AP_W, _AP_I, false, _AP_Q, _AP_O, _AP_N> {
 public:
  using ap_fixed_base<_AP_W, _AP_I, false, _AP_Q, _AP_O, _AP_N>::ap_fixed_base;
  ap_ufixed() : ap_fixed_base<_AP_W, _AP_I, false, _AP_Q, _AP_O, _AP_N>() {}
  template <int _AP_W2, int _AP_I2, bool _AP_S2, ap_q_mode _AP_Q2, ap_o_mode _AP_O2, int _AP_N2>
  ap_ufixed(const ap_fixed_base<_AP_W2, _AP_I2, _AP_S2, _AP_Q2, _AP_O2, _AP_N2>& o) : ap_fixed_base<_AP_W, _AP_I, false, _AP_Q, _AP_O, _AP_N>(o) {}
};

namespace ap_detail {
// The format of an exact operand: a fixed-point value's, an integer's (no fraction bits).
template <class _AP_B> struct format;
template <int _AP_W, int _AP_I, bool _AP_S, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N>
struct format<ap_fixed_base<_AP_W, _AP_I, _AP_S, _AP_Q, _AP_O, _AP_N> > {
  static constexpr int w = _AP_W, i = _AP_I;
  static constexpr bool s = _AP_S;
};
template <int _AP_W, bool _AP_S> struct format<ap_int_base<_AP_W, _AP_S> > {
  static constexpr int w = _AP_W, i = _AP_W;
  static constexpr bool s = _AP_S;
};
template <class _AP_T, class = void> struct format_of : format<typename int_of<_AP_T>::type> {};
template <class _AP_T>
struct format_of<_AP_T, typename std::enable_if<is_ap_fixed<_AP_T>::value>::type>
    : format<decltype(fixed_base_of((_AP_T*)nullptr))> {};
// A fixed-point operand with a fixed-point or integer one: the result is exact (Vitis).
template <class _AP_A, class _AP_B> struct fixed_exact_pair {
  static constexpr bool value = fixed_pair<_AP_A, _AP_B>::value &&
      !std::is_floating_point<_AP_A>::value && !std::is_floating_point<_AP_B>::value;
};
// The fixed-point type of a W-bit format with I integer bits. Past AP_INT_MAX_W (Vitis
// documents no result format wider than that) the width is capped and the integer bits
// give way: the fraction bits survive, so a product or sum assigned back to a format
// that holds it is exact (the dropped top integer bits wrap, before an AP_SAT there).
template <int _AP_W, int _AP_I, bool _AP_S>
using fixed_of = typename std::conditional<
    _AP_S, ap_fixed<ap_cap(_AP_W), _AP_I - (_AP_W - ap_cap(_AP_W))>,
    ap_ufixed<ap_cap(_AP_W), _AP_I - (_AP_W - ap_cap(_AP_W))> >::type;
// Vitis' full-precision formats: F = W - I fraction bits; a sum keeps the larger
// fraction and one more integer bit than the larger integer part (two if only the other
// operand is signed); a product has W1 + W2 bits and I1 + I2 integer bits; a quotient
// keeps the dividend's fraction bits, with as many more integer bits as the divisor has
// fraction bits (and its sign bit).
template <class _AP_A, class _AP_B> struct result {
  typedef format_of<_AP_A> a;
  typedef format_of<_AP_B> b;
  static constexpr int fa = a::w - a::i, fb = b::w - b::i, f = ap_max(fa, fb);
  static constexpr int plus_i = ap_max(a::i + (!a::s && b::s), b::i + (!b::s && a::s)) + 1;
  static constexpr bool s = a::s || b::s;
  typedef fixed_of<plus_i + f, plus_i, s> plus;
  typedef fixed_of<plus_i + f, plus_i, true> minus;
  typedef fixed_of<a::w + b::w, a::i + b::i, s> mult;
  typedef fixed_of<a::w + ap_max(fb, 0) + b::s, a::i + fb + b::s, s> div;
};

// The raw bits of an exact operand (value = raw * 2^-fraction bits): a fixed-point
// value's, an integer as itself.
template <int _AP_W, int _AP_I, bool _AP_S, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N>
const ap_int_base<_AP_W, _AP_S>& raw_of(const ap_fixed_base<_AP_W, _AP_I, _AP_S, _AP_Q, _AP_O, _AP_N>& v) {
  return v._AP_V;
}
template <class _AP_T, typename std::enable_if<!is_ap_fixed<_AP_T>::value, int>::type = 0>
typename int_of<_AP_T>::type raw_of(const _AP_T& v) { return typename int_of<_AP_T>::type(v); }

// Raw bits with _AP_F fraction bits as raw bits of format _AP_R (sign- or zero-extended
// to its width, shifted to its binary point).
template <class _AP_R, int _AP_F, int _AP_W, bool _AP_S>
ap_int_base<_AP_R::width, _AP_S> aligned(const ap_int_base<_AP_W, _AP_S>& v) {
  return ap_int_base<_AP_R::width, _AP_S>(v).shift(_AP_R::fwidth - _AP_F);
}
template <class _AP_R, class _AP_T> _AP_R with_raw(const _AP_T& v) {
  _AP_R r;
  r._AP_V = v;
  return r;
}
}  // namespace ap_detail

// Arithmetic of a fixed-point value with another or an integer: exact, on the raw bits
// with the integer core, held in the full-precision result format (see result above).
// A sum or difference aligns both binary points first.
#define AP_FIXED_EXACT(_AP_OP, _AP_KIND)                                                            \
  template <class _AP_A, class _AP_B,                                                               \
            typename std::enable_if<ap_detail::fixed_exact_pair<_AP_A, _AP_B>::value, int>::type = 0, \
            class _AP_R = typename ap_detail::result<_AP_A, _AP_B>::_AP_KIND>                       \
  inline _AP_R operator _AP_OP(const _AP_A& a, const _AP_B& b) {                                    \
    typedef ap_detail::result<_AP_A, _AP_B> _AP_F;                                                  \
    return ap_detail::with_raw<_AP_R>(ap_detail::aligned<_AP_R, _AP_F::fa>(ap_detail::raw_of(a))    \
                                      _AP_OP ap_detail::aligned<_AP_R, _AP_F::fb>(ap_detail::raw_of(b))); \
  }
AP_FIXED_EXACT(+, plus) AP_FIXED_EXACT(-, minus)
#undef AP_FIXED_EXACT
// A product: the product of the raw bits, with Fa + Fb fraction bits.
template <class _AP_A, class _AP_B,
          typename std::enable_if<ap_detail::fixed_exact_pair<_AP_A, _AP_B>::value, int>::type = 0>
inline typename ap_detail::result<_AP_A, _AP_B>::mult operator*(const _AP_A& a, const _AP_B& b) {
  return ap_detail::with_raw<typename ap_detail::result<_AP_A, _AP_B>::mult>(
      ap_detail::raw_of(a) * ap_detail::raw_of(b));
}
// A quotient: Vitis divides the raw bits, the dividend's shifted left by the divisor's
// fraction bits (if any), truncating toward zero (division by zero gives 0 here).
template <class _AP_A, class _AP_B,
          typename std::enable_if<ap_detail::fixed_exact_pair<_AP_A, _AP_B>::value, int>::type = 0>
inline typename ap_detail::result<_AP_A, _AP_B>::div operator/(const _AP_A& a, const _AP_B& b) {
  typedef ap_detail::result<_AP_A, _AP_B> _AP_F;
  typedef ap_int_base<ap_detail::ap_cap(_AP_F::a::w + ap_detail::ap_max(_AP_F::fb, 0)), _AP_F::a::s> _AP_D;
  const _AP_D dividend = _AP_D(ap_detail::raw_of(a)).shift(ap_detail::ap_max(_AP_F::fb, 0));
  return ap_detail::with_raw<typename _AP_F::div>(dividend / ap_detail::raw_of(b));
}

// Comparisons of a fixed-point value with another or an integer: exact, by the sign of
// the difference.
#define AP_FIXED_CMP(_AP_OP)                                                                        \
  template <class _AP_A, class _AP_B,                                                               \
            typename std::enable_if<ap_detail::fixed_exact_pair<_AP_A, _AP_B>::value, int>::type = 0> \
  inline bool operator _AP_OP(const _AP_A& a, const _AP_B& b) {                                     \
    const auto d = a - b;                                                                           \
    return (d.is_neg() ? -1 : d.iszero() ? 0 : 1) _AP_OP 0;                                         \
  }
AP_FIXED_CMP(==) AP_FIXED_CMP(!=) AP_FIXED_CMP(<) AP_FIXED_CMP(<=) AP_FIXED_CMP(>) AP_FIXED_CMP(>=)
#undef AP_FIXED_CMP

template <class _AP_C, class _AP_T, int _AP_W, int _AP_I, bool _AP_S, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N>
inline std::basic_ostream<_AP_C, _AP_T>& operator<<(std::basic_ostream<_AP_C, _AP_T>& os,
                                            const ap_fixed_base<_AP_W, _AP_I, _AP_S, _AP_Q, _AP_O, _AP_N>& v) {
  return os << v.to_double();
}

#include "ap_int.h"

#endif  // ARRAYPART_AP_FIXED_H
