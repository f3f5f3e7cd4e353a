"""The RTL model of one banked array: its lanes, banks and the selects between them.

A :class:`Memory` is what the Verilog (:mod:`.verilog`), the simulation (:mod:`.sim`)
and the cost model (:mod:`.cost`) read.  It mirrors the bank-centric emission
(DESIGN §2): every concurrent loop that touches the array (a cycle group) drives the
same banks, one loop at a time.

- A *lane* is one distinct access of a cycle group (reads of one index by one copy
  merge: a broadcast).  Its element index ``x_d`` is the group's index expression over
  the loop iterators (module inputs ``g<n>_<var>``), or an input ``g<n>_a<p>_x<d>`` where
  the index is irregular.  Its bank and offset are the scheme's formulas of ``x``
  (:meth:`arraypart.scheme.Scheme.bank_expr`); a lane whose bank simplifies to a
  constant is *static* and reaches one bank, otherwise it reaches the banks in its
  bank formula's interval (:func:`arraypart.expr.bounds`).
- Each bank of each copy has the ports of the array's port model (:data:`PORT_ROLES`);
  per bank, every port is fed by the lanes that reach the bank: the first port by the
  first requesting lane (a priority select) when a later port could serve it too, the
  last by the OR of the remaining requests (a conflict-free cycle has one address
  left).  Reads of the address a port already reads share it; read data returns to
  each lane through a select registered with the request (reads take one cycle).
- Writes go to every copy; a read lane reads the copy of its reference in that lane
  (:meth:`arraypart.scheme.Banking.copy_of` at its unrolled iterator values).
"""

from __future__ import annotations

import re

from dataclasses import dataclass
from functools import lru_cache

import islpy as isl
import numpy as np

from .. import expr as E
from ..bram import ram_style
from ..poly import isl_glue as G
from ..poly.model import ArrayModel, CycleGroup
from ..scheme import DIM_TYPES, Banking, index_var

#: Port roles per port model, in allocation order (r: read, w: write, rw: either).
#: ram_2p serves reads on its read-only port first, keeping the shared port for writes.
PORT_ROLES: dict[str, tuple[str, ...]] = {
    "ram_1p": ("rw",),
    "ram_2p": ("r", "rw"),
    "ram_s2p": ("w", "r"),
    "ram_t2p": ("rw", "rw"),
    "rom_1p": ("r",),
    "rom_2p": ("r", "r"),
    "rom_np": (),
    "ram_1wnr": ("w",),
}
#: Port models with, after their PORT_ROLES, one read port per reading lane that
#: reaches the bank: rom_np (an unlimited-read ROM) and ram_1wnr (a copy of the bank
#: per read port, every copy written through the one write port).
PORT_PER_READER = frozenset({"rom_np", "ram_1wnr"})
#: The range given to an iterator whose bounds are run-time parameters without a
#: LOOP_TRIPCOUNT: 16-bit counters, as HLS sizes a loop variable of unknown trip count.
UNBOUNDED_RANGE = (0, (1 << 16) - 1)


@dataclass(frozen=True, slots=True)
class Lane:
    """One distinct access: ``kind`` read or write, the element ``index`` per dimension
    (over the memory's input variables), the copies it touches, the lane accesses of
    its group it stands for (positions in ``CycleGroup.accesses``), its bank when that
    is the same in every cycle (``static_bank``) and the banks it may ``reach``."""

    group: int
    kind: str
    index: tuple[E.Expr, ...]
    copies: tuple[int, ...]
    accesses: tuple[int, ...]
    static_bank: int | None
    reach: tuple[int, ...]

    @property
    def static(self) -> bool:
        return self.static_bank is not None


@dataclass(frozen=True, slots=True)
class GroupInputs:
    """The iterator inputs of one cycle group: ``(port name, time variable)``, and per
    input the ``(s, lo)`` of :func:`time_lattices` (the port holds ``(v - lo) / s``)."""

    loop: str
    target_ii: int
    vars: tuple[tuple[str, str], ...]
    lattice: tuple[tuple[int, int], ...]

    def values(self, point: dict[str, int]) -> dict[str, int]:
        """The input ports' values at the time point ``point``."""
        return {port: (point[v] - lo) // s
                for (port, v), (s, lo) in zip(self.vars, self.lattice)}


@dataclass(frozen=True, eq=False)
class Memory:
    """An array's banks (``copies`` x ``banks`` of ``depth`` words of ``elem_bits``),
    the lanes of every loop that touches it, and the value range of every input."""

    name: str
    shape: tuple[int, ...]
    elem_bits: int
    ports: str
    banking: Banking
    groups: tuple[GroupInputs, ...]
    lanes: tuple[Lane, ...]
    ranges: dict[str, tuple[int, int]]
    bank_formula: E.Expr = E.Const(0)
    offset_formula: E.Expr = E.Const(0)
    impl: str | None = None  # the primitive bind_storage names (bram, uram, lutram)

    @property
    def banks(self) -> int:
        return self.banking.scheme.banks

    @property
    def copies(self) -> int:
        return self.banking.copies

    @property
    def depth(self) -> int:
        return self.banking.scheme.bank_depth

    @property
    def ram_style(self) -> str:
        """:func:`arraypart.bram.ram_style` of the banks (the user's ``impl`` first)."""
        return ram_style(self.depth, self.elem_bits, self.ports, self.impl)

    @property
    def writes(self) -> bool:
        return any(lane.kind == "write" for lane in self.lanes)

    def roles(self, copy: int, bank: int) -> tuple[str, ...]:
        """The bank's port roles in allocation order.  A shared port that no write
        can need (fewer writers than earlier write ports) only reads: a bank written
        through one port is a simple dual-port BRAM, half the BRAM18K of a true
        dual-port one at 36 bits."""
        cands = self.candidates(copy, bank)
        return port_roles(self.ports, *self.kinds_and_groups(cands))

    def port_lanes(self, copy: int, bank: int) -> list[list[int]]:
        """Per port of :meth:`roles`, the candidate lanes it may serve."""
        cands = self.candidates(copy, bank)
        return lanes_per_port(self.ports, cands, *self.kinds_and_groups(cands))

    def kinds_and_groups(self, lanes) -> tuple[list[str], list[int]]:
        """The kind and the cycle group of each of ``lanes`` (positions)."""
        return [self.lanes[k].kind for k in lanes], [self.lanes[k].group for k in lanes]

    def may_coincide(self, j: int, k: int) -> bool:
        """Whether lanes j and k may access one element in one cycle: not when their
        indices differ by a non-zero constant in some dimension."""
        a, b = self.lanes[j], self.lanes[k]
        if a.group != b.group:
            return False
        for e, f in zip(a.index, b.index):
            diff = E.affine_form(E.add(e, E.scale(-1, f)))
            if diff is not None and not diff[0] and diff[1] != 0:
                return False
        return True

    def candidates(self, copy: int, bank: int) -> tuple[int, ...]:
        """Lanes (by position) that may access ``bank`` of ``copy``, in lane order."""
        return tuple(k for k, lane in enumerate(self.lanes)
                     if copy in lane.copies and bank in lane.reach)

    def element_ranges(self, lane: Lane) -> dict[str, tuple[int, int]]:
        """Ranges of the scheme's index variables for ``lane``: its index intervals
        clipped to the array (accesses are in bounds)."""
        out = {}
        for d, (e, n) in enumerate(zip(lane.index, self.shape)):
            lo, hi = E.bounds(e, self.ranges)
            out[index_var(d)] = (max(lo, 0), max(min(hi, n - 1), 0))
        return out


def group_port(group: int, var: str) -> str:
    """The input carrying time variable ``var`` of group ``group``: a Verilog
    identifier, each character of ``var`` that cannot be in one written as ``__`` and
    its code in hex (a fresh size is named ``trips of loop@3:3``)."""
    return f"g{group}_" + re.sub(r"[^A-Za-z0-9_]", lambda m: f"__{ord(m.group(0)):x}", var)


def irregular_port(group: int, position: int, dim: int) -> str:
    """The input carrying dimension ``dim`` of the irregular index of lane access
    ``position`` of group ``group``."""
    return f"g{group}_a{position}_x{dim}"


def memory(array_model: ArrayModel, banking: Banking, *,
           ranges: dict[str, tuple[int, int]] | None = None) -> Memory:
    """The RTL model of ``array_model``'s array banked by ``banking``.  ``ranges``
    overrides the iterator ranges (by time variable name per group port); by default
    they come from each group's domain."""
    array, scheme = array_model.array, banking.scheme
    formulas = (scheme.bank_expr(), scheme.offset_expr())
    groups, lanes, env_ranges = [], [], {}
    for g, group in enumerate(array_model.groups):
        inputs = tuple((group_port(g, v), v) for v in group.time_vars)
        groups.append(GroupInputs(group.loop, group.target_ii, inputs, time_lattices(group)))
        for (port, v), found in zip(inputs, time_ranges(group)):
            env_ranges[port] = (ranges or {}).get(port) or found
        lanes.extend(_group_lanes(g, group, banking, env_ranges, formulas))
    mem = Memory(array.name, array.shape, array.elem_bits, array_model.ports.name, banking,
                 tuple(groups), (), env_ranges, *formulas, impl=array.storage_impl)
    resolved = []
    for lane in lanes:
        reach = _reach(lane, mem, scheme.banks)
        resolved.append(Lane(lane.group, lane.kind, lane.index, lane.copies, lane.accesses,
                             lane.static_bank, reach))
    return Memory(array.name, array.shape, array.elem_bits, array_model.ports.name, banking,
                  tuple(groups), tuple(resolved), env_ranges, *formulas, impl=array.storage_impl)


@lru_cache(maxsize=4096)
def time_ranges(group: CycleGroup) -> tuple[tuple[int, int], ...]:
    """(min, max) of each time variable's input over the group's domain: of the
    iteration counter ``(v - lo) / s`` where :func:`time_lattices` gives ``v`` a stride
    (a pure function of the group, memoised: the cost model asks for it once per
    candidate banking)."""
    return tuple(found if s == 1 else (0, (found[1] - lo) // s)
                 for found, (s, lo) in zip(_value_ranges(group), time_lattices(group)))


@lru_cache(maxsize=4096)
def time_lattices(group: CycleGroup) -> tuple[tuple[int, int], ...]:
    """``(s, lo)`` per time variable: every value of ``v`` over the domain is
    ``s*n + lo`` for an iteration counter ``n >= 0`` (``lo`` its least value), ``s``
    the largest such stride; ``(1, 0)`` where it has none.  A loop unrolled by U
    steps by U: its lanes' indices ``v + u`` are ``U*n + lo + u``, so on cyclic U
    each lane's bank is a constant, as in the emitted code and in HLS."""
    out = []
    for v, (lo, _) in zip(group.time_vars, _value_ranges(group)):
        s = G.stride(group.domain, v) if not group.domain.is_empty() else 1
        out.append((s, lo) if s > 1 else (1, 0))
    return tuple(out)


@lru_cache(maxsize=4096)
def _value_ranges(group: CycleGroup) -> tuple[tuple[int, int], ...]:
    """(min, max) of each time variable over the group's domain."""
    out = []
    for var in group.time_vars:
        try:
            found = G.value_range(G.pw_aff(E.var(var), group.domain.space), group.domain)
        except (ValueError, TypeError, isl.Error):
            found = UNBOUNDED_RANGE  # a run-time size isl cannot bound
        out.append(found if found is not None else (0, 0))
    return tuple(out)


def _group_lanes(g: int, group: CycleGroup, banking: Banking, ranges: dict[str, tuple[int, int]],
                 formulas: tuple[E.Expr, E.Expr]) -> list[Lane]:
    """The distinct accesses of ``group``; the range of every irregular index input
    goes into ``ranges``."""
    shape = banking.scheme.shape
    merged: dict[tuple, list[int]] = {}
    indexes: dict[tuple, tuple[E.Expr, ...]] = {}
    for position, (access, index) in enumerate(zip(group.accesses, renamed_indices(group, g))):
        copies = (tuple(range(banking.copies)) if access.kind == "write"
                  else (banking.copy_of(access.ref_id, access.copy_lane),))
        for d, e in enumerate(access.index):
            if e is None:
                ranges[irregular_port(g, position, d)] = (0, shape[d] - 1)
        key = (access.kind, copies, index)
        if key not in merged:
            merged[key] = []
            indexes[key] = index
        merged[key].append(position)
    return [Lane(g, key[0], indexes[key], key[1], tuple(positions),
                 static_bank(banking.scheme, indexes[key], formulas[0]), ())
            for key, positions in merged.items()]


@lru_cache(maxsize=4096)
def renamed_indices(group: CycleGroup, g: int) -> tuple[tuple[E.Expr, ...], ...]:
    """Each lane access's index over the memory's inputs (memoised: it does not
    depend on the banking)."""
    rename = {v: E.add(E.scale(s, E.var(group_port(g, v))), E.const(lo))
              for v, (s, lo) in zip(group.time_vars, time_lattices(group))}
    return tuple(tuple(E.var(irregular_port(g, position, d)) if e is None
                       else E.substitute(e, rename) for d, e in enumerate(access.index))
                 for position, access in enumerate(group.accesses))


def static_bank(scheme, index: tuple[E.Expr, ...], formula: E.Expr) -> int | None:
    """The bank of a lane whose bank does not depend on the inputs, else None.

    With affine indices ``x_d = sum k_v*v + c_d``: a per_dim dimension cyclic by f is
    static when every k is a multiple of f, a block or complete one when x_d is
    constant; a flat scheme when every coefficient of alpha·x is a multiple of N*B.
    The bank is then the formula at the constants ``c``.  Other indices:
    :func:`fold_mods` of the substituted formula."""
    forms = [E.affine_form(e) for e in index]
    if any(f is None for f in forms):
        env = {index_var(d): e for d, e in enumerate(index)}
        bank = fold_mods(E.substitute(formula, env))
        return bank.value if isinstance(bank, E.Const) else None
    if scheme.kind == "per_dim":
        for p, (coeffs, _) in zip(scheme.dims, forms):
            if p.type == "cyclic" and any(k % p.factor for k in coeffs.values()):
                return None
            if p.type in ("block", "complete") and coeffs:
                return None
    elif scheme.kind == "flat":
        period = scheme.flat_banks * scheme.block
        total: dict[str, int] = {}
        for a, (coeffs, _) in zip(scheme.alpha, forms):
            for v, k in coeffs.items():
                total[v] = total.get(v, 0) + a * k
        if any(k % period for k in total.values()):
            return None
    env = {index_var(d): c for d, (_, c) in enumerate(forms)}
    return int(E.evaluate(formula, env))


def fold_mods(e: E.Expr) -> E.Expr:
    """``e`` with every ``(sum a_v*v + c) mod m`` of an affine argument reduced to
    ``(sum (a_v mod m)*v + c mod m) mod m`` (equal on all integers), so a bank that
    does not depend on the iteration (a stride-2 lane on cyclic 2) becomes a constant.
    Only used to decide which lanes are static; the rendered formulas are unchanged."""
    if isinstance(e, E.Mod):
        arg = fold_mods(e.arg)
        form = E.affine_form(arg)
        if form is not None:
            coeffs, c = form
            arg = E.affine({v: k % e.modulus for v, k in coeffs.items()}, c % e.modulus)
        return E.mod(arg, e.modulus)
    if isinstance(e, E.Add):
        return E.add(*(fold_mods(t) for t in e.terms))
    if isinstance(e, E.Scale):
        return E.scale(e.factor, fold_mods(e.arg))
    if isinstance(e, E.FloorDiv):
        return E.floordiv(fold_mods(e.arg), e.divisor)
    return e


def _reach(lane: Lane, mem: Memory, banks: int) -> tuple[int, ...]:
    """The banks a lane may reach: its static bank; under a per_dim scheme, with an
    affine index, :func:`per_dim_reach`; else its bank formula's interval."""
    if lane.static:
        return (lane.static_bank,)
    forms = [E.affine_form(e) for e in lane.index]
    scheme = mem.banking.scheme
    if scheme.kind != "per_dim" or any(f is None for f in forms):
        lo, hi = E.bounds(mem.bank_formula, mem.element_ranges(lane))
        return tuple(range(max(lo, 0), min(hi, banks - 1) + 1))
    names = sorted({v for coeffs, _ in forms for v in coeffs})
    common = np.array([[np.gcd.reduce([coeffs.get(v, 0) for v in names] or [0])
                        for coeffs, _ in forms]], np.int64)
    bounds = np.array([list(mem.element_ranges(lane).values())], np.int64)
    _, first, last, step = per_dim_reach(*dim_table([scheme]), scheme.shape, common,
                                         np.array([[c for _, c in forms]], np.int64),
                                         bounds[:, :, 0], bounds[:, :, 1])
    return tuple(range(int(first[0, 0]), int(last[0, 0]) + 1, int(step[0, 0])))


def per_dim_reach(kinds: np.ndarray, factors: np.ndarray, shape: tuple[int, ...],
                  common: np.ndarray, const: np.ndarray, lo: np.ndarray, hi: np.ndarray
                  ) -> tuple[np.ndarray, ...]:
    """(static, first bank, last bank, step), M x lanes, of affine lanes under M
    per_dim schemes of one bank count (:func:`dim_table`); per lane and dimension
    ``common`` the gcd of its index's coefficients, ``const`` its constant, ``lo``
    and ``hi`` its element range clipped to the array.

    ``bank = sum_d bank_d * stride_d`` (row-major over the factors): a dimension
    whose ``bank_d`` never changes (cyclic f dividing ``common``; none; block or
    complete with a constant index) contributes its value at ``const``; the others
    ``x mod f`` (cyclic: ``[lo mod f, hi mod f]`` within one period, else ``[0, f)``),
    ``floor(x / s)`` (block), ``x`` (complete).  A lane is static when every dimension
    is; a dynamic lane reaches every :func:`per_dim_bank_steps`-th bank of that
    interval clipped to the banks, from its bank at ``const``."""
    m, lanes = kinds.shape[0], common.shape[0]
    banks = factors.prod(axis=1, keepdims=True)
    stride = banks
    static = np.ones((m, lanes), bool)
    bank, low, high = (np.zeros((m, lanes), np.int64) for _ in range(3))
    cyclic, block, complete = (DIM_TYPES.index(t) for t in ("cyclic", "block", "complete"))
    for d, size in enumerate(shape):
        f, kind = factors[:, d, None], kinds[:, d, None]
        stride = stride // f
        g, c, a, b = np.abs(common[None, :, d]), const[None, :, d], lo[None, :, d], hi[None, :, d]
        s = -(-size // f)
        fixed = np.where(kind == cyclic, g % f == 0, (kind == DIM_TYPES.index("none")) | (g == 0))
        within = a // f == b // f
        choices = [kind == cyclic, kind == block, kind == complete]
        at = np.select(choices, [c % f, c // s, c], 0)
        static &= fixed
        bank = bank + stride * at
        low = low + stride * np.where(fixed, at, np.select(
            choices, [np.where(within, a % f, 0), a // s, a], 0))
        high = high + stride * np.where(fixed, at, np.select(
            choices, [np.where(within, b % f, f - 1), b // s, b], 0))
    step = per_dim_bank_steps(kinds, factors, shape, common)
    first, last = on_lattice(np.maximum(low, 0), np.minimum(high, banks - 1), step, bank)
    return (static, np.where(static, bank, first), np.where(static, bank, last),
            np.where(static, 1, step))


def dim_table(schemes: list) -> tuple[np.ndarray, np.ndarray]:
    """Per_dim ``schemes`` as (kind, factor) arrays, M x dims (kind: an index of
    ``DIM_TYPES``)."""
    kinds = np.array([[DIM_TYPES.index(p.type) for p in s.dims] for s in schemes], np.int64)
    factors = np.array([[p.factor for p in s.dims] for s in schemes], np.int64)
    return kinds.reshape(len(schemes), -1), factors.reshape(len(schemes), -1)


def per_dim_bank_steps(kinds: np.ndarray, factors: np.ndarray, shape: tuple[int, ...],
                       common: np.ndarray) -> np.ndarray:
    """M x lanes: the step s of each affine lane's banks under M per_dim schemes
    (:func:`dim_table`), ``common[k, d]`` the gcd of lane k's coefficients in
    dimension d: every bank the lane reaches is congruent modulo s to its bank at the
    index constants (0: the bank never changes).

    ``bank = sum_d bank_d * stride_d`` (row-major over the factors); with
    ``x_d ≡ c_d (mod g_d)``, ``bank_d`` moves in steps of ``e_d`` = ``g_d`` (complete:
    ``bank_d = x_d``), ``gcd(g_d, f)`` (cyclic f; 0 where f divides g_d), ``g_d / s``
    where the block size s divides g_d (block, else 1), 0 (none); s is the gcd of
    ``e_d * stride_d``."""
    m = kinds.shape[0]
    g = np.abs(common)[None, :, :]
    step = np.zeros((m, common.shape[0]), np.int64)
    stride = factors.prod(axis=1, keepdims=True)
    for d, size in enumerate(shape):
        f, kind, gd = factors[:, d, None], kinds[:, d, None], g[:, :, d]
        stride = stride // f
        cyclic = np.gcd(gd, f)
        block = -(-size // f)
        moves = np.select([kind == DIM_TYPES.index("cyclic"), kind == DIM_TYPES.index("block"),
                           kind == DIM_TYPES.index("complete")],
                          [np.where(cyclic == f, 0, cyclic),
                           np.where(gd % block == 0, gd // block, 1) * (gd > 0), gd], 0)
        step = np.gcd(step, moves * stride)
    return step


def on_lattice(first, last, step, residue):
    """``[first, last]`` narrowed to its ends congruent to ``residue`` modulo ``step``
    (numbers or arrays; a step of 0 or 1 leaves it; ``first > last``: empty)."""
    s = np.maximum(step, 1)
    return first + (residue - first) % s, last - (last - residue) % s


def address_bits(mem: Memory) -> int:
    return E.range_bits(0, max(mem.depth - 1, 0))


def bank_bits(mem: Memory) -> int:
    return E.range_bits(0, max(mem.banks - 1, 0))


def stencil_memory(name: str, shape: tuple[int, ...], banking: Banking, ports: str,
                   elem_bits: int, offsets: tuple[tuple[int, ...], ...], *,
                   writes: int = 0, steps: tuple[int, ...] | None = None,
                   fill: bool = False, drain: bool = False) -> Memory:
    """A memory read by one loop nest at ``x = step * it + offset`` per lane (``it``
    the iterator vector, ``steps`` per dimension, default 1), with the first ``writes``
    offsets written instead of read: the shape of the kernels' windows and unrolled
    lanes, for sweeps and tests without a kernel.  ``fill``: a second loop writes every
    element, one a cycle (``x = it``), as a kernel fills a buffer before it reads it
    (a bank nothing writes holds constants, which synthesis folds away); ``drain``: a
    further loop reads every element, one a cycle, as a kernel copies a buffer out."""
    scheme = banking.scheme
    formulas = (scheme.bank_expr(), scheme.offset_expr())
    steps = steps or (1,) * len(shape)
    span = [max(o[d] for o in offsets) for d in range(len(shape))]
    ranges = {group_port(0, f"i{d}"): (0, max(0, (n - 1 - span[d]) // steps[d]))
              for d, n in enumerate(shape)}
    group = GroupInputs("sweep", 1, tuple((group_port(0, f"i{d}"), f"i{d}")
                                          for d in range(len(shape))),
                        ((1, 0),) * len(shape))  # the inputs are the counters
    lanes = []
    for n, offset in enumerate(offsets):
        index = tuple(E.add(E.scale(steps[d], E.var(group_port(0, f"i{d}"))), E.const(o))
                      for d, o in enumerate(offset))
        kind = "write" if n < writes else "read"
        copies = tuple(range(banking.copies)) if kind == "write" else (0,)
        lanes.append(Lane(0, kind, index, copies, (n,),
                          static_bank(scheme, index, formulas[0]), ()))
    groups = (group,)
    for kind in ("write",) * fill + ("read",) * drain:
        g = len(groups)
        groups += (GroupInputs("fill" if kind == "write" else "drain", 1,
                               tuple((group_port(g, f"i{d}"), f"i{d}")
                                     for d in range(len(shape))), ((1, 0),) * len(shape)),)
        ranges.update({group_port(g, f"i{d}"): (0, n - 1) for d, n in enumerate(shape)})
        index = tuple(E.var(group_port(g, f"i{d}")) for d in range(len(shape)))
        copies = tuple(range(banking.copies)) if kind == "write" else (0,)
        lanes.append(Lane(g, kind, index, copies, (0,),
                          static_bank(scheme, index, formulas[0]), ()))
    mem = Memory(name, tuple(shape), elem_bits, ports, banking, groups, (), ranges,
                 *formulas)
    resolved = tuple(Lane(lane.group, lane.kind, lane.index, lane.copies, lane.accesses,
                          lane.static_bank, _reach(lane, mem, scheme.banks))
                     for lane in lanes)
    return Memory(name, tuple(shape), elem_bits, ports, banking, groups, resolved, ranges,
                  *formulas)


def port_roles(ports: str, kinds: list[str], groups: list[int] | None = None
               ) -> tuple[str, ...]:
    """The port roles of a bank whose candidate lanes have ``kinds`` (read, write) and
    cycle ``groups`` (None: one group), in allocation order (:attr:`Memory.roles`).
    :data:`PORT_PER_READER` models add a read port per reader of the group with the
    most readers: groups (loops) never run in one cycle, so they share the ports."""
    writers = sum(kind == "write" for kind in kinds)
    roles, write_ports = [], 0
    for role in PORT_ROLES[ports]:
        if role == "rw" and write_ports >= max(writers, 1):
            role = "r"
        write_ports += "w" in role
        roles.append(role)
    if ports in PORT_PER_READER:
        readers = peak_readers(kinds, groups)
        roles += ["r"] * (readers if roles else max(1, readers))
    return tuple(roles)


def peak_readers(kinds: list[str], groups: list[int] | None) -> int:
    """The most reads among ``kinds`` that one cycle group has."""
    return max(map(len, _readers_by_group(kinds, groups)), default=0)


def _readers_by_group(kinds: list[str], groups: list[int] | None) -> list[list[int]]:
    """Positions of the reads in ``kinds``, one list per cycle group."""
    by_group: dict[int, list[int]] = {}
    for n, (kind, group) in enumerate(zip(kinds, groups or [0] * len(kinds))):
        if kind == "read":
            by_group.setdefault(group, []).append(n)
    return list(by_group.values())


def eligible(role: str, kind: str) -> bool:
    """Whether a port of ``role`` may serve an access of ``kind``."""
    return role == "rw" or role == kind[0]


def lanes_per_port(ports: str, cands, kinds: list[str], groups: list[int] | None = None
                   ) -> list[list[int]]:
    """Per port of :func:`port_roles`, the lanes of ``cands`` (of ``kinds``, in cycle
    ``groups``) it may serve: after the fixed ports, read port p serves the p-th reader
    of each group (:data:`PORT_PER_READER`); any eligible lane otherwise."""
    roles = port_roles(ports, kinds, groups)
    if ports not in PORT_PER_READER:
        return [[k for k, kind in zip(cands, kinds) if eligible(role, kind)]
                for role in roles]
    fixed = len(PORT_ROLES[ports])
    readers = _readers_by_group(kinds, groups)
    return ([[k for k, kind in zip(cands, kinds) if eligible(role, kind)]
             for role in roles[:fixed]]
            + [[cands[mine[p]] for mine in readers if p < len(mine)]
               for p in range(len(roles) - fixed)])


def replicas_of(ports: str, used: list[str]) -> tuple[int, list[str]]:
    """(memories, the port roles of each) a bank whose ports of ``used`` roles serve
    is built from: ram_1wnr keeps a copy per read port, each written through the one
    write port (a simple dual-port RAM); every other model is one memory."""
    if ports != "ram_1wnr":
        return 1, used
    readers = used.count("r")
    return max(1, readers), (["w"] if "w" in used else []) + (["r"] if readers else [])
