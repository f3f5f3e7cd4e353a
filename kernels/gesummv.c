// gesummv: y = alpha*A*x + beta*B*x, the row products pipelined and unrolled by 4.
#define N 64

void gesummv(float alpha, float beta, float A[N][N], float B[N][N], float x[N], float y[N])
{
    float x_buf[N];
    for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
        x_buf[j] = x[j];
    }
    for (int i = 0; i < N; i++) {
        float ta = 0.0f;
        float tb = 0.0f;
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=4
            ta += A[i][j] * x_buf[j];
            tb += B[i][j] * x_buf[j];
        }
        y[i] = alpha * ta + beta * tb;
    }
}
