// fuzz: a fully unrolled triangular loop (j <= i) under its own pipeline: 32 lane
// domains and 1000 regular reads once made the lower bound's isl proof run for minutes.
#define N 32
void triangular_full_unroll(float C[N][N], float A[N][N])
{
    float a_buf[N][N];
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < N; k++) {
#pragma HLS pipeline II=1
            a_buf[i][k] = A[i][k];
        }
    }
    for (int i = 0; i < N; i++) {
        for (int j = 0; j <= i; j++) {
#pragma HLS unroll
#pragma HLS pipeline II=1
            float acc = 0;
            for (int k = 0; k < N; k++) {
                acc += a_buf[j][k] * a_buf[i][k];
            }
            C[i][j] = acc;
        }
    }
}
