// atax: y = A^T (A x), both inner products pipelined and unrolled by 5 over local copies of A, x and y.
#define M 48
#define N 40

void atax(float A[M][N], float x[N], float y[N])
{
    float a_buf[M][N];
    float x_buf[N];
    float y_buf[N];
    for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
        x_buf[j] = x[j];
        y_buf[j] = 0.0f;
    }
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
            a_buf[i][j] = A[i][j];
        }
    }
    for (int i = 0; i < M; i++) {
        float tmp = 0.0f;
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=5
            tmp += a_buf[i][j] * x_buf[j];
        }
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=5
            y_buf[j] += a_buf[i][j] * tmp;
        }
    }
    for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
        y[j] = y_buf[j];
    }
}
