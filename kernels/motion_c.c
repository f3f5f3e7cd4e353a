// motion_c: MOTION_C stencil: bilinear average of the 2x2 window (0,0)(0,1)(1,0)(1,1).
#define H 64
#define W 64

void motion_c(float in[H][W], float out[H][W])
{
    float buf[H][W];
#pragma HLS bind_storage variable=buf type=ram_1p
    for (int i = 0; i < H; i++) {
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            buf[i][j] = in[i][j];
        }
    }
    for (int i = 0; i < H - 1; i++) {
        for (int j = 0; j < W - 1; j++) {
#pragma HLS pipeline II=1
            out[i][j] = 0.25f * (buf[i][j] + buf[i][j + 1]
                               + buf[i + 1][j] + buf[i + 1][j + 1]);
        }
    }
}
