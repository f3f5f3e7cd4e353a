// ap_int.h: arraypart's stand-in for the Vitis HLS header of the same name.
// ap_int<W> and ap_uint<W> (W <= 64) hold W-bit two's-complement values, wrapping like
// the real types; enough to parse with clang and to build a C simulation with g++.
#ifndef ARRAYPART_AP_INT_H
#define ARRAYPART_AP_INT_H

template <int W, bool S>
struct ap_int_base {
  long long v;
  static long long wrap(long long x) {
    if (W >= 64) return x;
    unsigned long long mask = (1ULL << W) - 1;
    unsigned long long u = (unsigned long long)x & mask;
    if (S && (u >> (W - 1))) u |= ~mask;
    return (long long)u;
  }
  ap_int_base() : v(0) {}
  ap_int_base(long long x) : v(wrap(x)) {}
  operator long long() const { return v; }
  int to_int() const { return (int)v; }
  unsigned to_uint() const { return (unsigned)v; }
  long long to_int64() const { return v; }
  ap_int_base& operator+=(long long x) { v = wrap(v + x); return *this; }
  ap_int_base& operator-=(long long x) { v = wrap(v - x); return *this; }
  ap_int_base& operator*=(long long x) { v = wrap(v * x); return *this; }
  ap_int_base& operator++() { v = wrap(v + 1); return *this; }
  ap_int_base& operator--() { v = wrap(v - 1); return *this; }
  ap_int_base operator++(int) { ap_int_base old = *this; ++*this; return old; }
  ap_int_base operator--(int) { ap_int_base old = *this; --*this; return old; }
};

template <int W>
struct ap_int : ap_int_base<W, true> {
  ap_int() {}
  ap_int(long long x) : ap_int_base<W, true>(x) {}
};

template <int W>
struct ap_uint : ap_int_base<W, false> {
  ap_uint() {}
  ap_uint(long long x) : ap_int_base<W, false>(x) {}
};

#endif
