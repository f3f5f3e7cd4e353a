// arraypart stand-in for the Vitis HLS arbitrary-precision integer core (our own code,
// written from the documented behaviour, not from Xilinx's headers).
//
// ap_int_base<W, S> is a W-bit two's complement integer (S: signed), laid out as Vitis
// HLS's C simulation lays it out (so sizeof and pointer casts agree): up to 64 bits in one
// integer of the bytes W needs rounded up to 1, 2, 4 or 8, above that in ceil(W/64)
// 64-bit words; the stored bits above W copy the sign (signed) or are zero, and every
// read masks them, so bytes written through a cast are read as W bits. Every width is
// exact: add, sub,
// mul, div, mod, shifts, logic and comparisons work word by word. Results widen as in
// Vitis HLS (a + b has max(Wa, Wb) + 1 bits, a * b has Wa + Wb bits); only assignment
// wraps to the destination width. Enough for clang to parse kernels and for g++
// -std=c++14 to build and run C simulation; not a bit-exact model of every corner
// (a shift by a negative amount shifts the other way; to_string prints base 10 or 16).
#ifndef ARRAYPART_AP_COMMON_H
#define ARRAYPART_AP_COMMON_H

// Only light headers: <iosfwd> declares std::string and std::basic_ostream, which the
// printing templates below need complete only when a kernel uses them (after including
// <string> or <iostream> itself). A heavier include here costs every parse of every kernel.
// A kernel may define function-like macros before it includes ap_int.h, as Vitis's own
// headers allow (they include no library header while synthesizing): min and max, which
// libstdc++'s configuration header #undefs, are saved around the library headers (every
// stand-in does so), and <cstdio> is included only for C simulation (ap_fixed.h,
// hls_stream.h), so printf(...) may be a macro under __SYNTHESIS__.
#include "arraypart_save_min_max.inc"
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <type_traits>
#include <utility>
#include "arraypart_restore_min_max.inc"

#ifndef AP_INT_MAX_W
#define AP_INT_MAX_W 4096
#endif

enum ap_q_mode { AP_RND, AP_RND_ZERO, AP_RND_MIN_INF, AP_RND_INF, AP_RND_CONV, AP_TRN, AP_TRN_ZERO };
enum ap_o_mode { AP_SAT, AP_SAT_ZERO, AP_SAT_SYM, AP_WRAP, AP_WRAP_SM };

template <int _AP_W, bool _AP_S> class ap_int_base;
template <int _AP_W, bool _AP_S> class ap_range_ref;
template <int _AP_W, bool _AP_S> class ap_bit_ref;
template <class _AP_H, class _AP_L> class ap_concat_ref;  // ap_concat.h

namespace ap_detail {

constexpr int ap_max(int a, int b) { return a > b ? a : b; }
constexpr int ap_min(int a, int b) { return a < b ? a : b; }
constexpr int ap_cap(int w) { return w > AP_INT_MAX_W ? AP_INT_MAX_W : w; }
constexpr int words(int w) { return w <= 0 ? 1 : (w + 63) / 64; }
inline uint64_t top_mask(int w) { return w % 64 == 0 ? ~0ULL : ((1ULL << (w % 64)) - 1); }

// The storage of a W-bit value: words(W) 64-bit words, or for W <= 64 one unsigned
// integer of 1, 2, 4 or 8 bytes (what the value's bytes round up to).
template <int _AP_W, bool _AP_WIDE = (_AP_W > 64)> struct bits {
  uint64_t w_[words(_AP_W)];
  uint64_t get(int i) const { return w_[i]; }
  void put(int i, uint64_t v) { w_[i] = v; }
};
template <int _AP_W> struct bits<_AP_W, false> {
  typedef typename std::conditional<
      (_AP_W <= 8), uint8_t, typename std::conditional<
      (_AP_W <= 16), uint16_t,
      typename std::conditional<(_AP_W <= 32), uint32_t, uint64_t>::type>::type>::type
      word_type;
  word_type w_;
  uint64_t get(int) const { return w_; }
  void put(int, uint64_t v) { w_ = (word_type)v; }
};

// Word-array primitives on n little-endian 64-bit words (results modulo 2^(64 n)).
inline void add(const uint64_t* a, const uint64_t* b, uint64_t* out, int n) {
  unsigned carry = 0;
  for (int i = 0; i < n; ++i) {
    uint64_t s = a[i] + b[i];
    unsigned c1 = s < a[i];
    uint64_t t = s + carry;
    unsigned c2 = t < s;
    out[i] = t;
    carry = c1 | c2;
  }
}
inline void negate(const uint64_t* a, uint64_t* out, int n) {
  unsigned carry = 1;
  for (int i = 0; i < n; ++i) {
    uint64_t t = ~a[i] + carry;
    carry = carry && t == 0;
    out[i] = t;
  }
}
inline void mul(const uint64_t* a, const uint64_t* b, uint64_t* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = 0;
  for (int i = 0; i < n; ++i) {
    unsigned __int128 carry = 0;
    for (int j = 0; i + j < n; ++j) {
      unsigned __int128 t = (unsigned __int128)a[i] * b[j] + out[i + j] + carry;
      out[i + j] = (uint64_t)t;
      carry = t >> 64;
    }
  }
}
inline bool bit(const uint64_t* a, int i) { return (a[i / 64] >> (i % 64)) & 1; }
inline int ucmp(const uint64_t* a, const uint64_t* b, int n) {
  for (int i = n - 1; i >= 0; --i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
inline void shl(const uint64_t* a, int s, uint64_t* out, int n) {
  int ws = s / 64, bs = s % 64;
  for (int i = n - 1; i >= 0; --i) {
    uint64_t hi = i - ws >= 0 ? a[i - ws] : 0;
    uint64_t lo = i - ws - 1 >= 0 ? a[i - ws - 1] : 0;
    out[i] = bs ? (hi << bs) | (lo >> (64 - bs)) : hi;
  }
}
// Shift right by s, filling with `fill` (0 or all ones) from above.
inline void shr(const uint64_t* a, int s, uint64_t fill, uint64_t* out, int n) {
  int ws = s / 64, bs = s % 64;
  for (int i = 0; i < n; ++i) {
    uint64_t lo = i + ws < n ? a[i + ws] : fill;
    uint64_t hi = i + ws + 1 < n ? a[i + ws + 1] : fill;
    out[i] = bs ? (lo >> bs) | (hi << (64 - bs)) : lo;
  }
}
// Unsigned long division of n-word a by b (b != 0): quotient q, remainder r.
inline void udivmod(const uint64_t* a, const uint64_t* b, uint64_t* q, uint64_t* r, int n) {
  for (int i = 0; i < n; ++i) q[i] = r[i] = 0;
  for (int i = 64 * n - 1; i >= 0; --i) {
    shl(r, 1, r, n);
    r[0] |= (uint64_t)bit(a, i);
    if (ucmp(r, b, n) >= 0) {
      uint64_t nb[(AP_INT_MAX_W + 127) / 64];
      negate(b, nb, n);
      add(r, nb, r, n);
      q[i / 64] |= 1ULL << (i % 64);
    }
  }
}

// Result types of binary operators, as Vitis HLS widens them.
template <int _AP_W1, bool _AP_S1, int _AP_W2, bool _AP_S2>
struct rtype {
  static constexpr int logic_w = ap_max(_AP_W1 + (_AP_S2 && !_AP_S1), _AP_W2 + (_AP_S1 && !_AP_S2));
  typedef ap_int_base<ap_cap(_AP_W1 + _AP_W2), _AP_S1 || _AP_S2> mult;
  typedef ap_int_base<ap_cap(logic_w + 1), _AP_S1 || _AP_S2> plus;
  typedef ap_int_base<ap_cap(logic_w + 1), true> minus;
  typedef ap_int_base<ap_cap(_AP_W1 + _AP_S2), _AP_S1 || _AP_S2> div;
  typedef ap_int_base<ap_min(_AP_W1, _AP_W2 + (_AP_S1 && !_AP_S2)), _AP_S1> mod;
  typedef ap_int_base<ap_cap(logic_w), _AP_S1 || _AP_S2> logic;
  typedef ap_int_base<ap_cap(logic_w + 1), true> cmp;
};

// The ap_int_base a type stands for in mixed arithmetic: itself (or its base) for the
// arbitrary-precision integers, the same-width integer for a C integer type.
template <int _AP_W, bool _AP_S> ap_int_base<_AP_W, _AP_S> base_of(const ap_int_base<_AP_W, _AP_S>*);
// A concatenation takes part in arithmetic and comparisons as its unsigned value.
template <class _AP_H, class _AP_L>
ap_int_base<ap_concat_ref<_AP_H, _AP_L>::width, false> base_of(const ap_concat_ref<_AP_H, _AP_L>*);
void base_of(...);
template <class _AP_T, class = void> struct int_of {};
template <class _AP_T>
struct int_of<_AP_T, typename std::enable_if<std::is_integral<_AP_T>::value>::type> {
  typedef ap_int_base<std::is_same<_AP_T, bool>::value ? 1 : int(8 * sizeof(_AP_T)),
                      std::is_signed<_AP_T>::value> type;
};
template <class _AP_T>
struct int_of<_AP_T, typename std::enable_if<
                     !std::is_void<decltype(base_of((_AP_T*)nullptr))>::value>::type> {
  typedef decltype(base_of((_AP_T*)nullptr)) type;
};
template <class _AP_T> struct is_ap_int {
  static constexpr bool value = !std::is_void<decltype(base_of((_AP_T*)nullptr))>::value;
};
// Some operand is an ap integer and both operands are integers of some kind.
template <class _AP_A, class _AP_B> struct int_pair {
  static constexpr bool value = (is_ap_int<_AP_A>::value || is_ap_int<_AP_B>::value) &&
                                (is_ap_int<_AP_A>::value || std::is_integral<_AP_A>::value) &&
                                (is_ap_int<_AP_B>::value || std::is_integral<_AP_B>::value);
};
// An ap integer with a floating-point operand: the arithmetic is the C one on double.
template <class _AP_A, class _AP_B> struct int_float_pair {
  static constexpr bool value = (is_ap_int<_AP_A>::value && std::is_floating_point<_AP_B>::value) ||
                                (std::is_floating_point<_AP_A>::value && is_ap_int<_AP_B>::value);
};
template <class _AP_T> double as_double(const _AP_T& v) { return double(v); }
// v < 0, without comparing an unsigned or bool value with 0 (a -Wextra warning).
template <class _AP_T, typename std::enable_if<std::is_signed<_AP_T>::value, int>::type = 0>
constexpr bool negative(_AP_T v) { return v < 0; }
template <class _AP_T, typename std::enable_if<!std::is_signed<_AP_T>::value, int>::type = 0>
constexpr bool negative(_AP_T) { return false; }

}  // namespace ap_detail

template <int _AP_W, bool _AP_S>
class ap_int_base {
  static_assert(_AP_W >= 1, "ap_[u]int width must be at least 1");
  static_assert(_AP_W <= AP_INT_MAX_W, "ap_[u]int width exceeds AP_INT_MAX_W");

 public:
  static constexpr int width = _AP_W;
  static constexpr bool sign_flag = _AP_S;
  static constexpr int _AP_NW = ap_detail::words(_AP_W);
  ap_detail::bits<_AP_W> bits_;

  // Construction: zero, C integers (sign-extended), floating point (truncated toward
  // zero, wrapped), other widths (sign- or zero-extended, then wrapped), strings.
  ap_int_base() { set_int(0, false); }
  template <class _AP_T, typename std::enable_if<std::is_integral<_AP_T>::value, int>::type = 0>
  ap_int_base(_AP_T v) { set_int((uint64_t)v, ap_detail::negative(v)); }
  template <class _AP_T, typename std::enable_if<std::is_floating_point<_AP_T>::value, int>::type = 0>
  ap_int_base(_AP_T v) { set_real(v); }
  template <class _AP_T, typename std::enable_if<std::is_enum<_AP_T>::value, int>::type = 0>
  ap_int_base(_AP_T v) { set_int((uint64_t)(long long)v, (long long)v < 0); }
  template <int _AP_W2, bool _AP_S2>
  ap_int_base(const ap_int_base<_AP_W2, _AP_S2>& o) {
    for (int i = 0; i < _AP_NW; ++i) bits_.put(i, o.word(i));
    normalize();
  }
  template <int _AP_W2, bool _AP_S2>
  ap_int_base(const ap_range_ref<_AP_W2, _AP_S2>& r) : ap_int_base(r.get()) {}
  template <int _AP_W2, bool _AP_S2>
  ap_int_base(const ap_bit_ref<_AP_W2, _AP_S2>& b) { set_int(bool(b), false); }
  template <class _AP_H, class _AP_L>
  ap_int_base(const ap_concat_ref<_AP_H, _AP_L>& c) : ap_int_base(c.get()) {}
  ap_int_base(const char* text, int radix = 0) { set_text(text, radix); }
  // From any other number type with to_ap_int_base() (the fixed-point types): the
  // integer part, truncated toward zero, then wrapped.
  template <class _AP_T, typename std::enable_if<
                         std::is_class<_AP_T>::value && !ap_detail::is_ap_int<_AP_T>::value &&
                             ap_detail::is_ap_int<decltype(std::declval<const _AP_T&>().to_ap_int_base())>::value,
                         int>::type = 0>
  ap_int_base(const _AP_T& v) : ap_int_base(v.to_ap_int_base()) {}

  // Words of the value sign- or zero-extended to any length.
  uint64_t word(int i) const {
    uint64_t ext = is_neg() ? ~0ULL : 0;
    if (i >= _AP_NW) return ext;
    if (i == _AP_NW - 1) return raw(i) | (ext & ~ap_detail::top_mask(_AP_W));
    return raw(i);
  }
  // Word i of the W bits, the bits above W zero.
  uint64_t raw(int i) const {
    return i == _AP_NW - 1 ? bits_.get(i) & ap_detail::top_mask(_AP_W) : bits_.get(i);
  }
  void load(uint64_t* out) const {
    for (int i = 0; i < _AP_NW; ++i) out[i] = raw(i);
  }
  void store(const uint64_t* in) {
    for (int i = 0; i < _AP_NW; ++i) bits_.put(i, in[i]);
    normalize();
  }
  bool is_neg() const { return _AP_S && ((raw((_AP_W - 1) / 64) >> ((_AP_W - 1) % 64)) & 1); }
  // The stored bits above W: copies of the sign bit (signed) or zeros.
  void normalize() {
    uint64_t top = raw(_AP_NW - 1);
    bits_.put(_AP_NW - 1, is_neg() ? top | ~ap_detail::top_mask(_AP_W) : top);
  }

  // Conversions.
  long long to_int64() const { return (long long)word(0); }
  unsigned long long to_uint64() const { return word(0); }
  int to_int() const { return (int)to_int64(); }
  unsigned to_uint() const { return (unsigned)to_uint64(); }
  long to_long() const { return (long)to_int64(); }
  unsigned long to_ulong() const { return (unsigned long)to_uint64(); }
  bool to_bool() const { return !iszero(); }
  long double to_long_double() const {
    if (is_neg()) {
      uint64_t m[_AP_NW + 1], full[_AP_NW + 1];
      for (int i = 0; i <= _AP_NW; ++i) full[i] = word(i);
      ap_detail::negate(full, m, _AP_NW + 1);
      return -magnitude(m, _AP_NW + 1);
    }
    uint64_t m[_AP_NW];
    load(m);
    return magnitude(m, _AP_NW);
  }
  double to_double() const { return (double)to_long_double(); }
  float to_float() const { return (float)to_long_double(); }
  typedef typename std::conditional<_AP_S, long long, unsigned long long>::type c_type;
  operator c_type() const { return (c_type)word(0); }

  // Bits.
  int length() const { return _AP_W; }
  bool iszero() const {
    for (int i = 0; i < _AP_NW; ++i)
      if (raw(i)) return false;
    return true;
  }
  bool is_zero() const { return iszero(); }
  bool test(int i) const { return (raw(i / 64) >> (i % 64)) & 1; }
  bool get_bit(int i) const { return test(i); }
  void set_bit(int i, bool v) {
    uint64_t m = 1ULL << (i % 64);
    bits_.put(i / 64, v ? (raw(i / 64) | m) : (raw(i / 64) & ~m));
    normalize();
  }
  void set(int i) { set_bit(i, true); }
  void set(int i, bool v) { set_bit(i, v); }
  void clear(int i) { set_bit(i, false); }
  void invert(int i) { set_bit(i, !test(i)); }
  ap_bit_ref<_AP_W, _AP_S> operator[](int i) { return ap_bit_ref<_AP_W, _AP_S>(*this, i); }
  bool operator[](int i) const { return test(i); }
  ap_bit_ref<_AP_W, _AP_S> bit(int i) { return (*this)[i]; }
  bool bit(int i) const { return test(i); }
  ap_range_ref<_AP_W, _AP_S> range(int hi, int lo) { return ap_range_ref<_AP_W, _AP_S>(*this, hi, lo); }
  ap_range_ref<_AP_W, _AP_S> range() { return range(_AP_W - 1, 0); }
  ap_int_base<_AP_W, false> range(int hi, int lo) const { return get_range(hi, lo); }
  ap_int_base<_AP_W, false> range() const { return get_range(_AP_W - 1, 0); }
  ap_range_ref<_AP_W, _AP_S> operator()(int hi, int lo) { return range(hi, lo); }
  ap_int_base<_AP_W, false> operator()(int hi, int lo) const { return get_range(hi, lo); }
  // Bits hi..lo as an unsigned value; with hi < lo the bits come in reverse order
  // (bit k of the result is bit lo - k).
  ap_int_base<_AP_W, false> get_range(int hi, int lo) const {
    ap_int_base<_AP_W, false> r;
    if (hi < lo) {
      for (int k = 0; k <= lo - hi; ++k) r.set_bit(k, test(lo - k));
      return r;
    }
    uint64_t a[_AP_NW], t[_AP_NW];
    load(a);
    ap_detail::shr(a, lo, 0, t, _AP_NW);
    r.store(t);
    for (int i = hi - lo + 1; i < _AP_W; ++i) r.set_bit(i, false);
    return r;
  }
  template <int _AP_W2, bool _AP_S2>
  void set_range(int hi, int lo, const ap_int_base<_AP_W2, _AP_S2>& v) {
    int n = hi < lo ? lo - hi : hi - lo;
    for (int k = 0; k <= n; ++k)
      set_bit(hi < lo ? lo - k : lo + k, k < _AP_W2 ? v.test(k) : v.is_neg());
  }
  bool and_reduce() const {
    for (int i = 0; i < _AP_W; ++i)
      if (!test(i)) return false;
    return true;
  }
  bool or_reduce() const { return !iszero(); }
  bool xor_reduce() const {
    bool r = false;
    for (int i = 0; i < _AP_W; ++i) r ^= test(i);
    return r;
  }
  bool nand_reduce() const { return !and_reduce(); }
  bool nor_reduce() const { return !or_reduce(); }
  bool xnor_reduce() const { return !xor_reduce(); }
  ap_int_base& reverse() {
    ap_int_base t(*this);
    for (int i = 0; i < _AP_W; ++i) set_bit(i, t.test(_AP_W - 1 - i));
    return *this;
  }
  // Rotations in place by n places, 0 <= n < W (Vitis asserts that range).
  void lrotate(int n) {
    n %= _AP_W;
    *this = ap_int_base(shift(n) | ap_int_base<_AP_W, false>(*this).shift(n - _AP_W));
  }
  void rrotate(int n) { lrotate((_AP_W - n % _AP_W) % _AP_W); }
  void b_not() { *this = ~*this; }
  bool sign() const { return is_neg(); }
  int countLeadingZeros() const {
    int n = 0;
    for (int i = _AP_W - 1; i >= 0 && !test(i); --i) ++n;
    return n;
  }
  // The digits in base 2, 8, 10 or 16 (with a 0b, 0o or 0x prefix); needs <string>.
  template <class Str = std::string> Str to_string(int radix = 10) const;

  // Increment, decrement, compound assignment (the result wraps to W bits).
  ap_int_base& operator++() { return *this = ap_int_base(*this + 1); }
  ap_int_base& operator--() { return *this = ap_int_base(*this - 1); }
  ap_int_base operator++(int) { ap_int_base t(*this); ++*this; return t; }
  ap_int_base operator--(int) { ap_int_base t(*this); --*this; return t; }
#define AP_INT_COMPOUND(_AP_OP)                                               \
  template <class _AP_T> ap_int_base& operator _AP_OP##=(const _AP_T& v) {            \
    return *this = ap_int_base(*this _AP_OP v);                               \
  }
  AP_INT_COMPOUND(+) AP_INT_COMPOUND(-) AP_INT_COMPOUND(*) AP_INT_COMPOUND(/)
  AP_INT_COMPOUND(%) AP_INT_COMPOUND(&) AP_INT_COMPOUND(|) AP_INT_COMPOUND(^)
  AP_INT_COMPOUND(<<) AP_INT_COMPOUND(>>)
#undef AP_INT_COMPOUND

  // Shifts keep the left operand's type (bits shifted out are lost).
  template <class _AP_T> ap_int_base operator<<(const _AP_T& n) const { return shift(shift_amount(n)); }
  template <class _AP_T> ap_int_base operator>>(const _AP_T& n) const { return shift(-shift_amount(n)); }
  ap_int_base shift(long long n) const {
    ap_int_base r;
    uint64_t t[_AP_NW], out[_AP_NW];
    if (n >= 0) {
      load(t);
      ap_detail::shl(t, n >= _AP_W ? _AP_W : (int)n, out, _AP_NW);
    } else {
      for (int i = 0; i < _AP_NW; ++i) t[i] = word(i);
      ap_detail::shr(t, -n >= _AP_W ? _AP_W : (int)-n, is_neg() ? ~0ULL : 0, out, _AP_NW);
    }
    r.store(out);
    return r;
  }

  ap_int_base<ap_detail::ap_cap(_AP_W + 1), true> operator-() const {
    return ap_int_base<ap_detail::ap_cap(_AP_W + 1), true>(0) - *this;
  }
  ap_int_base operator+() const { return *this; }
  ap_int_base operator~() const {
    ap_int_base r;
    uint64_t out[_AP_NW];
    for (int i = 0; i < _AP_NW; ++i) out[i] = ~raw(i);
    r.store(out);
    return r;
  }
  bool operator!() const { return iszero(); }

 private:
  template <class _AP_T> static long long shift_amount(const _AP_T& n) { return (long long)n; }
  static long double magnitude(const uint64_t* m, int n) {
    long double v = 0;
    for (int i = n - 1; i >= 0; --i) v = v * 18446744073709551616.0L + (long double)m[i];
    return v;
  }
  void set_int(uint64_t v, bool neg) {
    uint64_t t[_AP_NW];
    t[0] = v;
    for (int i = 1; i < _AP_NW; ++i) t[i] = neg ? ~0ULL : 0;
    store(t);
  }
  void set_real(long double v) {
    v = std::trunc(v);
    if (std::isnan(v)) v = 0;
    bool neg = v < 0;
    long double m = neg ? -v : v;
    uint64_t t[_AP_NW];
    for (int i = 0; i < _AP_NW; ++i) {
      long double q = std::floor(m / 18446744073709551616.0L);
      t[i] = (uint64_t)(m - q * 18446744073709551616.0L);
      m = q;
    }
    if (neg) ap_detail::negate(t, t, _AP_NW);
    store(t);
  }
  void set_text(const char* s, int radix) {
    uint64_t acc[_AP_NW];
    for (int i = 0; i < _AP_NW; ++i) acc[i] = 0;
    bool neg = false;
    if (*s == '-') { neg = true; ++s; }
    if (radix == 0) {
      radix = 10;
      if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { radix = 16; s += 2; }
      else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) { radix = 2; s += 2; }
      else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) { radix = 8; s += 2; }
    } else if (radix == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      s += 2;
    }
    for (; *s; ++s) {
      int d = *s >= '0' && *s <= '9' ? *s - '0'
            : *s >= 'a' && *s <= 'z' ? *s - 'a' + 10
            : *s >= 'A' && *s <= 'Z' ? *s - 'A' + 10 : 99;
      if (d >= radix) break;
      uint64_t r[_AP_NW], digit[_AP_NW], base[_AP_NW];
      for (int i = 0; i < _AP_NW; ++i) digit[i] = base[i] = 0;
      digit[0] = (uint64_t)d;
      base[0] = (uint64_t)radix;
      ap_detail::mul(acc, base, r, _AP_NW);
      ap_detail::add(r, digit, acc, _AP_NW);
    }
    if (neg) ap_detail::negate(acc, acc, _AP_NW);
    store(acc);
  }
};

// A bit of an ap integer, readable and assignable (x[i] = 1).
template <int _AP_W, bool _AP_S>
class ap_bit_ref {
 public:
  ap_bit_ref(ap_int_base<_AP_W, _AP_S>& p, int i) : p_(p), i_(i) {}
  ap_bit_ref(const ap_bit_ref&) = default;  // a concatenation holds a copy
  operator bool() const { return p_.test(i_); }
  bool to_bool() const { return p_.test(i_); }
  ap_bit_ref& operator=(bool v) { p_.set_bit(i_, v); return *this; }
  // one per integer type, as Vitis has them: an unsigned or a long is no ambiguous call
  ap_bit_ref& operator=(char v) { p_.set_bit(i_, v != 0); return *this; }
  ap_bit_ref& operator=(signed char v) { p_.set_bit(i_, v != 0); return *this; }
  ap_bit_ref& operator=(unsigned char v) { p_.set_bit(i_, v != 0); return *this; }
  ap_bit_ref& operator=(short v) { p_.set_bit(i_, v != 0); return *this; }
  ap_bit_ref& operator=(unsigned short v) { p_.set_bit(i_, v != 0); return *this; }
  ap_bit_ref& operator=(int v) { p_.set_bit(i_, v != 0); return *this; }
  ap_bit_ref& operator=(unsigned v) { p_.set_bit(i_, v != 0); return *this; }
  ap_bit_ref& operator=(long v) { p_.set_bit(i_, v != 0); return *this; }
  ap_bit_ref& operator=(unsigned long v) { p_.set_bit(i_, v != 0); return *this; }
  ap_bit_ref& operator=(long long v) { p_.set_bit(i_, v != 0); return *this; }
  ap_bit_ref& operator=(unsigned long long v) { p_.set_bit(i_, v != 0); return *this; }
  ap_bit_ref& operator=(const ap_bit_ref& o) { p_.set_bit(i_, bool(o)); return *this; }
  template <int _AP_W2, bool _AP_S2> ap_bit_ref& operator=(const ap_bit_ref<_AP_W2, _AP_S2>& o) {
    p_.set_bit(i_, bool(o)); return *this;
  }
  template <int _AP_W2, bool _AP_S2> ap_bit_ref& operator=(const ap_int_base<_AP_W2, _AP_S2>& o) {
    p_.set_bit(i_, o.test(0)); return *this;
  }
  bool operator~() const { return !p_.test(i_); }

 private:
  ap_int_base<_AP_W, _AP_S>& p_;
  int i_;
};

// Bits hi..lo of an ap integer, readable (as an unsigned value) and assignable.
template <int _AP_W, bool _AP_S>
class ap_range_ref {
 public:
  ap_range_ref(ap_int_base<_AP_W, _AP_S>& p, int hi, int lo) : p_(p), hi_(hi), lo_(lo) {}
  ap_range_ref(const ap_range_ref&) = default;  // a concatenation holds a copy
  ap_int_base<_AP_W, false> get() const { return p_.get_range(hi_, lo_); }
  operator unsigned long long() const { return get().to_uint64(); }
  unsigned long long to_uint64() const { return get().to_uint64(); }
  long long to_int64() const { return get().to_int64(); }
  int to_int() const { return get().to_int(); }
  unsigned to_uint() const { return get().to_uint(); }
  double to_double() const { return get().to_double(); }
  int length() const { return (hi_ > lo_ ? hi_ - lo_ : lo_ - hi_) + 1; }
  template <class _AP_T, typename std::enable_if<std::is_integral<_AP_T>::value, int>::type = 0>
  ap_range_ref& operator=(_AP_T v) { p_.set_range(hi_, lo_, ap_int_base<64, std::is_signed<_AP_T>::value>(v)); return *this; }
  template <int _AP_W2, bool _AP_S2> ap_range_ref& operator=(const ap_int_base<_AP_W2, _AP_S2>& v) {
    p_.set_range(hi_, lo_, v); return *this;
  }
  // A fixed-point value (any type with to_ap_int_base()): its integer part, as Xilinx's
  // ap_range_ref::operator=(const ap_fixed_base&) takes it, not its bits.
  template <class _AP_T, typename std::enable_if<
                         std::is_class<_AP_T>::value && !ap_detail::is_ap_int<_AP_T>::value &&
                             ap_detail::is_ap_int<decltype(std::declval<const _AP_T&>().to_ap_int_base())>::value,
                         int>::type = 0>
  ap_range_ref& operator=(const _AP_T& v) { return operator=(v.to_ap_int_base()); }
  ap_range_ref& operator=(const ap_range_ref& o) { p_.set_range(hi_, lo_, o.get()); return *this; }
  template <int _AP_W2, bool _AP_S2> ap_range_ref& operator=(const ap_range_ref<_AP_W2, _AP_S2>& o) {
    p_.set_range(hi_, lo_, o.get()); return *this;
  }
  ap_range_ref& operator=(const char* text) { p_.set_range(hi_, lo_, ap_int_base<_AP_W, false>(text)); return *this; }

 private:
  ap_int_base<_AP_W, _AP_S>& p_;
  int hi_, lo_;
};

namespace ap_detail {
template <int _AP_W, bool _AP_S> double as_double(const ap_int_base<_AP_W, _AP_S>& v) { return v.to_double(); }
}  // namespace ap_detail

// Binary operators. Both operands are converted to the result type first, so the result
// is exact at its (widened) width.
#define AP_INT_BINOP(_AP_OP, _AP_KIND, _AP_BODY)                                                        \
  template <class _AP_A, class _AP_B,                                                                \
            typename std::enable_if<ap_detail::int_pair<_AP_A, _AP_B>::value, int>::type = 0,       \
            class _AP_RA = typename ap_detail::int_of<_AP_A>::type,                                  \
            class _AP_RB = typename ap_detail::int_of<_AP_B>::type>                                  \
  inline typename ap_detail::rtype<_AP_RA::width, _AP_RA::sign_flag, _AP_RB::width, _AP_RB::sign_flag>::_AP_KIND \
  operator _AP_OP(const _AP_A& a_in, const _AP_B& b_in) {                                                \
    typedef typename ap_detail::rtype<_AP_RA::width, _AP_RA::sign_flag, _AP_RB::width,                   \
                                      _AP_RB::sign_flag>::_AP_KIND _AP_R;                                \
    _AP_R a(a_in), b(b_in), r;                                                                   \
    uint64_t x[_AP_R::_AP_NW], y[_AP_R::_AP_NW], z[_AP_R::_AP_NW];                              \
    a.load(x);                                                                                   \
    b.load(y);                                                                                   \
    _AP_BODY;                                                                                    \
    r.store(z);                                                                              \
    return r;                                                                                \
  }

AP_INT_BINOP(+, plus, ap_detail::add(x, y, z, _AP_R::_AP_NW))
AP_INT_BINOP(-, minus, { uint64_t ny[_AP_R::_AP_NW]; ap_detail::negate(y, ny, _AP_R::_AP_NW);
                         ap_detail::add(x, ny, z, _AP_R::_AP_NW); })
AP_INT_BINOP(*, mult, ap_detail::mul(x, y, z, _AP_R::_AP_NW))
AP_INT_BINOP(&, logic, for (int i = 0; i < _AP_R::_AP_NW; ++i) z[i] = x[i] & y[i])
AP_INT_BINOP(|, logic, for (int i = 0; i < _AP_R::_AP_NW; ++i) z[i] = x[i] | y[i])
AP_INT_BINOP(^, logic, for (int i = 0; i < _AP_R::_AP_NW; ++i) z[i] = x[i] ^ y[i])
#undef AP_INT_BINOP

namespace ap_detail {
// Truncating signed or unsigned division of a by b, _AP_W-bit values in n words (C
// semantics).  A negative operand's magnitude is its negation at _AP_W bits: the words
// above _AP_W hold zeros, not the sign.
template <int _AP_N, int _AP_W>
inline void divide(const uint64_t* a, bool an, const uint64_t* b, bool bn, uint64_t* q,
                   uint64_t* r) {
  uint64_t ua[_AP_N], ub[_AP_N];
  if (an) negate(a, ua, _AP_N); else for (int i = 0; i < _AP_N; ++i) ua[i] = a[i];
  if (bn) negate(b, ub, _AP_N); else for (int i = 0; i < _AP_N; ++i) ub[i] = b[i];
  ua[_AP_N - 1] &= top_mask(_AP_W);
  ub[_AP_N - 1] &= top_mask(_AP_W);
  bool zero = true;
  for (int i = 0; i < _AP_N; ++i) zero = zero && ub[i] == 0;
  if (zero) {  // division by zero: 0, as undefined behaviour needs some value
    for (int i = 0; i < _AP_N; ++i) q[i] = r[i] = 0;
    return;
  }
  udivmod(ua, ub, q, r, _AP_N);
  if (an != bn) negate(q, q, _AP_N);
  if (an) negate(r, r, _AP_N);
}
}  // namespace ap_detail

namespace ap_detail {
// a / b, or a % b with ``remainder``, of the operands converted to _AP_RA and _AP_RB,
// worked one word wider than both so that the magnitude of the most negative value fits.
template <class _AP_RA, class _AP_RB, class _AP_A, class _AP_B>
inline ap_int_base<ap_cap(ap_max(_AP_RA::width, _AP_RB::width) + 2), true> quotient_or_remainder(
    const _AP_A& a_in, const _AP_B& b_in, bool remainder) {
  typedef ap_int_base<ap_cap(ap_max(_AP_RA::width, _AP_RB::width) + 2), true> _AP_T;
  _AP_T a{_AP_RA(a_in)}, b{_AP_RB(b_in)}, out;
  uint64_t x[_AP_T::_AP_NW], y[_AP_T::_AP_NW], q[_AP_T::_AP_NW], r[_AP_T::_AP_NW];
  a.load(x);
  b.load(y);
  divide<_AP_T::_AP_NW, _AP_T::width>(x, a.is_neg(), y, b.is_neg(), q, r);
  out.store(remainder ? r : q);
  return out;
}
}  // namespace ap_detail

template <class _AP_A, class _AP_B, typename std::enable_if<ap_detail::int_pair<_AP_A, _AP_B>::value, int>::type = 0,
          class _AP_RA = typename ap_detail::int_of<_AP_A>::type, class _AP_RB = typename ap_detail::int_of<_AP_B>::type>
inline typename ap_detail::rtype<_AP_RA::width, _AP_RA::sign_flag, _AP_RB::width, _AP_RB::sign_flag>::div
operator/(const _AP_A& a_in, const _AP_B& b_in) {
  return ap_detail::quotient_or_remainder<_AP_RA, _AP_RB>(a_in, b_in, false);
}
template <class _AP_A, class _AP_B, typename std::enable_if<ap_detail::int_pair<_AP_A, _AP_B>::value, int>::type = 0,
          class _AP_RA = typename ap_detail::int_of<_AP_A>::type, class _AP_RB = typename ap_detail::int_of<_AP_B>::type>
inline typename ap_detail::rtype<_AP_RA::width, _AP_RA::sign_flag, _AP_RB::width, _AP_RB::sign_flag>::mod
operator%(const _AP_A& a_in, const _AP_B& b_in) {
  return ap_detail::quotient_or_remainder<_AP_RA, _AP_RB>(a_in, b_in, true);
}

// Comparisons at a signed width that holds both operands.
#define AP_INT_CMP(_AP_OP)                                                                        \
  template <class _AP_A, class _AP_B,                                                                 \
            typename std::enable_if<ap_detail::int_pair<_AP_A, _AP_B>::value, int>::type = 0,        \
            class _AP_RA = typename ap_detail::int_of<_AP_A>::type,                                   \
            class _AP_RB = typename ap_detail::int_of<_AP_B>::type>                                   \
  inline bool operator _AP_OP(const _AP_A& a_in, const _AP_B& b_in) {                                     \
    typedef typename ap_detail::rtype<_AP_RA::width, _AP_RA::sign_flag, _AP_RB::width,                    \
                                      _AP_RB::sign_flag>::cmp _AP_R;                                  \
    _AP_R a{_AP_RA(a_in)}, b{_AP_RB(b_in)};                                                               \
    uint64_t x[_AP_R::_AP_NW], y[_AP_R::_AP_NW];                                                   \
    a.load(x);                                                                                    \
    b.load(y);                                                                                    \
    int c = a.is_neg() != b.is_neg() ? (a.is_neg() ? -1 : 1)                                  \
                                     : ap_detail::ucmp(x, y, _AP_R::_AP_NW);                          \
    return c _AP_OP 0;                                                                            \
  }
AP_INT_CMP(==) AP_INT_CMP(!=) AP_INT_CMP(<) AP_INT_CMP(<=) AP_INT_CMP(>) AP_INT_CMP(>=)
#undef AP_INT_CMP

// An ap integer with a float or double operand: C arithmetic on double.
#define AP_INT_FLOAT_OP(_AP_OP, _AP_RET)                                                              \
  template <class _AP_A, class _AP_B,                                                                 \
            typename std::enable_if<ap_detail::int_float_pair<_AP_A, _AP_B>::value, int>::type = 0>  \
  inline _AP_RET operator _AP_OP(const _AP_A& a, const _AP_B& b) {                                            \
    return ap_detail::as_double(a) _AP_OP ap_detail::as_double(b);                                \
  }
AP_INT_FLOAT_OP(+, double) AP_INT_FLOAT_OP(-, double) AP_INT_FLOAT_OP(*, double)
AP_INT_FLOAT_OP(/, double) AP_INT_FLOAT_OP(==, bool) AP_INT_FLOAT_OP(!=, bool)
AP_INT_FLOAT_OP(<, bool) AP_INT_FLOAT_OP(<=, bool) AP_INT_FLOAT_OP(>, bool)
AP_INT_FLOAT_OP(>=, bool)
#undef AP_INT_FLOAT_OP

template <int _AP_W, bool _AP_S>
template <class Str>
Str ap_int_base<_AP_W, _AP_S>::to_string(int radix) const {
  if (radix != 2 && radix != 8 && radix != 16) radix = 10;
  bool neg = radix == 10 && is_neg();
  ap_int_base<ap_detail::ap_cap(_AP_W + 1), false> m;
  if (neg) {
    ap_int_base<ap_detail::ap_cap(_AP_W + 1), true> t(*this);
    m = ap_int_base<ap_detail::ap_cap(_AP_W + 1), false>(-t);
  } else {
    m = ap_int_base<ap_detail::ap_cap(_AP_W + 1), false>(ap_int_base<_AP_W, false>(*this));
  }
  Str digits;
  while (!m.iszero()) {
    int d = (int)(m % radix).to_uint64();
    digits.insert(digits.begin(), "0123456789abcdef"[d]);
    m = m / radix;
  }
  if (digits.empty()) digits = "0";
  const char* prefix = radix == 16 ? "0x" : radix == 8 ? "0o" : radix == 2 ? "0b" : "";
  return Str(neg ? "-" : "") + Str(prefix) + digits;
}

template <class _AP_C, class _AP_T, int _AP_W, bool _AP_S>
inline std::basic_ostream<_AP_C, _AP_T>& operator<<(std::basic_ostream<_AP_C, _AP_T>& os,
                                            const ap_int_base<_AP_W, _AP_S>& v) {
  typedef std::basic_ostream<_AP_C, _AP_T> Stream;
  int radix = (os.flags() & Stream::hex) ? 16 : (os.flags() & Stream::oct) ? 8 : 10;
  return os << v.template to_string<std::basic_string<_AP_C, _AP_T>>(radix).c_str();
}
template <class _AP_C, class _AP_T, int _AP_W, bool _AP_S>
inline std::basic_ostream<_AP_C, _AP_T>& operator<<(std::basic_ostream<_AP_C, _AP_T>& os,
                                            const ap_range_ref<_AP_W, _AP_S>& v) {
  return os << v.get();
}

#include "ap_concat.h"

#endif  // ARRAYPART_AP_COMMON_H
