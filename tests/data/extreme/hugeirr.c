// 10^10-element table read through data-dependent indices
void hugeirr(int A[100000][100000], int idx[64], int out[64]) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = A[idx[i]][i] + A[i][idx[i]];
  }
}
