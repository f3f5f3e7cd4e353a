#if
void k(int A[2]) { A[0] = 1; }
