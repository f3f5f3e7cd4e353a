#define N 18446744073709551616
void k(int A[N]) {
  A[0] = 0;
}
