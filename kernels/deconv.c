// deconv: DECONV stencil: centre-weighted cross (0,1)(1,0)(1,1)(1,2)(2,1), a deconvolution step.
#define H 64
#define W 64

void deconv(float in[H][W], float out[H][W])
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
            out[i][j] = 2.0f * buf[i + 1][j + 1]
                       - 0.25f * (buf[i][j + 1] + buf[i + 1][j]
                                  + buf[i + 1][j + 2] + buf[i + 2][j + 1]);
        }
    }
}
