#include <stdint.h>
#define N 16
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* A kernel with every loop form
   the front end accepts. */
void loops(int32_t A[N][N], float x[N], int idx[N]) {
  int s = 0;
  outer: for (int i = 0; i < N; i++) {
    for (int j = MAX(0, i - 2); j <= MIN(N - 1, MIN(i + 2, 12)); ++j)
      A[i][j] += x[j];
  }
  for (int i = N - 1; i >= 0; i--) x[i] = x[i & 7] + x[i >> 1];
  for (int i = 0; i != N; i = i + 2 - 1) s += x[idx[i]];
  for (int i = N; i > 1; i -= 3) x[i / 2] = x[i % 3];
  for (int i = 0; N > i; i += 4) x[2 * i + 1] = A[i][i * i];
  for (int i = 0; i < N; i++) {
    for (int j = i; j < min(N, i + 4); j++) {
      A[i][j] = x[i] > 0 ? x[j] : x[N - 1 - j];
      x[j]++;
    }
  }
}
