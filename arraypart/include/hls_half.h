// arraypart stand-in for Vitis HLS hls_half.h (our own code): the 16-bit IEEE half type,
// as the compiler's own _Float16 where it has one (g++ 12 and clang on x86-64), else as
// float (arithmetic then rounds less often than Vitis's half does).
#ifndef ARRAYPART_HLS_HALF_H
#define ARRAYPART_HLS_HALF_H

#include "arraypart_save_min_max.inc"
#include <cmath>
#include <cstdint>  // Vitis's headers bring the fixed-width types in
#include "arraypart_restore_min_max.inc"

#ifdef __FLT16_MAX__
typedef _Float16 half;
#else
typedef float half;
#endif

#endif  // ARRAYPART_HLS_HALF_H
