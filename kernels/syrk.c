// syrk: lower triangle of C = alpha*A*A^T + beta*C, triangular j <= i loops pipelined and unrolled by 2.
#define N 32
#define M 24

void syrk(float alpha, float beta, float C[N][N], float A[N][M])
{
    float a_buf[N][M];
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < M; k++) {
#pragma HLS pipeline II=1
            a_buf[i][k] = A[i][k];
        }
    }
    for (int i = 0; i < N; i++) {
        for (int j = 0; j <= i; j++) {
#pragma HLS pipeline II=1
            C[i][j] *= beta;
        }
        for (int k = 0; k < M; k++) {
            for (int j = 0; j <= i; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=2
                C[i][j] += alpha * a_buf[i][k] * a_buf[j][k];
            }
        }
    }
}
