// fuzz: an unroll factor beyond the trip count on a loop around a pipelined loop.
// The 8 lanes of i run the pipelined j-loop in lockstep: 8 concurrent writes to out.
void unrolled_outer_pipeline(float in[8][8], float out[8][8])
{
    for (int i = 0; i < 8; i++) {
#pragma HLS unroll factor=33
        for (int j = 0; j < 8; j++) {
#pragma HLS pipeline II=1
            out[i][j] = in[i][j];
        }
    }
}
