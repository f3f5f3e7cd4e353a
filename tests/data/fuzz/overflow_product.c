#define N (1L << 62)
void k(int A[8]) {
  for (int i = 0; i < 8; i++)
    A[i * N * N] = 0;
}
