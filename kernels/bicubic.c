// bicubic: BICUBIC stencil: interpolation from the corners (0,0)(0,2)(2,0)(2,2) of a 3x3 window.
#define H 64
#define W 64

void bicubic(float in[H][W], float out[H][W])
{
    float buf[H][W];
#pragma HLS bind_storage variable=buf type=ram_1p
    for (int i = 0; i < H; i++) {
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            buf[i][j] = in[i][j];
        }
    }
    for (int i = 0; i < H - 2; i++) {
        for (int j = 0; j < W - 2; j++) {
#pragma HLS pipeline II=1
            out[i][j] = 0.25f * (buf[i][j] + buf[i][j + 2]
                               + buf[i + 2][j] + buf[i + 2][j + 2]);
        }
    }
}
