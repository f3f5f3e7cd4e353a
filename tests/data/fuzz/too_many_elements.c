void k(char A[1L << 40][1L << 40]) {
  A[0][0] = 0;
}
