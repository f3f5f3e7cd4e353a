// arraypart stand-in for Vitis HLS bit concatenation (our own code, written from UG1399's
// "Concatenation"): (hi, lo) of ap_[u]int values, their bit and range references
// (x[i], x.range(h, l)) and nested concatenations is an unsigned integer of the summed
// widths with hi in the high bits and lo in the low lo.length() bits (a range counts
// with its run-time length, its type with the parent's width, as in Vitis). A C integer
// or unscoped enum operand counts with its own width (bool 1, char 8, int 32, long 64),
// as Vitis' overloads for each C type do; with no ap operand the comma is C's.
//
// When every operand is assignable (a non-const ap integer, a bit or range reference, a
// concatenation of those) the result is an ap_concat_ref and (a, b) = v assigns v's
// high bits to a and its low lo.length() bits to b. Otherwise (a const or temporary ap
// integer, a C integer) it is a const value: assigning to it does not compile, where
// Vitis would write through a const_cast. An ap_fixed operand is read only.
#ifndef ARRAYPART_AP_CONCAT_H
#define ARRAYPART_AP_CONCAT_H

#include "ap_common.h"

template <int _AP_W, int _AP_I, bool _AP_S, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N> class ap_fixed_base;

namespace ap_detail {

template <class _AP_T> struct is_concat_ref : std::false_type {};
template <class _AP_H, class _AP_L> struct is_concat_ref<ap_concat_ref<_AP_H, _AP_L>> : std::true_type {};

// The bits of one operand as an unsigned value of its type's width.
template <int _AP_W, bool _AP_S> ap_int_base<_AP_W, false> concat_bits(const ap_int_base<_AP_W, _AP_S>& v) {
  return ap_int_base<_AP_W, false>(v);
}
template <int _AP_W, bool _AP_S> ap_int_base<_AP_W, false> concat_bits(const ap_range_ref<_AP_W, _AP_S>& r) {
  return r.get();
}
template <int _AP_W, bool _AP_S> ap_int_base<1, false> concat_bits(const ap_bit_ref<_AP_W, _AP_S>& b) {
  return ap_int_base<1, false>(bool(b));
}
template <class _AP_H, class _AP_L>
ap_int_base<ap_concat_ref<_AP_H, _AP_L>::width, false> concat_bits(const ap_concat_ref<_AP_H, _AP_L>& c) {
  return c.get();
}
template <class _AP_T, typename std::enable_if<std::is_integral<_AP_T>::value, int>::type = 0>
ap_int_base<int_of<_AP_T>::type::width, false> concat_bits(_AP_T v) {
  return ap_int_base<int_of<_AP_T>::type::width, false>(v);
}
// An ap_fixed operand gives its raw bits (its value times 2^(W - I)), as Vitis' does.
template <int _AP_W, int _AP_I, bool _AP_S, ap_q_mode _AP_Q, ap_o_mode _AP_O, int _AP_N>
ap_int_base<_AP_W, false> concat_bits(const ap_fixed_base<_AP_W, _AP_I, _AP_S, _AP_Q, _AP_O, _AP_N>& v) {
  return v.range();
}
// An unscoped enum takes the C type it promotes to (int), as Vitis' int overload does.
template <class _AP_T, typename std::enable_if<std::is_enum<_AP_T>::value &&
                                               std::is_convertible<_AP_T, int>::value, int>::type = 0>
auto concat_bits(_AP_T v) -> decltype(concat_bits(+v)) {
  return concat_bits(+v);
}

// How many low bits of the result an operand fills: its width, a range's run-time length.
template <class _AP_T> int concat_length(const _AP_T& v) { return decltype(concat_bits(v))::width; }
template <int _AP_W, bool _AP_S> int concat_length(const ap_range_ref<_AP_W, _AP_S>& r) { return r.length(); }
template <class _AP_H, class _AP_L> int concat_length(const ap_concat_ref<_AP_H, _AP_L>& c) { return c.length(); }

// Writes the low bits of v into an assignable operand.
template <int _AP_W, bool _AP_S, int _AP_W2>
void concat_put(ap_int_base<_AP_W, _AP_S>& p, const ap_int_base<_AP_W2, false>& v) { p = ap_int_base<_AP_W, _AP_S>(v); }
template <int _AP_W, bool _AP_S, int _AP_W2>
void concat_put(ap_range_ref<_AP_W, _AP_S>& r, const ap_int_base<_AP_W2, false>& v) { r = v; }
template <int _AP_W, bool _AP_S, int _AP_W2>
void concat_put(ap_bit_ref<_AP_W, _AP_S>& b, const ap_int_base<_AP_W2, false>& v) { b = v.test(0); }
template <class _AP_H, class _AP_L, int _AP_W2>
void concat_put(ap_concat_ref<_AP_H, _AP_L>& c, const ap_int_base<_AP_W2, false>& v) { c = v; }

template <class _AP_T> struct concat_width {
  static constexpr int value = decltype(concat_bits(std::declval<const _AP_T&>()))::width;
};
template <class _AP_T, class = void> struct is_concat_operand : std::false_type {};
template <class _AP_T>
struct is_concat_operand<_AP_T, decltype((void)concat_bits(std::declval<const _AP_T&>()))> : std::true_type {};

// (a, b) as a value: a's bits shifted above b's length.
template <class _AP_A, class _AP_B>
ap_int_base<concat_width<_AP_A>::value + concat_width<_AP_B>::value, false> concat_value(const _AP_A& a,
                                                                                     const _AP_B& b) {
  typedef ap_int_base<concat_width<_AP_A>::value + concat_width<_AP_B>::value, false> _AP_R;
  return _AP_R(_AP_R(concat_bits(a)) << concat_length(b)) | _AP_R(concat_bits(b));
}

// How a concatenation holds an operand that a forwarding reference deduced as _AP_T: a
// reference object by value, a non-const ap integer lvalue by reference, else void
// (the operand is read only).
template <class _AP_T, class _AP_D = typename std::decay<_AP_T>::type, class = void>
struct concat_holder { typedef void type; };
template <class _AP_T, class _AP_D>
struct concat_holder<_AP_T, _AP_D, typename std::enable_if<is_concat_ref<_AP_D>::value>::type> {
  typedef _AP_D type;
};
template <class _AP_T, int _AP_W, bool _AP_S>
struct concat_holder<_AP_T, ap_range_ref<_AP_W, _AP_S>, void> { typedef ap_range_ref<_AP_W, _AP_S> type; };
template <class _AP_T, int _AP_W, bool _AP_S>
struct concat_holder<_AP_T, ap_bit_ref<_AP_W, _AP_S>, void> { typedef ap_bit_ref<_AP_W, _AP_S> type; };
template <class _AP_T, class _AP_D>
struct concat_holder<_AP_T, _AP_D, typename std::enable_if<
    std::is_lvalue_reference<_AP_T>::value && !std::is_const<typename std::remove_reference<_AP_T>::type>::value &&
    is_ap_int<_AP_D>::value && !is_concat_ref<_AP_D>::value>::type> {
  typedef decltype(base_of((_AP_D*)nullptr))& type;
};

// An operand that is not a C integer or enum: an ap integer or a reference into one.
template <class _AP_D> struct is_ap_operand {
  static constexpr bool value = !std::is_arithmetic<_AP_D>::value && !std::is_enum<_AP_D>::value;
};
// Both operands concatenate and one of them is an ap operand (else the comma is C's).
template <class _AP_A, class _AP_B, class _AP_DA = typename std::decay<_AP_A>::type,
          class _AP_DB = typename std::decay<_AP_B>::type>
struct concat_pair {
  static constexpr bool value = is_concat_operand<_AP_DA>::value && is_concat_operand<_AP_DB>::value &&
                                (is_ap_operand<_AP_DA>::value || is_ap_operand<_AP_DB>::value);
};

// (a, b) is an ap_concat_ref when both operands are assignable, else a const value.
template <class _AP_A, class _AP_B, class _AP_HA = typename concat_holder<_AP_A>::type,
          class _AP_HB = typename concat_holder<_AP_B>::type>
struct concat_result {
  typedef ap_concat_ref<_AP_HA, _AP_HB> type;
  static type make(typename std::remove_reference<_AP_A>::type& a, typename std::remove_reference<_AP_B>::type& b) {
    return type(a, b);
  }
};
template <class _AP_A, class _AP_B>
struct concat_result<_AP_A, _AP_B, void, void> {
  typedef const ap_int_base<concat_width<typename std::decay<_AP_A>::type>::value +
                                concat_width<typename std::decay<_AP_B>::type>::value, false> type;
  static type make(const _AP_A& a, const _AP_B& b) { return concat_value(a, b); }
};
template <class _AP_A, class _AP_B, class _AP_HA>
struct concat_result<_AP_A, _AP_B, _AP_HA, void> : concat_result<_AP_A, _AP_B, void, void> {};
template <class _AP_A, class _AP_B, class _AP_HB>
struct concat_result<_AP_A, _AP_B, void, _AP_HB> : concat_result<_AP_A, _AP_B, void, void> {};

}  // namespace ap_detail

// An assignable concatenation of _AP_H (high bits) and _AP_L (low bits): each an
// ap_int_base<W, S>& or a bit, range or concatenation reference held by value.
template <class _AP_H, class _AP_L>
class ap_concat_ref {
  typedef typename std::decay<_AP_H>::type _AP_DH;
  typedef typename std::decay<_AP_L>::type _AP_DL;

 public:
  static constexpr int width = ap_detail::concat_width<_AP_DH>::value + ap_detail::concat_width<_AP_DL>::value;
  ap_concat_ref(_AP_H hi, _AP_L lo) : hi_(hi), lo_(lo) {}
  ap_concat_ref(const ap_concat_ref&) = default;
  int length() const { return ap_detail::concat_length(hi_) + ap_detail::concat_length(lo_); }
  ap_int_base<width, false> get() const { return ap_detail::concat_value(hi_, lo_); }
  operator unsigned long long() const { return get().to_uint64(); }
  unsigned long long to_uint64() const { return get().to_uint64(); }
  long long to_int64() const { return get().to_int64(); }
  int to_int() const { return get().to_int(); }
  unsigned to_uint() const { return get().to_uint(); }
  ap_int_base<width, false> operator~() const { return ~get(); }
  template <class _AP_T> ap_int_base<width, false> operator<<(const _AP_T& n) const { return get() << n; }
  template <class _AP_T> ap_int_base<width, false> operator>>(const _AP_T& n) const { return get() >> n; }

  // The low lo.length() bits of v go to lo, the bits above them to hi.
  template <class _AP_T> ap_concat_ref& operator=(const _AP_T& v) {
    ap_int_base<width, false> bits(v);
    ap_detail::concat_put(lo_, ap_int_base<ap_detail::concat_width<_AP_DL>::value, false>(bits));
    ap_detail::concat_put(hi_, ap_int_base<ap_detail::concat_width<_AP_DH>::value, false>(
                                   bits >> ap_detail::concat_length(lo_)));
    return *this;
  }
  ap_concat_ref& operator=(const ap_concat_ref& o) { return *this = o.get(); }

 private:
  _AP_H hi_;
  _AP_L lo_;
};

template <class _AP_A, class _AP_B, typename std::enable_if<ap_detail::concat_pair<_AP_A, _AP_B>::value, int>::type = 0>
inline typename ap_detail::concat_result<_AP_A, _AP_B>::type operator,(_AP_A&& a, _AP_B&& b) {
  return ap_detail::concat_result<_AP_A, _AP_B>::make(a, b);
}

#endif  // ARRAYPART_AP_CONCAT_H
