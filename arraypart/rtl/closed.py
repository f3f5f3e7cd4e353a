"""The cost model's features in closed form: numpy over a lane table, no RTL model built.

:func:`.cost.features` reads a :class:`.model.Memory`, which takes milliseconds to
build (expression substitution and interval bounds per lane).  The banking search
ranks many candidates of one array, and all that changes between them is the scheme,
so the banking-independent part is computed once per array and copy assignment
(:func:`lane_table`, memoised) and the rest per scheme in a few array operations:

- a lane with affine index ``x_d = sum_v K[d,v]*v + c_d`` is *static* when per_dim:
  ``K[d,v] ≡ 0 (mod f_d)`` on cyclic dimensions and ``K[d,v] = 0`` on block and
  complete ones; flat: ``sum_d alpha_d*K[d,v] ≡ 0 (mod N*B)`` for every v; its bank is
  the formula at ``c`` (:func:`.model.static_bank`);
- a dynamic lane *reaches* ``[lo, hi] ∩ [0, banks)``, the interval bounds of the bank
  formula over the lane's element ranges (:func:`bounds` mirrors
  :func:`arraypart.expr.bounds` on arrays of lanes);
- per bank of each copy: ``nr``, ``nw`` read and write candidate lanes and ``nd``
  dynamic ones (``reach`` matrix products); the port roles (:data:`.model.PORT_ROLES`)
  depend on ``nw`` only, so every feature of :mod:`.cost` is a sum over banks of a
  function of ``(nr, nw)`` or over lanes of their sources ``sum_b R_b`` (R_b: the
  read-capable ports of bank b).

:func:`features` equals :func:`.cost.features` of :func:`.model.memory` on every input
(``tests/test_rtl.py`` compares them on every array of the suite and every baseline).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from math import ceil

import numpy as np

from .. import expr as E
from ..bram import BRAM18K_ASPECTS, ram_style
from ..poly.model import ArrayModel
from ..scheme import DIM_TYPES, Banking, Scheme, index_var, lane_copy
from .model import (PORT_PER_READER, PORT_ROLES, dim_table, group_port, irregular_port,
                    per_dim_reach, port_roles, renamed_indices, replicas_of, static_bank,
                    time_ranges)

FEATURES = ("rb_mux", "rb_sel", "addr_mux", "din_mux", "request", "priority", "arith",
            "divider", "lutram", "regbits", "regfile", "regwrite", "regrom", "banks", "const")
#: The features of register banks (:func:`register_features`).
REGISTER_FEATURES = ("regbits", "regfile", "regwrite", "regrom")
#: Bits per LUT RAM primitive (RAM64X1: 64 words of one bit).
LUTRAM_PRIMITIVE_BITS = 64
#: The widest word of a true dual-port RAMB18 (x18); simple dual-port reaches x36.
TDP_MAX_WIDTH = 18
#: ``DIM_TYPES`` as the numbers :func:`.model.dim_table` gives them.
NONE, CYCLIC = (DIM_TYPES.index(t) for t in ("none", "cyclic"))


@dataclass(frozen=True, eq=False)
class LaneTable:
    """An array's distinct lanes under one copy assignment (as :func:`.model.memory`
    merges them), with everything that does not depend on the scheme.

    ``group[k]``: lane k's cycle group; ``is_read[k]``; ``in_copy[k, c]``: lane k
    touches copy c; ``lo``, ``hi`` (lanes x dims): element ranges clipped to the array; ``coeffs`` (lanes x dims x inputs) and
    ``const`` (lanes x dims) of affine lanes, ``affine[k]`` whether lane k is affine;
    ``index_adds``, ``index_divs``: adder and divider bits of all lanes' index
    arithmetic; ``width_class[k]``: lanes whose element ranges have the same bit
    widths share a class, numbered in order of first appearance."""

    shape: tuple[int, ...]
    elem_bits: int
    ports: str
    copies: int
    index: tuple[tuple[E.Expr, ...], ...]
    group: np.ndarray
    is_read: np.ndarray
    in_copy: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    coeffs: np.ndarray
    const: np.ndarray
    affine: np.ndarray
    index_adds: int
    index_divs: int
    width_class: np.ndarray
    impl: str | None = None  # the primitive bind_storage names (bram, uram, lutram)


@lru_cache(maxsize=256)
def lane_table(array_model: ArrayModel, copies: int,
               read_copy: tuple[tuple[int, E.Expr], ...]) -> LaneTable:
    """The lane table of ``array_model`` with ``copies`` copies read as ``read_copy``
    says (:class:`arraypart.scheme.Banking`; a pure function of its arguments; the
    model is compared by identity): its accesses merged by (group, kind, copies,
    index), their index rows from :func:`_index_rows`."""
    rows = _index_rows(array_model.groups, tuple(array_model.array.shape))
    merged: dict[tuple, None] = {}
    for g, kind, ref_id, copy_lane, row in rows.accesses:
        lane_copies = (tuple(range(copies)) if kind == "write"
                       else (lane_copy(read_copy, ref_id, copy_lane),))
        merged.setdefault((g, kind, lane_copies, row), None)
    lanes = list(merged)
    pick = np.array([row for *_, row in lanes], np.int64)
    in_copy = np.zeros((len(lanes), copies), bool)
    classes: dict[tuple[int, ...], int] = {}
    width_class = np.zeros(len(lanes), np.int64)
    for k, (_, _, lane_copies, row) in enumerate(lanes):
        in_copy[k, list(lane_copies)] = True
        width_class[k] = classes.setdefault(rows.widths[row], len(classes))
    return LaneTable(rows.shape, array_model.array.elem_bits, array_model.ports.name,
                     copies, tuple(rows.index[row] for row in pick),
                     np.array([lane[0] for lane in lanes], np.int64),
                     np.array([lane[1] == "read" for lane in lanes], bool), in_copy,
                     rows.lo[pick], rows.hi[pick], rows.coeffs[pick], rows.const[pick],
                     rows.affine[pick], int(rows.adds[pick].sum()),
                     int(rows.divs[pick].sum()), width_class,
                     impl=array_model.array.storage_impl)


@dataclass(frozen=True, eq=False)
class _IndexRows:
    """What a lane table needs of an array's accesses whatever its copies:
    ``accesses`` as (group, kind, ref_id, copy_lane, row), where row numbers the
    distinct (group, index over the memory's inputs) pairs; per row its ``index``, its
    element ranges ``lo``, ``hi`` clipped to the array, ``coeffs`` and ``const`` of
    an affine index (``affine``), the ``adds`` and ``divs`` bits of its arithmetic
    and the bit ``widths`` of its element ranges (:class:`LaneTable`)."""

    shape: tuple[int, ...]
    accesses: tuple[tuple[int, str, int, tuple, int], ...]
    index: tuple[tuple[E.Expr, ...], ...]
    lo: np.ndarray
    hi: np.ndarray
    coeffs: np.ndarray
    const: np.ndarray
    affine: np.ndarray
    adds: np.ndarray
    divs: np.ndarray
    widths: tuple[tuple[int, ...], ...]


@lru_cache(maxsize=256)
def _index_rows(groups: tuple, shape: tuple[int, ...]) -> _IndexRows:
    """The :class:`_IndexRows` of the accesses of ``groups`` (compared by identity) to
    an array of ``shape``, made once: every copy assignment the search prices shares
    them (a thousand lanes' index bounds were most of a lane table's time)."""
    ranges: dict[str, tuple[int, int]] = {}
    rows: dict[tuple, int] = {}
    accesses = []
    for g, group in enumerate(groups):
        for v, found in zip(group.time_vars, time_ranges(group)):
            ranges[group_port(g, v)] = found
        for position, (access, index) in enumerate(zip(group.accesses, renamed_indices(group, g))):
            for d, e in enumerate(access.index):
                if e is None:
                    ranges[irregular_port(g, position, d)] = (0, shape[d] - 1)
            row = rows.setdefault((g, index), len(rows))
            accesses.append((g, access.kind, access.ref_id, access.copy_lane, row))
    indexes = [index for _, index in rows]
    names = sorted({v for index in indexes for e in index for v in E.variables(e)})
    column = {v: n for n, v in enumerate(names)}
    n, dims = len(indexes), len(shape)
    lo, hi = np.zeros((n, dims), np.int64), np.zeros((n, dims), np.int64)
    coeffs = np.zeros((n, dims, len(names)), np.int64)
    const = np.zeros((n, dims), np.int64)
    affine = np.ones(n, bool)
    adds, divs = np.zeros(n, np.int64), np.zeros(n, np.int64)
    widths = []
    for k, index in enumerate(indexes):
        for d, e in enumerate(index):
            a, dv, (elo, ehi) = expr_bits(e, ranges)
            adds[k], divs[k] = adds[k] + a, divs[k] + dv
            lo[k, d], hi[k, d] = max(elo, 0), max(min(ehi, shape[d] - 1), 0)
            form = E.affine_form(e)
            if form is None:
                affine[k] = False
                continue
            for v, c in form[0].items():
                coeffs[k, d, column[v]] = c
            const[k, d] = form[1]
        widths.append(tuple(E.range_bits(int(a), int(b)) for a, b in zip(lo[k], hi[k])))
    return _IndexRows(shape, tuple(accesses), tuple(indexes), lo, hi, coeffs, const, affine,
                      adds, divs, tuple(widths))


def bounds(e: E.Expr, lo: dict[str, np.ndarray], hi: dict[str, np.ndarray]
           ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`arraypart.expr.bounds` of ``e`` for every lane at once (``lo``/``hi``:
    each variable's bounds per lane)."""
    if isinstance(e, E.Const):
        return np.int64(e.value), np.int64(e.value)
    if isinstance(e, E.Var):
        return lo[e.name], hi[e.name]
    if isinstance(e, E.Add):
        parts = [bounds(t, lo, hi) for t in e.terms]
        return sum(p[0] for p in parts), sum(p[1] for p in parts)
    if isinstance(e, E.Scale):
        a, b = bounds(e.arg, lo, hi)
        return np.minimum(a * e.factor, b * e.factor), np.maximum(a * e.factor, b * e.factor)
    a, b = bounds(e.arg, lo, hi)
    if isinstance(e, E.FloorDiv):
        return a // e.divisor, b // e.divisor
    within = a // e.modulus == b // e.modulus
    return np.where(within, a % e.modulus, 0), np.where(within, b % e.modulus, e.modulus - 1)


def _static_mask(scheme: Scheme, table: LaneTable) -> np.ndarray:
    """Which affine lanes are static (the module doc's congruences)."""
    if scheme.kind == "none":
        return np.ones(len(table.is_read), bool)
    if scheme.kind == "flat":
        total = np.einsum("d,kdv->kv", np.array(scheme.alpha, np.int64), table.coeffs)
        return (total % (scheme.flat_banks * scheme.block) == 0).all(axis=1)
    return _per_dim_static(dim_table([scheme]), table)[0]


def reach(scheme: Scheme, table: LaneTable) -> tuple[np.ndarray, ...]:
    """(static, first bank, last bank, step) per lane: a static lane reaches its one
    bank, a dynamic one every ``step``-th bank from first to last (maybe none):
    :func:`.model.per_dim_reach` for affine lanes of per_dim schemes, else the bank
    formula's interval clipped to the banks, step 1."""
    if table.affine.all() and scheme.kind == "per_dim":
        return tuple(part[0] for part in _per_dim_reach([scheme], table))
    if table.affine.all() and scheme.kind == "flat":
        return tuple(part[0] for part in _flat_reach(
            table, np.array([scheme.alpha], np.int64), scheme.flat_banks, scheme.block))
    static, bank, lo, hi = _formula_reach(scheme, table)
    found = (static, np.where(static, bank, np.maximum(lo, 0)),
             np.where(static, bank, np.minimum(hi, scheme.banks - 1)), np.ones_like(bank))
    if scheme.kind != "per_dim":
        return found
    exact = tuple(part[0] for part in _per_dim_reach([scheme], table))
    return tuple(np.where(table.affine, e, f) for e, f in zip(exact, found))


def _per_dim_static(dims: tuple[np.ndarray, np.ndarray], table: LaneTable) -> np.ndarray:
    """M x lanes: affine lanes static under per_dim schemes (:func:`.model.dim_table`): every
    input coefficient a multiple of f on a cyclic dimension, 0 on a block or complete
    one."""
    kinds, factors = dims
    static = np.ones((len(kinds), len(table.is_read)), bool)
    common = np.gcd.reduce(table.coeffs, axis=2)  # f divides each coefficient iff this
    for d in range(kinds.shape[1]):
        kind = kinds[:, d, None]
        static &= np.where(kind == CYCLIC, common[None, :, d] % factors[:, d, None] == 0,
                           (kind == NONE) | (common[None, :, d] == 0))
    return static


def _per_dim_reach(schemes: list[Scheme], table: LaneTable):
    """(static, first bank, last bank, step), M x lanes, of affine lanes under per_dim
    ``schemes`` of one bank count (:func:`.model.per_dim_reach`)."""
    return per_dim_reach(*dim_table(schemes), table.shape, np.gcd.reduce(table.coeffs, axis=2),
                         table.const, table.lo, table.hi)


def _formula_reach(scheme: Scheme, table: LaneTable):
    """Static flags, static banks and bank bounds from the bank formula itself
    (:func:`bounds`; lanes that are not affine through :func:`.model.static_bank`)."""
    bank_formula = scheme.bank_expr()
    static = _static_mask(scheme, table) & table.affine
    env = {index_var(d): table.const[:, d] for d in range(len(table.shape))}
    bank = np.broadcast_to(E.evaluate(bank_formula, env), static.shape).copy()
    for k in np.flatnonzero(~table.affine):
        found = static_bank(scheme, table.index[k], bank_formula)
        static[k] = found is not None
        bank[k] = found if found is not None else 0
    names = [index_var(d) for d in range(len(table.shape))]
    lo, hi = bounds(bank_formula, dict(zip(names, table.lo.T)), dict(zip(names, table.hi.T)))
    return static, bank, np.broadcast_to(lo, static.shape), np.broadcast_to(hi, static.shape)


def least_read_ports(ports: str) -> int:
    """The fewest read-capable ports a bank of the port model has (whatever its
    writers); ``rom_np`` and ``ram_1wnr`` serve each reader on a port of its own."""
    if ports in PORT_PER_READER:
        return 1
    return min(sum("r" in r for r in _roles(ports, writers))
               for writers in range(len(PORT_ROLES[ports]) + 1))


def _port_shares(roles, reads, writes):
    """Per port, by its role (``rw``, ``r`` or ``w``): the accesses it may serve, its
    reads, its writes (arrays shaped like ``reads``)."""
    total = [{"rw": reads + writes, "r": reads, "w": writes}[x] for x in roles]
    read = [reads if x in ("rw", "r") else 0 * reads for x in roles]
    write = [writes if x in ("rw", "w") else 0 * writes for x in roles]
    return total, read, write


def _served_later(roles, p: int, shares) -> np.ndarray:
    """Where a port after ``p`` could also serve what port ``p`` serves: its select is
    then a priority one."""
    total, read, write = shares
    later = np.zeros(total[p].shape, bool)
    for x in roles[p + 1:]:
        later |= {"rw": total[p] > 0, "r": read[p] > 0, "w": write[p] > 0}[x]
    return later


def _roles(ports: str, writers: int) -> tuple[str, ...]:
    """The fixed ports of :meth:`.model.Memory.roles` of a bank with ``writers``
    candidate writers (without the port per reader of :data:`.model.PORT_PER_READER`)."""
    return port_roles(ports, ["write"] * writers) if ports not in PORT_PER_READER else (
        PORT_ROLES[ports])


@dataclass(frozen=True, slots=True)
class BankCounts:
    """Per copy and bank: candidate reads ``nr``, writes ``nw``, dynamic lanes ``nd``,
    the most candidate reads of one cycle group ``peak``; per lane ``reached[k, c, b]``;
    the lanes' ``static`` flags."""

    nr: np.ndarray
    nw: np.ndarray
    nd: np.ndarray
    peak: np.ndarray
    reached: np.ndarray
    static: np.ndarray

    def port_readers(self, ports: str) -> np.ndarray:
        """The readers the bank's read ports are sized for: the reads of the busiest
        group where each has a port of its own (:func:`.model.port_roles`), else all
        candidate reads."""
        return self.peak if ports in PORT_PER_READER else self.nr


def bank_counts(scheme: Scheme, table: LaneTable) -> BankCounts:
    static, first, last, step = reach(scheme, table)
    b = np.arange(scheme.banks)
    hits = ((b >= first[:, None]) & (b <= last[:, None])
            & ((b - first[:, None]) % np.maximum(step, 1)[:, None] == 0))
    reached = table.in_copy[:, :, None] & hits[:, None, :]
    reads, writes = table.is_read, ~table.is_read
    nr = reached[reads].sum(0)
    peak = np.zeros_like(nr)
    for g in np.unique(table.group):
        peak = np.maximum(peak, reached[reads & (table.group == g)].sum(0))
    return BankCounts(nr, reached[writes].sum(0), reached[~static].sum(0), peak, reached,
                      static)


def features(banking: Banking, table: LaneTable,
             counts: BankCounts | None = None) -> dict[str, float]:
    """:func:`.cost.features` of the memory ``banking`` makes of ``table``'s lanes
    (``counts``: its :func:`bank_counts`, when already known)."""
    scheme, w = banking.scheme, table.elem_bits
    counts = counts or bank_counts(scheme, table)
    f = dict.fromkeys(FEATURES, 0.0)
    f["const"] = 1.0
    n = counts.nr + counts.nw
    f["request"] = float(counts.nd.sum())
    f["banks"] = float((n > 0).sum())
    depth = scheme.bank_depth
    aw = E.range_bits(0, max(depth - 1, 0))
    read_capable, read_ports = _port_features(f, table.ports, counts, aw, w)
    if table.ports in PORT_PER_READER:
        read_capable = np.ones_like(n)
        read_ports = int(max(1, counts.peak.max(initial=0)))
        f["addr_mux"] += float(aw * (counts.nr - counts.peak).sum())
    style = ram_style(depth, w, table.ports, table.impl)
    if style == "registers" and depth == 1:  # its ports read the same flip-flops
        read_capable = np.minimum(read_capable, 1)
    sources = np.einsum("kcb,cb->k", counts.reached, read_capable)
    many = table.is_read & (sources > 1)
    f["rb_mux"] = float(w * (sources[many] - 1).sum())
    f["rb_sel"] = float(sources[many].sum())
    f["arith"], f["divider"] = map(float, _arithmetic(scheme, table, counts.static))
    bits = scheme.banks * banking.copies * depth * w
    if style == "distributed":
        f["lutram"] = bits * read_ports / LUTRAM_PRIMITIVE_BITS
    elif style == "registers":
        found = register_features(table.ports, bool((~table.is_read).any()), depth, w,
                                  counts.nr, counts.nw, read_capable, bits)
        f.update({name: float(v) for name, v in zip(REGISTER_FEATURES, found)})
    return f


def register_features(ports: str, written: bool, depth, w: int, nr: np.ndarray,
                      nw: np.ndarray, read_capable: np.ndarray, bits) -> tuple:
    """(regbits, regfile, regwrite, regrom) of register banks (:mod:`.cost`'s doc)
    from per-bank candidate reads ``nr`` and writes ``nw`` and read-capable ports,
    shaped (..., copies, banks); ``depth`` and ``bits`` (all banks' bits) are scalars
    or per leading index.  A written array's banks are flip-flops; an array no lane
    writes is a table of constants, one LUT per bit of each read port that selects
    among more than one word (a bank of one word is its constant: nothing to select)."""
    read = np.where(nr > 0, read_capable, 0).sum(axis=(-2, -1))
    if not written:
        zero = 0 * read
        return zero, zero, zero, w * read * (np.asarray(depth) > 1)
    extra = np.maximum(write_ports(ports, nw) - 1, 0).sum(axis=(-2, -1))
    return bits + 0 * read, (depth - 1) * w * read, depth * w * extra, 0 * read


def write_ports(ports: str, writers: np.ndarray) -> np.ndarray:
    """Per bank with ``writers`` candidate write lanes, the ports that write it: its
    write-capable roles (:data:`.model.PORT_ROLES`), none when nothing writes it."""
    out = np.zeros(writers.shape, np.int64)
    for n in set(writers[writers > 0].ravel().tolist()):
        out[writers == n] = sum("w" in r for r in _roles(ports, int(n)))
    return out


def _port_features(f: dict, ports: str, counts: BankCounts, aw: int, w: int):
    """addr_mux, din_mux and priority summed over banks; returns each bank's
    read-capable ports and the most any bank has."""
    read_capable = np.zeros(counts.nr.shape, np.int64)
    read_ports = 1
    for writers in sorted(set(counts.nw.ravel().tolist())):
        at = counts.nw == writers
        nr, nw = counts.nr[at], counts.nw[at]
        roles = _roles(ports, int(writers))
        read_ports = max(read_ports, sum("r" in r for r in roles))
        read_capable[at] = sum("r" in r for r in roles)
        shares = _port_shares(roles, nr, nw)
        mine, _, mine_w = shares
        for p, role in enumerate(roles):
            later = _served_later(roles, p, shares)
            f["priority"] += float(mine[p][later].sum())
            f["addr_mux"] += float(aw * np.maximum(0, mine[p] - 1).sum())
            if "w" in role:
                f["din_mux"] += float(w * np.maximum(0, mine_w[p] - 1).sum())
    return read_capable, read_ports


def _arithmetic(scheme: Scheme, table: LaneTable, static: np.ndarray) -> tuple[int, int]:
    """Adder and divider bits of every lane's index, offset and (dynamic lanes) bank
    nets, as :func:`.cost._lane_arithmetic` counts them: lanes whose element ranges
    have the same widths and the same static flag cost what the first of them costs."""
    bank_formula, offset_formula = scheme.bank_expr(), scheme.offset_expr()
    first: dict[int, int] = {}
    many: dict[int, int] = {}
    for k, key in enumerate((table.width_class * 2 + static).tolist()):
        first.setdefault(key, k)
        many[key] = many.get(key, 0) + 1
    adds, divs = table.index_adds, table.index_divs
    for key, k in first.items():
        count = many[key]
        xr = tuple(zip(table.lo[k].tolist(), table.hi[k].tolist()))
        a, d = _formula_bits(offset_formula, xr)
        if not static[k]:
            ba, bd = _formula_bits(bank_formula, xr)
            a, d = a + ba, d + bd
        adds, divs = adds + count * a, divs + count * d
    return adds, divs


@lru_cache(maxsize=16384)
def _formula_bits(formula: E.Expr, xr: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """(adder, divider) bits of ``formula`` over element ranges ``xr`` (per dim)."""
    a, d, _ = expr_bits(formula, {index_var(n): r for n, r in enumerate(xr)})
    return a, d


def bram18k(banking: Banking, table: LaneTable, counts: BankCounts | None = None) -> int:
    """:func:`.cost.bram18k`: per block-RAM bank, the fewest RAMB18 over the aspect
    ratios its used ports allow (true dual-port: at most :data:`TDP_MAX_WIDTH` bits)."""
    scheme = banking.scheme
    if ram_style(scheme.bank_depth, table.elem_bits, table.ports, table.impl) != "block":
        return 0
    counts = counts or bank_counts(scheme, table)
    kinds = Counter(zip(counts.port_readers(table.ports).ravel().tolist(),
                        counts.nw.ravel().tolist()))
    depth = scheme.bank_depth
    return sum(many * bank_blocks(table.ports, nr, nw, depth, table.elem_bits)
               for (nr, nw), many in kinds.items())


@lru_cache(maxsize=4096)
def bank_blocks(ports: str, nr: int, nw: int, depth: int, width: int) -> int:
    """RAMB18 of one block-RAM bank with ``nr`` read and ``nw`` write candidates: the
    ports some candidate may use, at most one per candidate (synthesis drops the
    rest), in the memories :func:`.model.replicas_of` builds, each with the fewest
    RAMB18 over the aspect ratios its ports allow."""
    used = [r for r in port_roles(ports, ["read"] * nr + ["write"] * nw)
            if (r == "rw" and nr + nw) or (r == "r" and nr) or (r == "w" and nw)]
    replicas, used = replicas_of(ports, used[:nr + nw])
    simple = len(used) <= 1 or sorted(used) == ["r", "w"]
    return replicas * min(ceil(depth / d) * ceil(width / wd) for d, wd in BRAM18K_ASPECTS
                          if simple or wd <= TDP_MAX_WIDTH)


def expr_bits(e: E.Expr, ranges) -> tuple[int, int, tuple[int, int]]:
    """(adder bits, divider adder bits, bounds) of :func:`arraypart.expr.to_verilog`'s
    nets for ``e``, in one pass."""
    if isinstance(e, E.Const):
        return 0, 0, (e.value, e.value)
    if isinstance(e, E.Var):
        return 0, 0, ranges[e.name]
    if isinstance(e, E.Add):
        parts = [expr_bits(t, ranges) for t in e.terms]
        lo, hi = sum(p[2][0] for p in parts), sum(p[2][1] for p in parts)
        nonconst = sum(not isinstance(t, E.Const) for t in e.terms)
        adders = max(0, len(e.terms) - 1) if nonconst else 0
        return (sum(p[0] for p in parts) + E.range_bits(lo, hi) * adders,
                sum(p[1] for p in parts), (lo, hi))
    if isinstance(e, E.Scale):
        a, d, (lo, hi) = expr_bits(e.arg, ranges)
        lo, hi = sorted((lo * e.factor, hi * e.factor))
        digits = len(E._signed_digits(abs(e.factor))) + (e.factor < 0)
        return a + E.range_bits(lo, hi) * max(0, digits - 1), d, (lo, hi)
    a, d, (alo, ahi) = expr_bits(e.arg, ranges)
    div = e.divisor if isinstance(e, E.FloorDiv) else e.modulus
    if isinstance(e, E.FloorDiv):
        out = (alo // div, ahi // div)
    elif alo // div == ahi // div:
        out = (alo % div, ahi % div)
    else:
        out = (0, div - 1)
    if div & (div - 1) == 0 or ahi < div:
        return a, d, out
    arg_bits = E.range_bits(0, max(ahi, 0))
    _, m = E._reciprocal(div, max(ahi, 0))
    divider = (len(E._signed_digits(m)) - 1) * (arg_bits + m.bit_length())
    if isinstance(e, E.Mod):
        divider += arg_bits * len(E._signed_digits(div))
    return a, d + divider, out


# ---------------------------------------------------------------- flat batches


def flat_features(table: LaneTable, alphas: np.ndarray, banks: int, block: int,
                  depths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`features` (without ``arith`` and ``divider``, left 0) and
    :func:`bram18k` of M flat schemes ``floor(alpha·x / B) mod N`` at once: ``alphas``
    (M x dims), their bank ``depths`` (M).  Lane k of candidate m is static iff
    ``sum_d alpha_d*K[k,d,v] ≡ 0 (mod N*B)`` for every input v; its bank is then
    ``floor(alpha·c_k / B) mod N``, else it reaches the interval bounds of that formula
    over its element ranges.  Requires affine lanes (``table.affine.all()``)."""
    reached = _flat_reach(table, np.asarray(alphas, np.int64), banks, block)
    return _batch_features(table, *reached, banks, np.asarray(depths, np.int64))


def _flat_reach(table: LaneTable, alphas: np.ndarray, banks: int, block: int):
    """(static, first bank, last bank, step 1), M x lanes, of flat schemes with
    ``alphas``: every bank of a dynamic lane's interval (a lattice would make
    :func:`flat_family_features` no floor)."""
    modulus = banks * block
    total = np.einsum("md,kdv->mkv", alphas, table.coeffs)
    static = (total % modulus == 0).all(axis=2)
    bank = (alphas @ table.const.T // block) % banks
    low, high = alphas[:, None, :] * table.lo, alphas[:, None, :] * table.hi
    lo = np.minimum(low, high).sum(2) // block
    hi = np.maximum(low, high).sum(2) // block
    within = lo // banks == hi // banks
    first = np.where(static, bank, np.where(within, lo % banks, 0))
    last = np.where(static, bank, np.where(within, hi % banks, banks - 1))
    return static, first, last, np.ones_like(first)


def flat_family_features(table: LaneTable, banks: int, blocks: tuple[int, ...],
                         dynamic_groups: tuple[frozenset[int], ...], varying: frozenset[int],
                         depths: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Features (arithmetic and storage left 0) and BRAM18K that no flat scheme with
    N = ``banks``, B = ``blocks[m]`` and banks at least ``depths[m]`` deep goes below,
    one row per block (all rows in one batch).

    Every feature and the BRAM18K grow with the lanes a bank may serve, so leaving
    lanes out keeps a floor; kept are the lanes of ``dynamic_groups[m]`` (no alpha
    makes them static) whose element range spans at least N*B - 1 in every varying
    dimension: alpha·x then spans N*B - 1 or more (alpha != 0 only on varying
    dimensions), so the bank interval ``floor(alpha·x / B) mod N`` covers every bank.
    Storage is left out because a deeper bank may be block RAM instead of LUTs."""
    order = sorted(varying)
    span = (table.hi - table.lo)[:, order].min(axis=1) if order else np.zeros(0, np.int64)
    full = np.array([np.isin(table.group, sorted(dynamic)) & (span >= banks * block - 1)
                     for block, dynamic in zip(blocks, dynamic_groups)],
                    dtype=bool).reshape(len(blocks), len(table.group))
    first = np.where(full, 0, 1)
    last = np.where(full, banks - 1, 0)
    f, bram = _batch_features(table, np.zeros_like(first, bool), first, last,
                              np.ones_like(first), banks,
                              np.array(depths, np.int64))
    for name in ("lutram", *REGISTER_FEATURES):
        f[:, FEATURES.index(name)] = 0.0
    return f, bram


def batch_features(table: LaneTable, schemes: list[Scheme]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`flat_features` of any M schemes with the same number of banks (each
    lane's reach from :func:`reach`)."""
    if table.affine.all() and all(s.kind == "per_dim" for s in schemes):
        reached = _per_dim_reach(schemes, table)
    else:
        reached = tuple(np.stack(part) for part in zip(*(reach(s, table) for s in schemes)))
    return _batch_features(table, *reached, schemes[0].banks,
                           np.array([s.bank_depth for s in schemes], np.int64))


def _batch_features(table: LaneTable, static: np.ndarray, first: np.ndarray,
                    last: np.ndarray, step: np.ndarray, banks: int, depths: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The features (arithmetic left 0) and BRAM18K of M candidates from each lane's
    static flag, first and last bank and step (M x lanes); :func:`features` per row."""
    w = table.elem_bits
    in_copy = table.in_copy[None, :, :]
    read = table.is_read[None, :, None]
    nr = _interval_counts(first, last, in_copy & read, banks, step)
    nw = _interval_counts(first, last, in_copy & ~read, banks, step)
    nd = _interval_counts(first, last, in_copy & ~static[:, :, None], banks, step)
    n = nr + nw
    readers = nr  # what the read ports are sized for (BankCounts.port_readers)
    if table.ports in PORT_PER_READER:
        readers = np.zeros_like(nr)
        for g in np.unique(table.group):
            mine = in_copy & read & (table.group == g)[None, :, None]
            readers = np.maximum(readers, _interval_counts(first, last, mine, banks, step))
    f = np.zeros((len(depths), len(FEATURES)))
    col = {name: i for i, name in enumerate(FEATURES)}
    f[:, col["const"]] = 1.0
    f[:, col["request"]] = nd.sum((1, 2))
    f[:, col["banks"]] = (n > 0).sum((1, 2))
    aw = np.array([E.range_bits(0, max(int(d) - 1, 0)) for d in depths], np.int64)
    read_capable, read_ports = _batch_ports(f, col, table.ports, nr, nw, aw, w)
    if table.ports in PORT_PER_READER:
        read_capable = np.ones_like(n)
        read_ports = np.maximum(1, readers.max(axis=(1, 2), initial=0))
        f[:, col["addr_mux"]] += aw * (nr - readers).sum((1, 2))
    style = np.array([ram_style(int(d), w, table.ports, table.impl) for d in depths])
    one_word = ((style == "registers") & (depths == 1))[:, None, None]
    read_capable = np.where(one_word, np.minimum(read_capable, 1), read_capable)
    sources = _interval_sums(first, last, table.in_copy, read_capable, step)
    many = table.is_read[None, :] & (sources > 1)
    f[:, col["rb_mux"]] = w * np.where(many, sources - 1, 0).sum(1)
    f[:, col["rb_sel"]] = np.where(many, sources, 0).sum(1)
    bits = banks * table.copies * depths * w
    dist, regs = style == "distributed", style == "registers"
    f[dist, col["lutram"]] = bits[dist] * read_ports[dist] / LUTRAM_PRIMITIVE_BITS
    found = register_features(table.ports, bool((~table.is_read).any()), depths, w, nr, nw,
                              read_capable, bits)
    for name, v in zip(REGISTER_FEATURES, found):
        f[regs, col[name]] = np.broadcast_to(v, depths.shape)[regs]
    return f, _batch_bram(table, readers, nw, depths, style == "block")


def _interval_counts(first: np.ndarray, last: np.ndarray, weight: np.ndarray,
                     banks: int, step: np.ndarray) -> np.ndarray:
    """``out[m, c, b] = sum_k weight[m, k, c] * [b in first[m, k], first[m, k] + s, ...,
    last[m, k]]`` with ``s = step[m, k]`` (``weight`` broadcastable to (M, lanes,
    copies)), by difference arrays per step: +weight at ``first``, -weight at
    ``last + s``, a running sum over the banks of each residue modulo s; linear in
    lanes + banks where the dense (M, lanes, copies, banks) table was their product."""
    m_count, lanes = first.shape
    weight = np.broadcast_to(weight, (m_count, lanes, weight.shape[2])) \
        & (first <= last)[:, :, None]
    copies = weight.shape[2]
    step = np.maximum(np.broadcast_to(step, first.shape), 1)
    last = _last_on_lattice(first, last, step)
    counts = np.zeros((m_count, copies, banks), np.int64)
    for s in np.unique(step).tolist():
        span = -(-(banks + s) // s) * s
        row = (np.arange(m_count)[:, None, None] * copies + np.arange(copies)) * span
        size = m_count * copies * span
        weights = (weight & (step == s)[:, :, None]).ravel().astype(np.int64)
        diff = (np.bincount((row + first[:, :, None]).ravel(), weights, size)
                - np.bincount((row + last[:, :, None] + s).ravel(), weights, size))
        counts += _strided_cumsum(np.rint(diff).astype(np.int64).reshape(
            m_count, copies, span), s)[:, :, :banks]
    return counts


def _last_on_lattice(first: np.ndarray, last: np.ndarray, step: np.ndarray) -> np.ndarray:
    """The last of ``first, first + step, ...`` not above ``last`` (``last`` where
    ``first > last``: nothing is reached there)."""
    return np.where(first <= last, first + (last - first) // step * step, last)


def _strided_cumsum(values: np.ndarray, s: int) -> np.ndarray:
    """``out[..., b] = sum of values[..., j]`` over ``j <= b``, ``j ≡ b (mod s)`` (the
    last axis a multiple of s long)."""
    shape = values.shape
    return np.cumsum(values.reshape(shape[:-1] + (shape[-1] // s, s)), axis=-2).reshape(shape)


def _interval_sums(first: np.ndarray, last: np.ndarray, in_copy: np.ndarray,
                   per_bank: np.ndarray, step: np.ndarray) -> np.ndarray:
    """``out[m, k] = sum_c in_copy[k, c] * sum over b in first[m, k], first[m, k] + s,
    ..., last[m, k] of per_bank[m, c, b]`` (``s = step[m, k]``), by prefix sums over
    the banks of each residue modulo s."""
    step = np.maximum(np.broadcast_to(step, first.shape), 1)
    last = _last_on_lattice(first, last, step)
    m_count, copies, banks = per_bank.shape
    shape = first.shape + (in_copy.shape[1], 1)
    spans = np.zeros(shape[:3], np.int64)
    for s in np.unique(step).tolist():
        width = -(-banks // s) * s
        padded = np.zeros((m_count, copies, width), np.int64)
        padded[:, :, :banks] = per_bank
        prefix = _strided_cumsum(padded, s)[:, None, :, :]
        before = (prefix - padded[:, None, :, :])  # the residue's sum below b
        high = np.take_along_axis(prefix, np.broadcast_to(
            np.clip(last, 0, width - 1)[:, :, None, None], shape), axis=3)[..., 0]
        low = np.take_along_axis(before, np.broadcast_to(
            np.clip(first, 0, width - 1)[:, :, None, None], shape), axis=3)[..., 0]
        mine = ((first <= last) & (step == s))[:, :, None]
        spans = np.where(mine, high - low, spans)
    return (spans * in_copy[None, :, :]).sum(axis=2)


def _batch_ports(f: np.ndarray, col: dict, ports: str, nr: np.ndarray, nw: np.ndarray,
                 aw: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_port_features` on (M, copies, banks) counts, into the rows of ``f``."""
    read_capable = np.zeros(nr.shape, np.int64)
    read_ports = np.ones(len(nr), np.int64)
    for writers in sorted(set(nw.ravel().tolist())):
        at = nw == writers
        roles = _roles(ports, int(writers))
        capable = sum("r" in r for r in roles)
        read_capable[at] = capable
        read_ports = np.where(at.any(axis=(1, 2)), np.maximum(read_ports, capable), read_ports)
        r, wr = np.where(at, nr, 0), np.where(at, nw, 0)
        shares = _port_shares(roles, r, wr)
        mine, _, mine_w = shares
        for p, role in enumerate(roles):
            later = _served_later(roles, p, shares)
            f[:, col["priority"]] += np.where(later, mine[p], 0).sum((1, 2))
            f[:, col["addr_mux"]] += aw * np.maximum(0, mine[p] - 1).sum((1, 2))
            if "w" in role:
                f[:, col["din_mux"]] += w * np.maximum(0, mine_w[p] - 1).sum((1, 2))
    return read_capable, read_ports


def _batch_bram(table: LaneTable, nr: np.ndarray, nw: np.ndarray, depths: np.ndarray,
                block_style: np.ndarray) -> np.ndarray:
    """:func:`bram18k` per candidate: every bank's blocks by its (readers, writes)
    class (``nr``: :meth:`BankCounts.port_readers`)."""
    out = np.zeros(len(depths), np.int64)
    for m in np.flatnonzero(block_style):
        kinds = Counter(zip(nr[m].ravel().tolist(), nw[m].ravel().tolist()))
        out[m] = sum(many * bank_blocks(table.ports, a, b, int(depths[m]), table.elem_bits)
                     for (a, b), many in kinds.items())
    return out
