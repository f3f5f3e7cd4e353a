// Exercises arraypart's stand-in Vitis headers (arraypart/include) under g++ -std=c++14:
// wrap-around and widening of ap_[u]int, bit and range access, wide words, fixed-point
// quantization and overflow modes, stream FIFO order, vectors, math and AXI packets.
// Prints each failed check and exits non-zero when any fails.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>

#include "ap_axi_sdata.h"
#include "ap_fixed.h"
#include "ap_int.h"
#include "hls_math.h"
#include "hls_stream.h"
#include "hls_vector.h"

static int failures = 0;
#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                          \
    }                                                                      \
  } while (0)

static void consume(hls::stream<int>& s, int* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = s.read();
}

static void integers() {
  ap_uint<8> a = 250;
  a += 10;  // wraps on assignment
  CHECK(a == 4);
  ap_int<4> b = 7;
  b++;
  CHECK(b == -8);
  ap_uint<8> c = 255;
  int widened = c + 1;  // a + b has one more bit than its widest operand
  CHECK(widened == 256);
  ap_uint<8> d = c + 1;
  CHECK(d == 0);
  ap_uint<4> e = 3;
  ap_int<8> diff = e - ap_uint<4>(5);  // unsigned minus unsigned is signed
  CHECK(diff == -2);
  ap_int<12> neg = -5;
  ap_uint<16> as_unsigned = neg;  // sign-extended, then wrapped
  CHECK(as_unsigned == 65531);
  CHECK(neg < 0 && neg.to_int() == -5 && (long long)neg == -5);
  CHECK(ap_uint<8>(-1) == 255);
  CHECK(ap_int<8>(200) == -56);
  CHECK(ap_uint<8>(3.9) == 3 && ap_int<8>(-3.9) == -3);
  CHECK(ap_int<8>(-7) / 2 == -3 && ap_int<8>(-7) % 2 == -1);  // C truncation
  // a negative divisor: its magnitude is taken at the operands' width (it was taken
  // over whole words, 10 / -2 gave 0; probe 29b)
  CHECK(ap_int<8>(10) / -2 == -5 && ap_int<8>(10) / ap_int<8>(-2) == -5);
  CHECK(ap_int<16>(-100) / -3 == 33 && ap_int<8>(10) % -3 == 1);
  CHECK(ap_int<100>(-1000) / ap_int<70>(-7) == 142 && ap_int<100>(1000) % -7 == 6);
  CHECK((ap_uint<8>(0x81) << 1) == 2);                        // shifts keep the type
  CHECK((ap_int<8>(-128) >> 1) == -64);                       // arithmetic shift
  CHECK((ap_uint<8>(0xF0) | ap_uint<8>(0x0F)) == 0xFF);
  CHECK(~ap_uint<4>(0) == 15);
  int idx[4] = {10, 20, 30, 40};
  ap_uint<2> i2 = 3;
  CHECK(idx[i2] == 40);  // usable as an array index

  ap_uint<8> bits = 0;
  bits[3] = 1;
  bits[0] = true;
  CHECK(bits == 9 && bits[3] && !bits[2]);
  bits.range(7, 4) = 0xA;
  CHECK(bits == 0xA9);
  CHECK(bits.range(7, 4) == 0xA && bits(3, 0) == 9);
  CHECK(bits.range(0, 3) == 9);  // reversed range: 1001 reads the same backwards
  CHECK(ap_uint<4>(ap_uint<8>(0x01).range(0, 3)) == 8);
  CHECK(ap_uint<8>(0xFF).and_reduce() && ap_uint<8>(1).or_reduce() &&
        ap_uint<8>(3).xor_reduce() == false);
  ap_uint<8> rev = 1;
  rev.reverse();
  CHECK(rev == 128);
  ap_uint<32> rot = 0x80000001;
  rot.rrotate(1);
  CHECK(rot == 0xC0000000u);
  rot.lrotate(4);
  CHECK(rot == 0xC);
  ap_int<8> srot = -128;
  srot.lrotate(1);
  CHECK(srot == 1);
  srot.b_not();
  CHECK(srot == -2 && srot.sign());
  srot.set(0, true);
  CHECK(srot == -1);
  CHECK(ap_uint<16>(0xBEEF).to_string(16) == "0xbeef");
  CHECK(ap_int<8>(-42).to_string() == "-42");
  std::ostringstream out;
  out << ap_int<8>(-3) << ' ' << ap_uint<8>(7);
  CHECK(out.str() == "-3 7");
}

// Concatenation (UG1399): (hi, lo) has hi in the high bits and the summed width; on
// the left of = it splits the value; a C integer counts with its own width.
static void concatenation() {
  ap_uint<32> a = 0x11111111, b = 0x22222222;
  ap_uint<64> ab = (a, b);
  CHECK(ab.to_uint64() == 0x1111111122222222ULL);
  ap_int<3> v1 = -3;
  ap_int<7> v2 = 54;
  ap_uint<10> r = (v2, v1);
  CHECK(r == 0x1B5);
  (v1, v2) = 0xAB;
  CHECK(v1 == 1 && v2 == 43);
  ap_uint<8> x = 0xAB;
  CHECK((x, 5).width == 40 && (x, 5).to_uint64() == 0xAB00000005ULL);
  CHECK((5, x).width == 40 && (5, x) == 0x5AB && (x, true) == 0x157);
  ap_uint<16> y = 0xBEEF;
  CHECK((x.range(3, 0), y.range(15, 12)) == 0xBB && (x[7], y) == 0x1BEEF);
  (x.range(3, 0), y.range(15, 12)) = 0x12;
  CHECK(x == 0xA1 && y == 0x2EEF);
  ap_uint<4> p = 1, q = 2, s = 3;
  CHECK((p, q, s) == 0x123 && (p, q) + 1 == 0x13 && ((p, q) << 4) == 0x20);
  (p, q, s) = 0x456;
  CHECK(p == 4 && q == 5 && s == 6);
  int table[256] = {0};
  table[(p, q)] = 7;  // usable as an array index
  CHECK(table[0x45] == 7);
  ap_uint<512> wide = (ap_uint<256>(1), ap_uint<256>(2));
  CHECK(wide[256] && wide[1] && wide.range(511, 257) == 0);
  ap_fixed<8, 4> fa = 1.5, fb = -0.25;  // raw bits 0x18 and 0xFC
  CHECK((fa, fb).width == 16 && (fa, fb) == 0x18FC && (fa, ap_uint<4>(5)) == 0x185);
  CHECK((ap_uint<4>(5), fa) == 0x518 && (fb, true) == 0x1F9);
}

static void wide_integers() {
  ap_uint<512> w = 0;
  w.range(95, 32) = ap_uint<64>(0x0123456789ABCDEFULL);  // crosses a 64-bit word
  CHECK(ap_uint<64>(w.range(95, 32)) == ap_uint<64>(0x0123456789ABCDEFULL));
  CHECK(w.range(31, 0) == 0);
  w[511] = 1;
  CHECK(w[511] && w.range(511, 508) == 8);
  ap_uint<32> lanes[16];
  ap_uint<512> packed = 0;
  for (int i = 0; i < 16; ++i) packed.range(32 * i + 31, 32 * i) = i * 1000;
  for (int i = 0; i < 16; ++i) lanes[i] = packed.range(32 * i + 31, 32 * i);
  CHECK(lanes[15] == 15000 && lanes[1] == 1000);
  ap_int<128> big = ap_int<128>(1) << 100;
  CHECK((big / 3).to_string() == "422550200076076467165567735125");
  CHECK(big % 3 == 1);
  ap_int<128> m = -1;
  CHECK(m * m == 1 && m < 0 && -m == 1);
  ap_uint<200> all_ones = 0;
  all_ones = ~all_ones;
  ap_uint<200> wrapped = all_ones + 1;
  CHECK(wrapped == 0);
  CHECK(all_ones > ap_uint<200>(0));
  CHECK(ap_uint<100>("0x10000000000000000") == (ap_uint<100>(1) << 64));
}

static void fixed_point() {
  ap_fixed<8, 4> f = 3.14159;  // 4 fraction bits, AP_TRN: toward minus infinity
  CHECK(f.to_double() == 3.125);
  ap_fixed<8, 4> g = -1.03;
  CHECK(g.to_double() == -1.0625);
  ap_fixed<8, 4> wrap = 9.0;  // AP_WRAP: 9 - 16
  CHECK(wrap.to_double() == -7.0);
  ap_fixed<8, 4, AP_RND, AP_SAT> sat = 9.0;  // saturates at 8 - 1/16
  CHECK(sat.to_double() == 7.9375);
  ap_fixed<8, 4, AP_RND, AP_SAT> low = -9.0;
  CHECK(low.to_double() == -8.0);
  ap_fixed<8, 4, AP_RND> rnd = 3.15;  // 50.4/16 rounds to 50/16
  CHECK(rnd.to_double() == 3.125);
  ap_fixed<8, 4, AP_RND> half = 0.03125;  // half an LSB rounds up
  CHECK(half.to_double() == 0.0625);
  ap_fixed<8, 4, AP_RND_CONV> even = 0.09375;  // 1.5 LSB rounds to even (2)
  CHECK(even.to_double() == 0.125);
  ap_fixed<8, 4, AP_TRN_ZERO> tz = -1.03;
  CHECK(tz.to_double() == -1.0);
  ap_ufixed<8, 4> u = -1.0;  // wraps into [0, 16)
  CHECK(u.to_double() == 15.0);
  ap_ufixed<8, 4, AP_TRN, AP_SAT> usat = -1.0;
  CHECK(usat.to_double() == 0.0);
  ap_fixed<16, 8> product = f * g;  // -3.3203125 exactly, then AP_TRN to 1/256
  CHECK(product.to_double() == -3.3203125);
  CHECK(f > g && f == 3.125 && g < 0);
  ap_fixed<8, 4> acc = 0;
  for (int i = 0; i < 4; ++i) acc += 0.5;
  CHECK(acc == 2);
  CHECK((f >> 1).to_double() == 1.5625);  // shifts keep the type
  CHECK(f.range(7, 0) == 0x32);            // raw bits: 3.125 * 16 = 50
  ap_fixed<8, 4> from_bits;
  from_bits.range(7, 0) = 0x18;
  CHECK(from_bits == 1.5);
  CHECK(f.to_int() == 3 && g.to_int() == -1);
  ap_int<8> whole = g;  // integer part, toward zero
  CHECK(whole == -1);
  ap_fixed<12, 6> converted = ap_fixed<6, 2>(1.75);
  CHECK(converted.to_double() == 1.75);
  float as_float = f;
  CHECK(as_float == 3.125f);
  // bitwise operators align the binary points: 0b10 ^ 0b11.01 = 0b1.01
  ap_fixed<16, 5> x = 3.25;
  ap_fixed<16, 5> flipped = 2 ^ x;
  CHECK(flipped == 1.25);
  ap_fixed<16, 5> masked = x & 3;
  CHECK(masked == 3);
  ap_fixed<16, 5> negative_masked = (ap_fixed<16, 5>)-x & 7;  // ...11100.11 & 111
  CHECK(negative_masked == 4);
  CHECK((x | ap_fixed<8, 4>(0.5)) == 3.75);
  // with a fixed-point or integer operand the result keeps Vitis' full-precision
  // format, so it shifts: (x * x) >> 1 (probe 32, F5)
  CHECK(decltype(x * x)::width == 32 && decltype(x * x)::iwidth == 10);
  CHECK(((x * x) >> 1) == 5.28125);
  CHECK(decltype(f + g)::width == 9 && decltype(f - ap_ufixed<8, 4>(1))::iwidth == 6);
  CHECK((ap_ufixed<8, 4>(3.5) - f) == 0.375 && (f - x) == -0.125);
  CHECK(decltype(f * 3)::width == 40 && f * 3 == 9.375 && f / 2 == 1.5625);
  CHECK((ap_int<8>(-3) / ap_fixed<8, 4>(3.25)) == 0 && g / 3 == -0.3125);  // toward zero
  CHECK(x * 0.5 == 1.625);  // a floating-point operand: double
  // exact on the raw bits: a wide quotient truncates (probe 32c), a product of formats
  // past AP_INT_MAX_W keeps its fraction bits (probe 32b F5), wide sums keep every bit
  ap_fixed<63, 31> dividend;
  dividend.range(62, 0) = 1152921505680605184LL;
  ap_fixed<32, 16> divisor;
  divisor.range(31, 0) = 1073741825LL;
  ap_fixed<63, 31> quotient = dividend / divisor;
  CHECK(quotient.range(62, 0).to_int64() == 70368744177664LL);
  ap_fixed<2100, 2090> half_wide = 0.5;
  ap_fixed<2100, 2090> quarter = half_wide * half_wide, sum = half_wide + half_wide * half_wide;
  CHECK(quarter == 0.25 && sum == 0.75);
  ap_fixed<130, 65> big = ap_int<65>(1) << 63;
  ap_fixed<130, 65> tiny;
  tiny.range(129, 0) = 1;  // 2^-65
  CHECK((big + tiny) - big == tiny && (big + tiny) > big && ap_int<66>(big + tiny) == (ap_int<65>(1) << 63));
  ap_fixed<8, 4, AP_RND_CONV, AP_SAT> even_sat = ap_fixed<16, 8>(7.96875);  // rounds to 8, saturates
  CHECK(even_sat.range(7, 0).to_int() == 127);
  ap_ufixed<100, 0, AP_RND, AP_SAT> saturated = 4194304.0;  // a double past 64 bits of range
  CHECK(saturated.range(99, 0) == ~ap_uint<100>(0));
}

static void streams() {
  hls::stream<int> s("s");
  s << 1;
  s.write(2);
  s.write(3);
  CHECK(s.size() == 3 && !s.empty() && !s.full());
  int first;
  s >> first;
  CHECK(first == 1 && s.read() == 2);
  int got = 0;
  CHECK(s.read_nb(got) && got == 3);
  CHECK(!s.read_nb(got) && s.empty());
  hls::stream<int, 16> deep;  // a stream with a depth binds to hls::stream<int>&
  for (int i = 0; i < 4; ++i) deep.write(10 * i);
  int out[4];
  consume(deep, out, 4);
  CHECK(out[0] == 0 && out[3] == 30);
  hls::stream<ap_uint<12>> wide;
  wide.write(4095);
  CHECK(wide.read() == 4095);
}

static void vectors_math_axis() {
  hls::vector<float, 4> v(1.0f);
  hls::vector<float, 4> w = {1.0f, 2.0f, 3.0f, 4.0f};
  hls::vector<float, 4> sum = v + w * 2.0f;
  CHECK(sum[0] == 3.0f && sum[3] == 9.0f && sum.reduce_add() == 24.0f);
  CHECK((w.reduce_max() == 4.0f && hls::vector<float, 4>::size() == 4));
  CHECK(hls::sqrt(2.0) == std::sqrt(2.0) && hls::sqrtf(4.0f) == 2.0f);
  CHECK(hls::sqrt(ap_fixed<16, 8>(2.25)) == 1.5);
  CHECK(hls::abs(ap_int<8>(-5)) == 5 && hls::fabs(-2.5) == 2.5);
  ap_axiu<64, 0, 0, 0> pkt;
  pkt.data = 0xFFFFFFFFFFFFFFFFULL;
  pkt.keep = -1;
  pkt.last = 1;
  CHECK(pkt.data.and_reduce() && pkt.keep == 255 && pkt.last == 1);
  ap_axis<32, 2, 5, 6> spkt;
  spkt.data = -1;
  spkt.user = 3;
  spkt.id = 31;
  spkt.dest = 63;
  CHECK(spkt.data == -1 && spkt.user == 3 && spkt.id == 31 && spkt.dest == 63);
  hls::axis<ap_uint<24>, 0, 0, 0> ax;
  ax.data = 5;
  ax.keep = 7;
  CHECK(ax.keep.length() == 3 && ax.keep == 7);
  hls::stream<ap_axiu<32, 0, 0, 0>> axis_stream;
  ap_axiu<32, 0, 0, 0> in;
  in.data = 42;
  in.last = 1;
  axis_stream.write(in);
  ap_axiu<32, 0, 0, 0> back = axis_stream.read();
  CHECK(back.data == 42 && back.last);
  qdma_axis<64, 0, 0, 0> q;
  q.set_data(7);
  q.keep_all();
  q.set_last(1);
  CHECK(q.get_data() == 7 && q.get_keep() == 255 && q.get_last() == 1);
  qdma_axis<32, 0, 0, 0> r(5);
  CHECK(r.get_keep() == 15 && r.get_last() == 0);
}

// Sizes and layout as in Vitis HLS's C simulation: the bytes of the width rounded up to
// 1, 2, 4 or 8, then 64-bit words; a kernel that unpacks a wide word through a pointer
// cast reads its fields there (probe 32 F4).
static void layout() {
  CHECK(sizeof(ap_uint<1>) == 1 && sizeof(ap_int<8>) == 1 && sizeof(ap_int<12>) == 2);
  CHECK(sizeof(ap_uint<16>) == 2 && sizeof(ap_int<24>) == 4 && sizeof(ap_uint<33>) == 8);
  CHECK(sizeof(ap_uint<64>) == 8 && sizeof(ap_uint<65>) == 16 && sizeof(ap_uint<512>) == 64);
  CHECK(sizeof(ap_fixed<16, 5>) == 2 && sizeof(ap_ufixed<8, 8>) == 1);
  ap_uint<512> wide = 0;
  for (int j = 0; j < 32; ++j) *((ap_fixed<16, 5>*)&wide + j) = ap_fixed<16, 5>(j * 0.25 - 3);
  CHECK(wide.range(15, 0) == 0xE800 && wide.range(511, 496) == 0x2600);  // -3 and 4.75
  double sum = 0;
  for (int j = 0; j < 32; ++j) sum += *((ap_fixed<16, 5>*)&wide + j);
  CHECK(sum == 28);
  ap_int<12> narrow = -5;
  unsigned short bytes;
  std::memcpy(&bytes, &narrow, sizeof bytes);
  CHECK(bytes == 0xFFFB);  // the bits above the width copy the sign
  bytes = 0xF00B;          // and are not read
  std::memcpy(static_cast<void*>(&narrow), &bytes, sizeof bytes);
  CHECK(narrow == 11 && narrow + 1 == 12 && !(narrow < 0));
}

int main() {
  layout();
  integers();
  concatenation();
  wide_integers();
  fixed_point();
  streams();
  vectors_math_axis();
  if (failures == 0) std::printf("all checks passed\n");
  return failures == 0 ? 0 : 1;
}
