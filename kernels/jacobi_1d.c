// jacobi_1d: TSTEPS sweeps of the 3-point average between two local buffers, pipelined and unrolled by 3.
#define TSTEPS 20
#define N 120

void jacobi_1d(float A[N], float B[N])
{
    float a_buf[N];
    float b_buf[N];
    for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
        a_buf[i] = A[i];
        b_buf[i] = B[i];
    }
    for (int t = 0; t < TSTEPS; t++) {
        for (int i = 1; i < N - 1; i++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=3
            b_buf[i] = 0.33333f * (a_buf[i - 1] + a_buf[i] + a_buf[i + 1]);
        }
        for (int i = 1; i < N - 1; i++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=3
            a_buf[i] = 0.33333f * (b_buf[i - 1] + b_buf[i] + b_buf[i + 1]);
        }
    }
    for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
        A[i] = a_buf[i];
        B[i] = b_buf[i];
    }
}
