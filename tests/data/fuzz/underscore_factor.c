void k(int A[8]) {
#pragma HLS array_partition variable=A cyclic factor=1_0
  A[0] = 0;
}
