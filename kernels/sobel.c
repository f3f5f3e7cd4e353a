// sobel: SOBEL stencil: edge enhancement, the centre pixel plus the Sobel gradient magnitude over the 3x3 box.
#define H 64
#define W 64

void sobel(float in[H][W], float out[H][W])
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
            float gx = (buf[i][j + 2] + 2.0f * buf[i + 1][j + 2] + buf[i + 2][j + 2])
                     - (buf[i][j] + 2.0f * buf[i + 1][j] + buf[i + 2][j]);
            float gy = (buf[i + 2][j] + 2.0f * buf[i + 2][j + 1] + buf[i + 2][j + 2])
                     - (buf[i][j] + 2.0f * buf[i][j + 1] + buf[i][j + 2]);
            float mag = (gx < 0.0f ? -gx : gx) + (gy < 0.0f ? -gy : gy);
            out[i][j] = buf[i + 1][j + 1] + 0.125f * mag;
        }
    }
}
