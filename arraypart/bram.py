"""Block RAM arithmetic shared by the banking search and the RTL model: which banks are
block RAM, and how many 18Kb blocks a bank of a given depth and width needs at best."""

from __future__ import annotations

from math import ceil

# 18Kb BRAM aspect ratios (depth, width) of Xilinx 7-series/UltraScale RAMB18.
BRAM18K_ASPECTS = ((16384, 1), (8192, 2), (4096, 4), (2048, 9), (1024, 18), (512, 36))
# Vivado infers distributed RAM / registers, not BRAM, for memories this small
# (a 64x16 bank is a handful of LUTRAM cells); such banks cost no BRAM.
LUTRAM_BITS = 1024


def bram18k(bank_depth: int, elem_bits: int, banks: int, copies: int) -> int:
    """Σ over banks and copies of min over aspects of ceil(d/depth)·ceil(w/width)."""
    if bank_depth * elem_bits <= LUTRAM_BITS:
        return 0
    per_bank = min(ceil(bank_depth / depth) * ceil(elem_bits / width)
                   for depth, width in BRAM18K_ASPECTS)
    return per_bank * banks * copies
