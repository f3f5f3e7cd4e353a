void k(int A[8]) {
  A[1 << (1 << 40)] = 0;
}
