// arraypart stand-in for Vitis HLS ap_int.h: ap_int<W> and ap_uint<W>, W-bit integers
// with wrap-around on assignment (see ap_common.h for the arithmetic). Our own code.
#ifndef ARRAYPART_AP_INT_H
#define ARRAYPART_AP_INT_H

#include "ap_common.h"

template <int _AP_W>
class ap_int : public ap_int_base<_AP_W, true> {
 public:
  using ap_int_base<_AP_W, true>::ap_int_base;
  ap_int() : ap_int_base<_AP_W, true>() {}
  // Inherited constructors never take a base-class argument ([over.match.funcs]), so the
  // conversion from any ap_int_base (the type of every arithmetic result) is spelled out.
  template <int _AP_W2, bool _AP_S2>
  ap_int(const ap_int_base<_AP_W2, _AP_S2>& o) : ap_int_base<_AP_W, true>(o) {}
};

template <int _AP_W>
class ap_uint : public ap_int_base<_AP_W, false> {
 public:
  using ap_int_base<_AP_W, false>::ap_int_base;
  ap_uint() : ap_int_base<_AP_W, false>() {}
  // Inherited constructors never take a base-class argument ([over.match.funcs]), so the
  // conversion from any ap_int_base (the type of every arithmetic result) is spelled out.
  template <int _AP_W2, bool _AP_S2>
  ap_uint(const ap_int_base<_AP_W2, _AP_S2>& o) : ap_int_base<_AP_W, false>(o) {}
};

#include "ap_fixed.h"

#endif  // ARRAYPART_AP_INT_H
