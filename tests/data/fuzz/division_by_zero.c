void k(int A[8]) {
  for (int i = 0; i < 8 / 0; i++)
    A[i] = 0;
}
