// heat_3d: TSTEPS explicit steps of the 3-D heat equation (7-point stencil) between two local grids, the innermost loop pipelined.
#define TSTEPS 5
#define N 16

void heat_3d(float A[N][N][N], float B[N][N][N])
{
    float a_buf[N][N][N];
    float b_buf[N][N][N];
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
            for (int k = 0; k < N; k++) {
#pragma HLS pipeline II=1
                a_buf[i][j][k] = A[i][j][k];
                b_buf[i][j][k] = B[i][j][k];
            }
        }
    }
    for (int t = 0; t < TSTEPS; t++) {
        for (int i = 1; i < N - 1; i++) {
            for (int j = 1; j < N - 1; j++) {
                for (int k = 1; k < N - 1; k++) {
#pragma HLS pipeline II=1
                    b_buf[i][j][k] = a_buf[i][j][k]
                        + 0.125f * (a_buf[i + 1][j][k] - 2.0f * a_buf[i][j][k] + a_buf[i - 1][j][k])
                        + 0.125f * (a_buf[i][j + 1][k] - 2.0f * a_buf[i][j][k] + a_buf[i][j - 1][k])
                        + 0.125f * (a_buf[i][j][k + 1] - 2.0f * a_buf[i][j][k] + a_buf[i][j][k - 1]);
                }
            }
        }
        for (int i = 1; i < N - 1; i++) {
            for (int j = 1; j < N - 1; j++) {
                for (int k = 1; k < N - 1; k++) {
#pragma HLS pipeline II=1
                    a_buf[i][j][k] = b_buf[i][j][k]
                        + 0.125f * (b_buf[i + 1][j][k] - 2.0f * b_buf[i][j][k] + b_buf[i - 1][j][k])
                        + 0.125f * (b_buf[i][j + 1][k] - 2.0f * b_buf[i][j][k] + b_buf[i][j - 1][k])
                        + 0.125f * (b_buf[i][j][k + 1] - 2.0f * b_buf[i][j][k] + b_buf[i][j][k - 1]);
                }
            }
        }
    }
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
            for (int k = 0; k < N; k++) {
#pragma HLS pipeline II=1
                A[i][j][k] = a_buf[i][j][k];
                B[i][j][k] = b_buf[i][j][k];
            }
        }
    }
}
