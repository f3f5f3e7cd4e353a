// transpose: one local buffer written along rows 4-wide and read along columns 4-wide (two access patterns, one banking).
#define N 64

void transpose(float in[N][N], float out[N][N])
{
    float buf[N][N];
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=4
            buf[i][j] = in[i][j];
        }
    }
    for (int j = 0; j < N; j++) {
        for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=4
            out[j][i] = buf[i][j];
        }
    }
}
