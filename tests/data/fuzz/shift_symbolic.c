void k(int A[8]) {
  for (int i = 0; i < 8; i++)
    A[i >> 99999999999] = 0;
}
