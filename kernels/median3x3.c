// median3x3: 3x3 median filter by rank counting over a completely partitioned window (no calls, no sorting loop).
#define H 32
#define W 48
#define WIN 9
#define MID 4

void median3x3(int in[H][W], int out[H][W])
{
    int buf[H][W];
    int win[WIN];
#pragma HLS array_partition variable=win type=complete
    for (int i = 0; i < H; i++) {
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            buf[i][j] = in[i][j];
        }
    }
    for (int i = 0; i < H - 2; i++) {
        for (int j = 0; j < W - 2; j++) {
#pragma HLS pipeline II=1
            for (int di = 0; di < 3; di++) {
                for (int dj = 0; dj < 3; dj++) {
                    win[3 * di + dj] = buf[i + di][j + dj];
                }
            }
            int med = win[0];
            for (int a = 0; a < WIN; a++) {
                int less = 0;
                int not_greater = 0;
                for (int b = 0; b < WIN; b++) {
                    less += win[b] < win[a] ? 1 : 0;
                    not_greater += win[b] <= win[a] ? 1 : 0;
                }
                if (less <= MID && not_greater > MID) {
                    med = win[a];
                }
            }
            out[i + 1][j + 1] = med;
        }
    }
}
