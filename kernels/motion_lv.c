// motion_lv: MOTION_LV stencil: 6-tap vertical filter (a,0), a < 6, as in motion-compensation interpolation.
#define H 64
#define W 64

void motion_lv(float in[H][W], float out[H][W])
{
    float buf[H][W];
#pragma HLS bind_storage variable=buf type=ram_1p
    for (int i = 0; i < H; i++) {
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            buf[i][j] = in[i][j];
        }
    }
    for (int i = 0; i < H - 5; i++) {
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            out[i][j] = (buf[i][j] - 5.0f * buf[i + 1][j] + 20.0f * buf[i + 2][j]
                         + 20.0f * buf[i + 3][j] - 5.0f * buf[i + 4][j] + buf[i + 5][j]) / 32.0f;
        }
    }
}
