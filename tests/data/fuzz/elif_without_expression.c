#if 0
#elif
#endif
void k(int A[2]) { A[0] = 1; }
