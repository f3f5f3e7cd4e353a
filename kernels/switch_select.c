// switch_select: taps that a switch picks per element, by a mode array (data dependent) and by the position (affine), in pipelined loops.
#define N 64

void switch_select(int in[N], int mode[N], int out[N], int phase[N])
{
    for (int i = 1; i < N - 1; i++) {
#pragma HLS pipeline II=1
        int v;
        switch (mode[i] & 3) {
        case 0:
            v = in[i];
            break;
        case 1:
        case 2:
            v = 2 * in[i + 1];
            break;
        default:
            v = -mode[i];
            break;
        }
        out[i] = v;
    }
    for (int i = 0; i < N - 2; i++) {
#pragma HLS pipeline II=1
        int t = 0;
        switch (i % 3) {
        case 0:
            t = in[i] + in[i + 1];
            break;
        case 1:
            t = in[i + 2];
            break;
        default:
            t = in[i];
        }
        phase[i] = t + out[i + 1];
    }
}
