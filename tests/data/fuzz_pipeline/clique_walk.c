// fuzz: one bank, 64 distinct reads a cycle (a_buf[j][k] and a_buf[i][k] meet at i == j):
// proving the least II walked cliques for minutes once; now about a second (N = 2:
#define N 2 // at N = 1 loops of one trip are straight code, i = j = 0, one read)
#define M 32

void syr2k(float alpha, float beta, float C[N][N], float A[N][M], float B[N][M])
{
    float a_buf[N][M];
    float b_buf[N][M];
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < M; k++) {
#pragma HLS pipeline II=1
            a_buf[i][k] = A[i][k];
            b_buf[i][k] = B[i][k];
        }
    }
    for (int i = 0; i < N; i++) {
        for (int j = 0; j <= i; j++) {
#pragma HLS pipeline II=1
            float acc = beta * C[i][j];
            for (int k = 0; k < M; k++) {
                acc += alpha * (a_buf[j][k] * b_buf[i][k] + b_buf[j][k] * a_buf[i][k]);
            }
            C[i][j] = acc;
        }
    }
}
