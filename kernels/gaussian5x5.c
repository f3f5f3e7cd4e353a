// gaussian5x5: 5x5 Gaussian blur with weights from a const table, the 5x5 window loops fully unrolled under a pipelined column loop.
#define H 64
#define W 64
#define K 5

void gaussian5x5(float in[H][W], float out[H][W])
{
    static const float weight[K][K] = {
        {1.0f / 256, 4.0f / 256, 6.0f / 256, 4.0f / 256, 1.0f / 256},
        {4.0f / 256, 16.0f / 256, 24.0f / 256, 16.0f / 256, 4.0f / 256},
        {6.0f / 256, 24.0f / 256, 36.0f / 256, 24.0f / 256, 6.0f / 256},
        {4.0f / 256, 16.0f / 256, 24.0f / 256, 16.0f / 256, 4.0f / 256},
        {1.0f / 256, 4.0f / 256, 6.0f / 256, 4.0f / 256, 1.0f / 256},
    };
    float buf[H][W];
    for (int i = 0; i < H; i++) {
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            buf[i][j] = in[i][j];
        }
    }
    for (int i = 0; i < H - K + 1; i++) {
        for (int j = 0; j < W - K + 1; j++) {
#pragma HLS pipeline II=1
            float acc = 0.0f;
            for (int di = 0; di < K; di++) {
                for (int dj = 0; dj < K; dj++) {
                    acc += weight[di][dj] * buf[i + di][j + dj];
                }
            }
            out[i + 2][j + 2] = acc;
        }
    }
}
