// tri_matvec: y = L x with L lower triangular, over a triangular domain (j <= i) pipelined and unrolled by 5.
#define N 64

void tri_matvec(float L[N][N], float x[N], float y[N])
{
    float l_buf[N][N];
    float x_buf[N];
    for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
        x_buf[i] = x[i];
    }
    for (int i = 0; i < N; i++) {
        for (int j = 0; j <= i; j++) {
#pragma HLS pipeline II=1
            l_buf[i][j] = L[i][j];
        }
    }
    for (int i = 0; i < N; i++) {
        float acc = 0.0f;
        for (int j = 0; j <= i; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=5
            acc += l_buf[i][j] * x_buf[j];
        }
        y[i] = acc;
    }
}
