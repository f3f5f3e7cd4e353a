// box_filter: 3x3 box average of a 64x64 image, the column loop pipelined and unrolled by 6 (a 3x8 window per cycle).
#define H 64
#define W 64

void box_filter(float in[H][W], float out[H][W])
{
    float buf[H][W];
    for (int i = 0; i < H; i++) {
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            buf[i][j] = in[i][j];
        }
    }
    for (int i = 0; i < H - 2; i++) {
        for (int j = 0; j < W - 2; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=6
            out[i + 1][j + 1] = (buf[i][j] + buf[i][j + 1] + buf[i][j + 2]
                                 + buf[i + 1][j] + buf[i + 1][j + 1] + buf[i + 1][j + 2]
                                 + buf[i + 2][j] + buf[i + 2][j + 1] + buf[i + 2][j + 2])
                                / 9.0f;
        }
    }
}
