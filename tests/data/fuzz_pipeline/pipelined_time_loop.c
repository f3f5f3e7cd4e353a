// fdtd_2d mutant: the time loop is pipelined, so every inner loop unrolls into one iteration.
#define TMAX 8
#define NX 32
#define NY 32

void fdtd_2d(float ex[NX][NY], float ey[NX][NY], float hz[NX][NY], float fict[TMAX])
{
    for (int t = 0; t < TMAX; t++) {
#pragma HLS pipeline II=1
        for (int j = 0; j < NY; j++) {
#pragma HLS pipeline II=2
            ey[0][j] = fict[t];
        }
        for (int i = 1; i < NX; i++) {
            for (int j = 0; j < NY; j++) {
#pragma HLS pipeline II=1
                ey[i][j] = ey[i][j] - 0.5f * (hz[i][j] - hz[i - 1][j]);
            }
        }
        for (int i = 0; i < NX; i++) {
            for (int j = 1; j < NY; j++) {
#pragma HLS pipeline II=1
                ex[i][j] = ex[i][j] - 0.5f * (hz[i][j] - hz[i][j - 1]);
            }
        }
        for (int i = 0; i < NX - 1; i++) {
            for (int j = 0; j < NY - 1; j++) {
#pragma HLS pipeline II=1
                hz[i][j] = hz[i][j] - 0.7f * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
            }
        }
    }
}
