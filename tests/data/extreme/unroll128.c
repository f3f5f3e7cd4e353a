// unroll factor 128 under a pipeline
void unroll128(int in[4096], int out[4096]) {
  int buf[4096];
  for (int i = 0; i < 4096; i++) {
#pragma HLS pipeline II=1
    buf[i] = in[i]; }
  for (int i = 0; i < 4096; i++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=128
    out[i] = buf[i] * 2;
  }
}
