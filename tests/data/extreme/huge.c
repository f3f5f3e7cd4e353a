// 10^10-element interface array, pipelined stencil over a window of it
void huge(int A[100000][100000], int out[1000]) {
  for (int i = 1; i < 999; i++) {
#pragma HLS pipeline II=1
    out[i] = A[i][i - 1] + A[i][i] + A[i][i + 1] + A[i + 1][i];
  }
}
