// arraypart stand-in for Vitis HLS ap_axi_sdata.h (our own code): AXI4-Stream packets.
// ap_axis<D, U, TI, TD> (signed data) and ap_axiu<D, U, TI, TD> (unsigned data) carry
// data, keep and strb (one bit per byte), user, last, id and dest; hls::axis<T, U, TI, TD>
// carries a T. A side-channel field of width 0 is kept as one bit so that code naming it
// still compiles.
#ifndef ARRAYPART_AP_AXI_SDATA_H
#define ARRAYPART_AP_AXI_SDATA_H

#include <cstddef>

#include "ap_int.h"

namespace ap_detail {
constexpr int at_least_one(int w) { return w > 0 ? w : 1; }
template <class T> struct bit_width { static constexpr int value = int(8 * sizeof(T)); };
template <int W> struct bit_width<ap_int<W>> { static constexpr int value = W; };
template <int W> struct bit_width<ap_uint<W>> { static constexpr int value = W; };
}  // namespace ap_detail

template <int D, int U = 0, int TI = 0, int TD = 0>
struct ap_axis {
  ap_int<D> data;
  ap_uint<(D + 7) / 8> keep;
  ap_uint<(D + 7) / 8> strb;
  ap_uint<ap_detail::at_least_one(U)> user;
  ap_uint<1> last;
  ap_uint<ap_detail::at_least_one(TI)> id;
  ap_uint<ap_detail::at_least_one(TD)> dest;
};

template <int D, int U = 0, int TI = 0, int TD = 0>
struct ap_axiu {
  ap_uint<D> data;
  ap_uint<(D + 7) / 8> keep;
  ap_uint<(D + 7) / 8> strb;
  ap_uint<ap_detail::at_least_one(U)> user;
  ap_uint<1> last;
  ap_uint<ap_detail::at_least_one(TI)> id;
  ap_uint<ap_detail::at_least_one(TD)> dest;
};

namespace hls {
template <typename T, std::size_t U = 0, std::size_t TI = 0, std::size_t TD = 0>
struct axis {
  static constexpr int bytes = (ap_detail::bit_width<T>::value + 7) / 8;
  T data;
  ap_uint<bytes> keep;
  ap_uint<bytes> strb;
  ap_uint<ap_detail::at_least_one(int(U))> user;
  ap_uint<1> last;
  ap_uint<ap_detail::at_least_one(int(TI))> id;
  ap_uint<ap_detail::at_least_one(int(TD))> dest;
};
}  // namespace hls

#endif  // ARRAYPART_AP_AXI_SDATA_H
