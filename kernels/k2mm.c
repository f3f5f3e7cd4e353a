// k2mm: D = alpha*A*B*C + beta*D (PolyBench 2mm) in i-k-j order, the j- and l-loops pipelined and unrolled by 3.
#define NI 24
#define NJ 32
#define NK 24
#define NL 32

void k2mm(float alpha, float beta, float A[NI][NK], float B[NK][NJ], float C[NJ][NL],
          float D[NI][NL])
{
    float tmp[NI][NJ];
    for (int i = 0; i < NI; i++) {
        for (int j = 0; j < NJ; j++) {
#pragma HLS pipeline II=1
            tmp[i][j] = 0.0f;
        }
        for (int k = 0; k < NK; k++) {
            for (int j = 0; j < NJ; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=3
                tmp[i][j] += alpha * A[i][k] * B[k][j];
            }
        }
    }
    for (int i = 0; i < NI; i++) {
        for (int l = 0; l < NL; l++) {
#pragma HLS pipeline II=1
            D[i][l] *= beta;
        }
        for (int j = 0; j < NJ; j++) {
            for (int l = 0; l < NL; l++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=3
                D[i][l] += tmp[i][j] * C[j][l];
            }
        }
    }
}
