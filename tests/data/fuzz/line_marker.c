# 0 "other.c"
void k(int A[2]) { A[0] = ; }
