// 8-dimensional arrays, an 8-deep pipelined nest
void eightd(int in[4][4][4][4][4][4][4][4], int out[4]) {
  int buf[4][4][4][4][4][4][4][4];
  for (int a = 0; a < 3; a++)
  for (int b = 0; b < 3; b++)
  for (int c = 0; c < 3; c++)
  for (int d = 0; d < 3; d++)
  for (int e = 0; e < 3; e++)
  for (int f = 0; f < 3; f++)
  for (int g = 0; g < 3; g++)
  for (int h = 0; h < 3; h++) {
#pragma HLS pipeline II=1
    buf[a][b][c][d][e][f][g][h] = in[a][b][c][d][e][f][g][h] + in[a+1][b][c][d][e][f][g][h+1];
  }
  out[0] = buf[0][0][0][0][0][0][0][0];
}
