// gemm: C = alpha*A*B + beta*C, the k-loop fully unrolled under a pipelined j-loop, operands in local buffers.
#define NI 32
#define NJ 32
#define NK 32

void gemm(float alpha, float beta, float C[NI][NJ], float A[NI][NK], float B[NK][NJ])
{
    float a_buf[NI][NK];
    float b_buf[NK][NJ];
    for (int i = 0; i < NI; i++) {
        for (int k = 0; k < NK; k++) {
#pragma HLS pipeline II=1
            a_buf[i][k] = A[i][k];
        }
    }
    for (int k = 0; k < NK; k++) {
        for (int j = 0; j < NJ; j++) {
#pragma HLS pipeline II=1
            b_buf[k][j] = B[k][j];
        }
    }
    for (int i = 0; i < NI; i++) {
        for (int j = 0; j < NJ; j++) {
#pragma HLS pipeline II=1
            float acc = beta * C[i][j];
            for (int k = 0; k < NK; k++) {
                acc += alpha * a_buf[i][k] * b_buf[k][j];
            }
            C[i][j] = acc;
        }
    }
}
