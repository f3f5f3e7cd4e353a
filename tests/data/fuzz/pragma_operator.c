#define PIPELINE _Pragma("HLS pipeline II=2")
void k(int A[8]) {
  for (int i = 0; i < 8; i++) {
    PIPELINE
    A[i] = 0;
  }
}
