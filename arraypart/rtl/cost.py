"""``estimate``: LUT/FF/BRAM18K/DSP of a banked memory without synthesis, from a fitted model.

Cost: :func:`estimate` evaluates the features in closed form (:mod:`.closed`: no RTL
model is built, the coefficients are read once), about a tenth of a millisecond to a
millisecond per banking on a 2-core machine, memoised per banking; the search prices
flat candidates of one family in one numpy batch (:func:`flat_floors`).
:func:`estimate_memory` prices a built RTL model (the reference the closed form
equals).

LUTs and flip-flops are linear in interpretable features of the RTL model
(:mod:`.model`), each counting the bits of one kind of logic that
:mod:`.verilog` emits; the coefficients (``cost_model.json``) are fitted by
non-negative least squares to yosys syntheses of a sweep of design points
(``bench/rtl_sweep.py``, which also records the error on held-out points):

    rb_mux     sum over read lanes of (sources - 1) * width: the read-data select
               (sources = banks it reaches x ports that may serve it; a register
               bank of one word is one source whatever its ports: they read the
               same flip-flops, which synthesis merges)
    rb_sel     sum over read lanes with several sources of the sources: the
               registered one-hot selects
    addr_mux   sum over bank ports of (lanes driving it - 1) * address bits
    din_mux    sum over write-capable bank ports of (writers - 1) * width
    request    sum over banks of dynamic candidate lanes * bank bits: the
               ``bank == b`` comparators
    priority   sum over priority-selected ports of their candidate lanes
    arith      adder bits of every lane's index, bank and offset arithmetic
    divider    adder bits of the reciprocal multiplications of non-power-of-two
               divisions and modulos
    lutram     bits of distributed-RAM banks (LUT RAM) times their read ports / 64
    regbits    bits of the banks of a written register array (fewer words than one
               LUT RAM, :attr:`.model.Memory.ram_style`): their flip-flops
    regfile    sum over those banks that some lane reads of (depth - 1) x width x
               read ports: a depth-to-one select per bit of each read port (none
               for a bank of one word)
    regwrite   sum over those banks that some lane writes of depth x width x (write
               ports - 1): each flip-flop's select between its ports' data
    regrom     sum over the register banks of more than one word of an array no lane
               writes (a table of constants) of width x read ports: one LUT per bit
               of each read port (a bank of one word is its constant)
    banks      banks x copies that some lane reaches
    const      1

With D words of W bits in B banks, a written register array costs about
``c_bits*B*D*W + c_file*(D-1)*W*sum(read ports) + c_write*D*W*sum(write ports - 1)``
LUTs besides its crossbar, a read-only one ``c_rom*W*sum(read ports)``: yosys builds
a register bank's read ports as D-to-1 selects and, with two write ports, gives each
flip-flop a select between them (``synth_xilinx -flatten`` then merges the crossbar's
selects into those per-bit selects, so this regime's error is larger: the fit records
it per regime).  Read ports are the bank's read-capable ports (one for the
port-per-reader models, whose readers the crossbar features count).

BRAM18K is counted, not fitted: per block-RAM bank, the fewest 18Kb blocks over the
aspect ratios the bank's port use allows (36-bit words only in simple dual-port or
single-port mode; a bank with two read ports or a read-write port beside another
port is true dual-port, at most 18 bits per block).  DSPs are 0: constant products
are shift-and-add (:func:`arraypart.expr.to_verilog`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from .. import expr as E
from ..bram import bram18k as blocks_of
from ..scheme import Banking
from ..poly.model import ArrayModel
from . import closed
from .closed import FEATURES, LUTRAM_PRIMITIVE_BITS, expr_bits
from .model import (PORT_PER_READER, Memory, address_bits, lanes_per_port, peak_readers,
                    port_roles)
from .synth import Resources

MODEL_PATH = Path(__file__).with_name("cost_model.json")
#: Subtracted before a floor is rounded: the same dot product summed in another order
#: may differ in the last bits.
FLOOR_SLACK = 1e-6
#: Counts below this weigh in the fit as if they were this large: a memory of a few
#: LUTs should not pull the coefficients as hard as one of thousands.
RELATIVE_FLOOR = 20.0
#: Rounds of reweighting, and the smallest relative residual a weight divides by.
IRLS_ROUNDS = 20
IRLS_MIN_RESIDUAL = 0.01


def estimate(banking: Banking, array_model: ArrayModel) -> Resources:
    """The fitted cost of ``array_model``'s array banked by ``banking``: the features
    in closed form (:mod:`.closed`, no RTL model built) dotted with the shipped
    coefficients (read once).  Memoised per banking and lane table.  A reshaped array's
    BRAM18K are counted over its wide words (``ir.Array.word_geometry``), none where
    each bank is one word (a register: :func:`arraypart.scheme.scheme_from_pragmas`)."""
    found = _estimate(banking, closed.lane_table(array_model, banking.copies,
                                                 banking.read_copy))
    array = array_model.array
    if not array.reshapes or banking.scheme.registers:  # one-word banks: registers
        return found
    # a reshaped array's banks hold wide words: its BRAM18K count those words
    words, width = array.word_geometry()
    banks = banking.scheme.banks
    return replace(found, bram18k=blocks_of(-(-words // banks), width, banks=banks,
                                            copies=banking.copies,
                                            ports=array_model.ports.name,
                                            impl=array.storage_impl))


@lru_cache(maxsize=16384)
def _estimate(banking: Banking, table: closed.LaneTable) -> Resources:
    counts = closed.bank_counts(banking.scheme, table)
    f = closed.features(banking, table, counts)
    return _resources([f[name] for name in FEATURES], closed.bram18k(banking, table, counts))


def flat_floors(table: closed.LaneTable, alphas: np.ndarray, banks: int, block: int,
                depths: np.ndarray) -> tuple[np.ndarray, ...]:
    """(BRAM18K, LUT floor, FF floor) of M flat schemes at once
    (:func:`.closed.flat_features`): the BRAM18K exactly, LUTs and FFs without the
    arithmetic features, whose coefficients are non-negative, rounded as
    :func:`estimate` rounds (rounding is monotone), so neither is above
    :func:`estimate`'s, and both equal it when the arithmetic costs nothing."""
    return _floors(*closed.flat_features(table, alphas, banks, block, depths))


def scheme_floors(table: closed.LaneTable, schemes: list) -> tuple[np.ndarray, ...]:
    """:func:`flat_floors` of any schemes with the same number of banks."""
    return _floors(*closed.batch_features(table, schemes))


def _floors(f: np.ndarray, bram: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    coef = _coefficients()
    lut = np.round(f @ coef["lut"] - FLOOR_SLACK).astype(np.int64)
    ff = np.round(f @ coef["ff"] - FLOOR_SLACK).astype(np.int64)
    return bram, np.maximum(lut, 0), np.maximum(ff, 0)


def flat_family_floors(table: closed.LaneTable, banks: int, blocks: tuple[int, ...],
                       dynamic_groups: tuple[frozenset[int], ...], varying: frozenset[int],
                       depths: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """(BRAM18K, LUT, FF) no flat scheme of the family goes below, per block
    (:func:`.closed.flat_family_features`)."""
    bram, lut, ff = _floors(*closed.flat_family_features(table, banks, blocks, dynamic_groups,
                                                          varying, depths))
    return [(int(b), int(l), int(f)) for b, l, f in zip(bram, lut, ff)]


def estimate_memory(mem: Memory) -> Resources:
    """The fitted cost of a built RTL model (the reference :func:`estimate` agrees
    with)."""
    return _resources(feature_vector(mem), bram18k(mem))


def _resources(vector: list[float], bram: int) -> Resources:
    """LUT = f·c_lut, FF = f·c_ff (rounded), BRAM18K counted, no DSP."""
    coef = _coefficients()
    f = np.asarray(vector, dtype=float)
    lut = int(round(float(f @ coef["lut"])))
    ff = int(round(float(f @ coef["ff"])))
    return Resources(lut, ff, bram, 0, "model")


@lru_cache(maxsize=1)
def _coefficients() -> dict[str, np.ndarray]:
    data = json.loads(MODEL_PATH.read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{MODEL_PATH.name} was fitted for other features")
    return {"lut": np.array(data["lut"]), "ff": np.array(data["ff"])}


def model_fit() -> dict:
    """The fit's record: points and median relative errors (held-out and train)."""
    return json.loads(MODEL_PATH.read_text())["fit"]


def bram18k(mem: Memory) -> int:
    if mem.ram_style != "block":
        return 0
    total = 0
    for (c, cands), count in _bank_classes(mem).items():
        kinds, groups = mem.kinds_and_groups(cands)
        reads = (peak_readers(kinds, groups) if mem.ports in PORT_PER_READER
                 else kinds.count("read"))
        total += count * closed.bank_blocks(mem.ports, reads, kinds.count("write"),
                                            mem.depth, mem.elem_bits)
    return total


def _bank_classes(mem: Memory) -> dict[tuple[int, tuple[int, ...]], int]:
    """(copy, candidate lanes) -> how many banks of that copy have those candidates
    (banks with one candidate list cost the same)."""
    per_bank: list[list[list[int]]] = [[[] for _ in range(mem.banks)]
                                       for _ in range(mem.copies)]
    for k, lane in enumerate(mem.lanes):
        for c in lane.copies:
            for b in lane.reach:
                per_bank[c][b].append(k)
    classes: dict[tuple[int, tuple[int, ...]], int] = {}
    for c, banks in enumerate(per_bank):
        for cands in banks:
            key = (c, tuple(cands))
            classes[key] = classes.get(key, 0) + 1
    return classes


def _roles(mem: Memory, cands: tuple[int, ...]) -> tuple[str, ...]:
    """:meth:`Memory.roles` for a bank with candidate lanes ``cands``."""
    return port_roles(mem.ports, *mem.kinds_and_groups(cands))


def features(mem: Memory) -> dict[str, float]:
    """The model's features of ``mem`` (see the module doc)."""
    f = dict.fromkeys(FEATURES, 0.0)
    f["const"] = 1.0
    aw, w = address_bits(mem), mem.elem_bits
    kinds = [lane.kind[0] for lane in mem.lanes]
    sources = [0] * len(mem.lanes)
    read_ports, read, extra_writes = 1, 0, 0
    one_word = mem.ram_style == "registers" and mem.depth == 1
    for (c, cands), count in _bank_classes(mem).items():
        counted: set[int] = set()
        roles = _roles(mem, cands)
        read_ports = max(read_ports, sum("r" in r for r in roles))
        if any(kinds[k] == "r" for k in cands):  # the port-per-reader models: one
            read += count * (1 if mem.ports in PORT_PER_READER else
                             sum("r" in r for r in roles))
        if any(kinds[k] == "w" for k in cands):
            extra_writes += count * max(0, sum("w" in r for r in roles) - 1)
        f["request"] += count * sum(not mem.lanes[k].static for k in cands)
        f["banks"] += count if cands else 0
        port_lanes = lanes_per_port(mem.ports, cands, *mem.kinds_and_groups(cands))
        for p, role in enumerate(roles):
            mine = port_lanes[p]
            if any(k in lanes for lanes in port_lanes[p + 1:] for k in mine):
                f["priority"] += count * len(mine)
            f["addr_mux"] += count * aw * max(0, len(mine) - 1)
            if "w" in role:
                writers = sum(kinds[k] == "w" for k in mine)
                f["din_mux"] += count * w * max(0, writers - 1)
            if "r" in role:
                for k in mine:
                    if kinds[k] == "r" and not (one_word and k in counted):
                        sources[k] += count
                        counted.add(k)
    ranges_cache: dict = {}
    for k, lane in enumerate(mem.lanes):
        if kinds[k] == "r" and sources[k] > 1:
            f["rb_mux"] += w * (sources[k] - 1)
            f["rb_sel"] += sources[k]
        adds, divs = _lane_arithmetic(mem, lane, ranges_cache)
        f["arith"] += adds
        f["divider"] += divs
    bits = mem.banks * mem.copies * mem.depth * w
    if mem.ram_style == "distributed":
        f["lutram"] = bits * read_ports / LUTRAM_PRIMITIVE_BITS
    elif mem.ram_style == "registers" and mem.writes:
        f["regbits"] = bits
        f["regfile"] = (mem.depth - 1) * w * read
        f["regwrite"] = mem.depth * w * extra_writes
    elif mem.ram_style == "registers" and mem.depth > 1:
        f["regrom"] = w * read
    return f


def feature_vector(mem: Memory) -> list[float]:
    f = features(mem)
    return [f[name] for name in FEATURES]


def _lane_arithmetic(mem: Memory, lane, cache: dict) -> tuple[int, int]:
    """Adder bits of the lane's index, bank and offset nets: (plain, dividers).  Lanes
    whose element indices have the same widths share the formulas' cost (``cache``:
    the widths, not the exact ranges, set the adders)."""
    adds = divs = 0
    for e in lane.index:
        a, d, _ = expr_bits(e, mem.ranges)
        adds, divs = adds + a, divs + d
    xr = mem.element_ranges(lane)
    key = (tuple(E.range_bits(*r) for r in xr.values()), lane.static)
    if key not in cache:
        a, d, _ = expr_bits(mem.offset_formula, xr)
        if not lane.static:
            ab, db, _ = expr_bits(mem.bank_formula, xr)
            a, d = a + ab, d + db
        cache[key] = (a, d)
    a, d = cache[key]
    return adds + a, divs + d


def nnls(a: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Non-negative coefficients minimising the sum of absolute relative errors
    ``|a@c - y| / max(y, RELATIVE_FLOOR)`` (the median's loss), by iteratively
    reweighted least squares over :func:`_nnls_weighted`."""
    scale = 1.0 / np.maximum(y, RELATIVE_FLOOR)
    coef = _nnls_weighted(a, y, scale)
    for _ in range(IRLS_ROUNDS):
        rel = np.abs(a @ coef - y) * scale
        weights = 1.0 / np.maximum(rel, IRLS_MIN_RESIDUAL)
        coef = _nnls_weighted(a, y, scale * np.sqrt(weights))
    return coef


def _nnls_weighted(a: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Least squares of ``w * (a@c - y)`` with ``c >= 0`` (active set: features whose
    coefficient comes out negative are dropped and the rest refitted)."""
    a, y = a * w[:, None], y * w
    active = np.abs(a).sum(axis=0) > 0
    coef = np.zeros(a.shape[1])
    while active.any():
        sol, *_ = np.linalg.lstsq(a[:, active], y, rcond=None)
        if (sol >= 0).all():
            coef[active] = sol
            break
        idx = np.flatnonzero(active)
        active[idx[np.argmin(sol)]] = False
    return coef
