void k(int A[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=99999999999999999999
    A[i] = 0;
  }
}
