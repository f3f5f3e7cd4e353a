// motion_lh: MOTION_LH stencil: 6-tap horizontal filter (0,a), a < 6, as in motion-compensation interpolation.
#define H 64
#define W 64

void motion_lh(float in[H][W], float out[H][W])
{
    float buf[H][W];
#pragma HLS bind_storage variable=buf type=ram_1p
    for (int i = 0; i < H; i++) {
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            buf[i][j] = in[i][j];
        }
    }
    for (int i = 0; i < H; i++) {
        for (int j = 0; j < W - 5; j++) {
#pragma HLS pipeline II=1
            out[i][j] = (buf[i][j] - 5.0f * buf[i][j + 1] + 20.0f * buf[i][j + 2]
                         + 20.0f * buf[i][j + 3] - 5.0f * buf[i][j + 4] + buf[i][j + 5]) / 32.0f;
        }
    }
}
