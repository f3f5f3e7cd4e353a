// integral_image: summed-area table; the pipelined loop reads row i-1 and writes row i of the same buffer, unrolled by 4.
#define H 48
#define W 64

void integral_image(float in[H][W], float out[H][W])
{
    float sat[H][W];
    float first = 0.0f;
    for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
        first += in[0][j];
        sat[0][j] = first;
    }
    for (int i = 1; i < H; i++) {
        float row = 0.0f;
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=4
            row += in[i][j];
            sat[i][j] = sat[i - 1][j] + row;
        }
    }
    for (int i = 0; i < H; i++) {
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            out[i][j] = sat[i][j];
        }
    }
}
