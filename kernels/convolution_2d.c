// convolution_2d: 3x3 convolution with fixed coefficients, the column loop pipelined and unrolled by 2 (a 3x4 window per cycle).
#define NI 64
#define NJ 64

void convolution_2d(float A[NI][NJ], float B[NI][NJ])
{
    float a_buf[NI][NJ];
    for (int i = 0; i < NI; i++) {
        for (int j = 0; j < NJ; j++) {
#pragma HLS pipeline II=1
            a_buf[i][j] = A[i][j];
        }
    }
    for (int i = 1; i < NI - 1; i++) {
        for (int j = 1; j < NJ - 1; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=2
            B[i][j] = 0.2f * a_buf[i - 1][j - 1] + 0.5f * a_buf[i - 1][j] - 0.8f * a_buf[i - 1][j + 1]
                    - 0.3f * a_buf[i][j - 1] + 0.6f * a_buf[i][j] - 0.9f * a_buf[i][j + 1]
                    + 0.4f * a_buf[i + 1][j - 1] + 0.7f * a_buf[i + 1][j] + 0.1f * a_buf[i + 1][j + 1];
        }
    }
}
