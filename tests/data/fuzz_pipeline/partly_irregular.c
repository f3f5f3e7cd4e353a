// fuzz: a_buf[i * i][j] may hit any element under a banking that reads dimension 0 (DESIGN
// §1). The solver once proved such a banking conflict-free by keeping j; the checker did not.
// (from mvt)
#define N 48

void mvt(float A[N][N], float x1[N], float x2[N], float y1[N], float y2[N])
{
    float a_buf[N][N];
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
            a_buf[i][j] = A[i][j];
        }
    }
    for (int i = 0; i < N; i++) {
        float acc = x1[i];
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=4
            acc += a_buf[i * i][j] * y1[j];
        }
        x1[i] = acc;
    }
    for (int i = 0; i < N; i++) {
        float acc = x2[i];
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=4
            acc += a_buf[j][i] * y2[j];
        }
        x2[i] = acc;
    }
}
