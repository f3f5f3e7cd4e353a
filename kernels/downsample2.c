// downsample2: 2:1 downsampling of a 64x64 image by averaging each 2x2 block (stride-2 indices).
#define H 64
#define W 64

void downsample2(float in[H][W], float out[H / 2][W / 2])
{
    float buf[H][W];
    for (int i = 0; i < H; i++) {
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            buf[i][j] = in[i][j];
        }
    }
    for (int i = 0; i < H / 2; i++) {
        for (int j = 0; j < W / 2; j++) {
#pragma HLS pipeline II=1
            out[i][j] = 0.25f * (buf[2 * i][2 * j] + buf[2 * i][2 * j + 1]
                                 + buf[2 * i + 1][2 * j] + buf[2 * i + 1][2 * j + 1]);
        }
    }
}
