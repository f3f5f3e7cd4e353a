// bilateral mutant: the row loop completely unrolled around the pipeline, 414 irregular LUT reads per cycle.
#define H 48
#define W 48
#define LUT 16
#define LUT_SHIFT 4

void bilateral(unsigned char in[H][W], unsigned char out[H][W])
{
    static const int space_w[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
    static const int range_w[LUT] = {16, 15, 13, 11, 9, 7, 5, 4, 3, 2, 2, 1, 1, 1, 1, 1};
    unsigned char buf[H][W];
    for (int i = 0; i < H; i++) {
#pragma HLS unroll factor=2
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            buf[i][j] = in[i][j];
        }
    }
    for (int i = 0; i < H - 2; i++) {
#pragma HLS unroll
        for (int j = 0; j < W - 2; j++) {
#pragma HLS pipeline II=1
            int centre = buf[i + 1][j + 1];
            int sum = 0;
            int wsum = 0;
            for (int di = 0; di < 3; di++) {
                for (int dj = 0; dj < 3; dj++) {
                    int p = buf[i + di][j + dj];
                    int diff = p > centre ? p - centre : centre - p;
                    int w = space_w[di][dj] * range_w[diff >> LUT_SHIFT];
                    sum += w * p;
                    wsum += w;
                }
            }
            out[i + 1][j + 1] = (unsigned char)(sum / wsum);
        }
    }
}
