void k(int A[1 << (1 << 40)]) {
  A[0] = 0;
}
