// bicg: s = A^T r and q = A p in one sweep over A, the column loop pipelined and unrolled by 6 (40 columns: a guarded remainder).
#define M 48
#define N 40

void bicg(float A[M][N], float r[M], float p[N], float s[N], float q[M])
{
    float p_buf[N];
    float s_buf[N];
    for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
        p_buf[j] = p[j];
        s_buf[j] = 0.0f;
    }
    for (int i = 0; i < M; i++) {
        float q_acc = 0.0f;
        float r_i = r[i];
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=6
            s_buf[j] += r_i * A[i][j];
            q_acc += A[i][j] * p_buf[j];
        }
        q[i] = q_acc;
    }
    for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
        s[j] = s_buf[j];
    }
}
