"""Block RAM arithmetic shared by the banking search and the RTL model: which banks are
block RAM, and how many 18Kb blocks a bank of a given depth and width needs at best."""

from __future__ import annotations

from math import ceil

# 18Kb BRAM aspect ratios (depth, width) of Xilinx 7-series/UltraScale RAMB18.
BRAM18K_ASPECTS = ((16384, 1), (8192, 2), (4096, 4), (2048, 9), (1024, 18), (512, 36))
# Vivado infers distributed RAM / registers, not BRAM, for memories this small
# (a 64x16 bank is a handful of LUTRAM cells); such banks cost no BRAM.
LUTRAM_BITS = 1024
#: The shallowest distributed RAM primitive of UltraScale+ (RAM32M16: 32 words).
LUTRAM_MIN_DEPTH = 32
#: The ram_style of the banks of an array whose ``bind_storage impl=`` (or legacy
#: ``resource core=RAM_2P_BRAM`` suffix) names their primitive: Vitis builds every bank
#: as that primitive whatever its size, so the user's choice wins over the size rule.
IMPL_STYLES = {"bram": "block", "uram": "ultra", "lutram": "distributed"}
#: Port models that only block RAM or UltraRAM build (UG1399, bind_storage's table of
#: type and impl: RAM_T2P has no LUTRAM, a LUT RAM has one write port), so their banks
#: are block RAM whatever their size unless ``impl`` names UltraRAM; a bank of one word
#: (a complete partition) stays a register, which no port model binds.
BLOCK_ONLY_PORTS = frozenset({"ram_t2p"})


def ram_style(depth: int, elem_bits: int, ports: str, impl: str | None = None) -> str:
    """The ram_style Vitis builds banks ``depth`` words of ``elem_bits`` deep with the
    port model named ``ports`` in: the one ``impl`` names (:data:`IMPL_STYLES`), else
    block RAM above :data:`LUTRAM_BITS` or for :data:`BLOCK_ONLY_PORTS` deeper than one
    word, distributed RAM from :data:`LUTRAM_MIN_DEPTH` words, registers below."""
    if impl in IMPL_STYLES:
        return IMPL_STYLES[impl]
    if (ports in BLOCK_ONLY_PORTS and depth > 1) or depth * elem_bits > LUTRAM_BITS:
        return "block"
    return "distributed" if depth >= LUTRAM_MIN_DEPTH else "registers"


def bram18k(bank_depth: int, elem_bits: int, banks: int, copies: int, ports: str,
            impl: str | None = None) -> int:
    """Σ over banks and copies of min over aspects of ceil(d/depth)·ceil(w/width); 0
    when the banks are no block RAM (:func:`ram_style`)."""
    if ram_style(bank_depth, elem_bits, ports, impl) != "block":
        return 0
    per_bank = min(ceil(bank_depth / depth) * ceil(elem_bits / width)
                   for depth, width in BRAM18K_ASPECTS)
    return per_bank * banks * copies
