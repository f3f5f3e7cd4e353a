#include <math.h>
#define H 8
#define W 8

// 3x3 blur with a user-fixed partition.
void stencil(const float in[H][W], float out[H][W]) {
#pragma HLS INTERFACE mode=m_axi port=in
#pragma HLS array_partition variable=in type=cyclic factor=3 dim=2
#pragma HLS bind_storage variable=out type=RAM_1P impl=bram
  static float coeff[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
#pragma HLS array_partition variable=coeff complete dim=0
  rows: for (int i = 1; i < H - 1; i++) {
    cols: for (int j = 1; j < W - 1; j++) {
#pragma HLS pipeline II=2
      float acc = 0;
      for (int di = -1; di <= 1; di++)
        for (int dj = -1; dj <= 1; dj++)
          acc += coeff[di + 1][dj + 1] * in[i + di][j + dj];
      if (i > 1 && (j < W - 2 || !(i == j)))
        out[i][j] = sqrtf(acc);
      else if (acc > 0)
        out[i][j] = 0;
    }
  }
}
