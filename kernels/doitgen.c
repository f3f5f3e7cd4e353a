// doitgen: multiresolution kernel A[r][q][:] = A[r][q][:] * C4, the s-reduction fully unrolled under a pipelined p-loop.
#define NR 8
#define NQ 8
#define NP 32

void doitgen(float A[NR][NQ][NP], float C4[NP][NP])
{
    float c4_buf[NP][NP];
    float sum[NP];
    for (int s = 0; s < NP; s++) {
        for (int p = 0; p < NP; p++) {
#pragma HLS pipeline II=1
            c4_buf[s][p] = C4[s][p];
        }
    }
    for (int r = 0; r < NR; r++) {
        for (int q = 0; q < NQ; q++) {
            for (int p = 0; p < NP; p++) {
#pragma HLS pipeline II=1
                float acc = 0.0f;
                for (int s = 0; s < NP; s++) {
                    acc += A[r][q][s] * c4_buf[s][p];
                }
                sum[p] = acc;
            }
            for (int p = 0; p < NP; p++) {
#pragma HLS pipeline II=1
                A[r][q][p] = sum[p];
            }
        }
    }
}
