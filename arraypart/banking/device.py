"""What the target device offers the banking search: its BRAM18K count.

Every bank of an array too large for LUTRAM is at least one 18Kb block RAM, and every
read copy stores the whole array again, so the device's BRAM18K count caps both the
banks and the copies the search may propose.  Counts are the RAMB18 sites of each
device (two per RAMB36) from AMD's data sheets: DS890 (UltraScale / UltraScale+
families, including the Alveo cards' VU9P/VU13P/VU37P/VU35P dies), DS891 (Zynq
UltraScale+) and DS190 (Zynq-7000), and the BRAM_18K "available" line of Vitis HLS
synthesis reports for the Alveo parts.
"""

from __future__ import annotations

PART_BRAM18K = {
    "xcu200": 4320,    # Alveo U200 (VU9P)
    "xcu250": 5376,    # Alveo U250 (VU13P)
    "xcu280": 4032,    # Alveo U280 (VU37P)
    "xcu50": 2688,     # Alveo U50 (VU35P)
    "xcu55c": 4032,    # Alveo U55C
    "xcvu9p": 4320,
    "xcvu13p": 5376,
    "xczu9eg": 1824,   # ZCU102
    "xczu7ev": 624,    # ZCU104/ZCU106
    "xczu3eg": 432,    # Ultra96
    "xc7z020": 280,    # Zedboard, PYNQ-Z1/Z2
    "xc7z045": 1090,   # ZC706
    "xc7a100t": 270,
}
# The device assumed when no part is given: the one code generation targets by
# default (``codegen.DEFAULT_PART``, an Alveo U250).
DEFAULT_DEVICE = "xcu250"
# The search budget for a part not in the table (and the few banks past the
# subscripts' own bounding box the search still tries): the long-standing default of
# ``--max-banks``.
DEFAULT_SEARCH_BANKS = 64


def part_bram18k(part: str | None) -> int | None:
    """The BRAM18K count of ``part`` (matched by its device prefix, e.g.
    ``xcu250-figd2104-2L-e`` -> ``xcu250``), None when the part is not known."""
    if not part:
        return None
    name = part.lower()
    matches = [key for key in PART_BRAM18K if name.startswith(key)]
    return PART_BRAM18K[max(matches, key=len)] if matches else None


def bram_budget(part: str | None) -> int:
    """The BRAM18K one array may use at most: the device's (:data:`DEFAULT_DEVICE`'s
    when no part is given; :data:`DEFAULT_SEARCH_BANKS`, the long-standing bank budget,
    for a part not in the table)."""
    count = part_bram18k(part or DEFAULT_DEVICE)
    return count if count is not None else DEFAULT_SEARCH_BANKS
