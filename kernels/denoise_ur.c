// denoise_ur: DENOISE_UR stencil: 8-point window (0,1)(0,2)(1,0)(1,1)(1,2)(1,3)(2,1)(2,2), an unrolled denoise.
#define H 64
#define W 64

void denoise_ur(float in[H][W], float out[H][W])
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
        for (int j = 0; j < W - 3; j++) {
#pragma HLS pipeline II=1
            out[i][j] = 0.125f * (buf[i][j + 1] + buf[i][j + 2]
                                + buf[i + 1][j] + buf[i + 1][j + 1]
                                + buf[i + 1][j + 2] + buf[i + 1][j + 3]
                                + buf[i + 2][j + 1] + buf[i + 2][j + 2]);
        }
    }
}
