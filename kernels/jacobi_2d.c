// jacobi_2d: TSTEPS sweeps of the 5-point average between two local grids, the inner loop pipelined.
#define TSTEPS 10
#define N 32

void jacobi_2d(float A[N][N], float B[N][N])
{
    float a_buf[N][N];
    float b_buf[N][N];
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
            a_buf[i][j] = A[i][j];
            b_buf[i][j] = B[i][j];
        }
    }
    for (int t = 0; t < TSTEPS; t++) {
        for (int i = 1; i < N - 1; i++) {
            for (int j = 1; j < N - 1; j++) {
#pragma HLS pipeline II=1
                b_buf[i][j] = 0.2f * (a_buf[i][j] + a_buf[i][j - 1] + a_buf[i][j + 1]
                                      + a_buf[i + 1][j] + a_buf[i - 1][j]);
            }
        }
        for (int i = 1; i < N - 1; i++) {
            for (int j = 1; j < N - 1; j++) {
#pragma HLS pipeline II=1
                a_buf[i][j] = 0.2f * (b_buf[i][j] + b_buf[i][j - 1] + b_buf[i][j + 1]
                                      + b_buf[i + 1][j] + b_buf[i - 1][j]);
            }
        }
    }
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
            A[i][j] = a_buf[i][j];
            B[i][j] = b_buf[i][j];
        }
    }
}
