// 64 concurrent reads: an 8x8 window
void win64(float in[72][72], float out[64][64]) {
  float buf[72][72];
  for (int i = 0; i < 72; i++) for (int j = 0; j < 72; j++) {
#pragma HLS pipeline II=1
    buf[i][j] = in[i][j]; }
  for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) {
#pragma HLS pipeline II=1
    out[i][j] = buf[i + 0][j + 0] + buf[i + 0][j + 1] + buf[i + 0][j + 2] + buf[i + 0][j + 3] + buf[i + 0][j + 4] + buf[i + 0][j + 5] + buf[i + 0][j + 6] + buf[i + 0][j + 7] + buf[i + 1][j + 0] + buf[i + 1][j + 1] + buf[i + 1][j + 2] + buf[i + 1][j + 3] + buf[i + 1][j + 4] + buf[i + 1][j + 5] + buf[i + 1][j + 6] + buf[i + 1][j + 7] + buf[i + 2][j + 0] + buf[i + 2][j + 1] + buf[i + 2][j + 2] + buf[i + 2][j + 3] + buf[i + 2][j + 4] + buf[i + 2][j + 5] + buf[i + 2][j + 6] + buf[i + 2][j + 7] + buf[i + 3][j + 0] + buf[i + 3][j + 1] + buf[i + 3][j + 2] + buf[i + 3][j + 3] + buf[i + 3][j + 4] + buf[i + 3][j + 5] + buf[i + 3][j + 6] + buf[i + 3][j + 7] + buf[i + 4][j + 0] + buf[i + 4][j + 1] + buf[i + 4][j + 2] + buf[i + 4][j + 3] + buf[i + 4][j + 4] + buf[i + 4][j + 5] + buf[i + 4][j + 6] + buf[i + 4][j + 7] + buf[i + 5][j + 0] + buf[i + 5][j + 1] + buf[i + 5][j + 2] + buf[i + 5][j + 3] + buf[i + 5][j + 4] + buf[i + 5][j + 5] + buf[i + 5][j + 6] + buf[i + 5][j + 7] + buf[i + 6][j + 0] + buf[i + 6][j + 1] + buf[i + 6][j + 2] + buf[i + 6][j + 3] + buf[i + 6][j + 4] + buf[i + 6][j + 5] + buf[i + 6][j + 6] + buf[i + 6][j + 7] + buf[i + 7][j + 0] + buf[i + 7][j + 1] + buf[i + 7][j + 2] + buf[i + 7][j + 3] + buf[i + 7][j + 4] + buf[i + 7][j + 5] + buf[i + 7][j + 6] + buf[i + 7][j + 7];
  }
}
