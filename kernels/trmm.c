// trmm: B = alpha * A^T B with A unit lower triangular; the k > i reduction is pipelined over a local copy of B.
#define M 32
#define N 32

void trmm(float alpha, float A[M][M], float B[M][N])
{
    float b_buf[M][N];
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
            b_buf[i][j] = B[i][j];
        }
    }
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            float acc = b_buf[i][j];
            for (int k = i + 1; k < M; k++) {
#pragma HLS pipeline II=1
                acc += A[k][i] * b_buf[k][j];
            }
            b_buf[i][j] = alpha * acc;
        }
    }
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
            B[i][j] = b_buf[i][j];
        }
    }
}
