void k(int A[2]) {
#line 99 "other.c"
  A[0] = ;
}
