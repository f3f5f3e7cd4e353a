// seidel_2d: in-place Gauss-Seidel sweeps of the 9-point average; one local grid is read and written by the same pipelined loop.
#define TSTEPS 4
#define N 32

void seidel_2d(float A[N][N])
{
    float a_buf[N][N];
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
            a_buf[i][j] = A[i][j];
        }
    }
    for (int t = 0; t < TSTEPS; t++) {
        for (int i = 1; i < N - 1; i++) {
            for (int j = 1; j < N - 1; j++) {
#pragma HLS pipeline II=1
                a_buf[i][j] = (a_buf[i - 1][j - 1] + a_buf[i - 1][j] + a_buf[i - 1][j + 1]
                               + a_buf[i][j - 1] + a_buf[i][j] + a_buf[i][j + 1]
                               + a_buf[i + 1][j - 1] + a_buf[i + 1][j] + a_buf[i + 1][j + 1])
                              / 9.0f;
            }
        }
    }
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
            A[i][j] = a_buf[i][j];
        }
    }
}
