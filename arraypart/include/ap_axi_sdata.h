// arraypart stand-in for Vitis HLS ap_axi_sdata.h (our own code): AXI4-Stream packets.
// ap_axis<D, U, TI, TD> (signed data) and ap_axiu<D, U, TI, TD> (unsigned data) carry
// data, keep and strb (one bit per byte), user, last, id and dest; hls::axis<T, U, TI, TD>
// carries a T; qdma_axis<D, 0, 0, 0> (the QDMA streaming packet) carries data, keep and
// last with their get_/set_ accessors. A side-channel field of width 0 is kept as one bit
// so that code naming it still compiles.
#ifndef ARRAYPART_AP_AXI_SDATA_H
#define ARRAYPART_AP_AXI_SDATA_H

#include "arraypart_save_min_max.inc"
#include <cstddef>
#include "arraypart_restore_min_max.inc"

#include "ap_int.h"

namespace ap_detail {
constexpr int at_least_one(int w) { return w > 0 ? w : 1; }
template <class _AP_T> struct bit_width { static constexpr int value = int(8 * sizeof(_AP_T)); };
template <int _AP_W> struct bit_width<ap_int<_AP_W>> { static constexpr int value = _AP_W; };
template <int _AP_W> struct bit_width<ap_uint<_AP_W>> { static constexpr int value = _AP_W; };
}  // namespace ap_detail

template <int _AP_D, int _AP_U = 0, int _AP_TI = 0, int _AP_TD = 0>
struct ap_axis {
  ap_int<_AP_D> data;
  ap_uint<(_AP_D + 7) / 8> keep;
  ap_uint<(_AP_D + 7) / 8> strb;
  ap_uint<ap_detail::at_least_one(_AP_U)> user;
  ap_uint<1> last;
  ap_uint<ap_detail::at_least_one(_AP_TI)> id;
  ap_uint<ap_detail::at_least_one(_AP_TD)> dest;
};

template <int _AP_D, int _AP_U = 0, int _AP_TI = 0, int _AP_TD = 0>
struct ap_axiu {
  ap_uint<_AP_D> data;
  ap_uint<(_AP_D + 7) / 8> keep;
  ap_uint<(_AP_D + 7) / 8> strb;
  ap_uint<ap_detail::at_least_one(_AP_U)> user;
  ap_uint<1> last;
  ap_uint<ap_detail::at_least_one(_AP_TI)> id;
  ap_uint<ap_detail::at_least_one(_AP_TD)> dest;
};

template <int _AP_D, int _AP_U = 0, int _AP_TI = 0, int _AP_TD = 0>
struct qdma_axis;

template <int _AP_D>
struct qdma_axis<_AP_D, 0, 0, 0> {
  ap_uint<_AP_D> data;
  ap_uint<(_AP_D + 7) / 8> keep;
  ap_uint<1> last;
  qdma_axis() {}
  qdma_axis(ap_uint<_AP_D> d, ap_uint<(_AP_D + 7) / 8> k = -1, ap_uint<1> l = 0)
      : data(d), keep(k), last(l) {}
  ap_uint<_AP_D> get_data() const { return data; }
  ap_uint<(_AP_D + 7) / 8> get_keep() const { return keep; }
  ap_uint<1> get_last() const { return last; }
  void set_data(const ap_uint<_AP_D> &d) { data = d; }
  void set_keep(const ap_uint<(_AP_D + 7) / 8> &k) { keep = k; }
  void set_last(const ap_uint<1> &l) { last = l; }
  void keep_all() { keep = -1; }
};

namespace hls {
template <typename _AP_T, std::size_t _AP_U = 0, std::size_t _AP_TI = 0, std::size_t _AP_TD = 0>
struct axis {
  static constexpr int bytes = (ap_detail::bit_width<_AP_T>::value + 7) / 8;
  _AP_T data;
  ap_uint<bytes> keep;
  ap_uint<bytes> strb;
  ap_uint<ap_detail::at_least_one(int(_AP_U))> user;
  ap_uint<1> last;
  ap_uint<ap_detail::at_least_one(int(_AP_TI))> id;
  ap_uint<ap_detail::at_least_one(int(_AP_TD))> dest;
};
}  // namespace hls

#endif  // ARRAYPART_AP_AXI_SDATA_H
