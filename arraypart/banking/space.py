"""The search space, as data (Spatial style): candidate families, their floors, the cost.

Each axis is a small generator: per-dimension partitions of a bank count, blocks B,
alpha vectors, copy counts and read-to-copy assignments.  The search (:mod:`.search`)
takes their product one *tier* (banks x copies) at a time; a tier's :class:`Family`
values are visited in the order of their :class:`Cost` floor, so a family that cannot
beat what is already proven is never pre-checked.  Every function here is pure; the
few that are called again and again with the same arguments are memoised with
``lru_cache``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from functools import lru_cache, reduce
from math import gcd, isqrt, lcm, prod
from typing import Iterator

import numpy as np

from .. import expr as E
from ..poly import isl_glue as G
from ..ir import SIZE_MARK, PortModel
from ..poly.model import ArrayModel
from ..rtl.closed import lane_table
from .precheck import INFEASIBLE_II
from ..rtl.cost import estimate, flat_family_floors
from ..scheme import Banking, DimPartition, Scheme, index_var
from .groups import GroupShape, ReadRef

# Blocks B of the block-cyclic family: 1 (linear transformation) and the small powers
# of two GMP reports (B = 2 reaches the optimum of DENOISE and BICUBIC); each doubling
# of B doubles the alpha residues to pre-check, for patterns few kernels have.
FLAT_BLOCKS = (1, 2, 4)
# Up to this N*B every alpha residue is tried; above it alpha is drawn from 0, 1,
# powers of two, values up to SMALL_ALPHA and values coprime to N (Spatial's menu).
FULL_ALPHA_RANGE = 16
SMALL_ALPHA = 8

FAMILY_RANK = {"none": 0, "per_dim": 0, "flat": 1}

# Most phases (cases of one switch) the emission writes to give a pragma-only array's
# rotating banks constant values, and most copies of lanes (phases x lanes) it makes
# for one loop (:mod:`arraypart.codegen.phases`).
MAX_PHASES = 16
MAX_LANE_PHASES = 1 << 12

Assignment = tuple[tuple[int, E.Expr], ...]  # Banking.read_copy: ref_id -> copy


@dataclass(frozen=True, order=True)
class Cost:
    """Selection order (issue 14: hardware first, banks only as they cost), most
    significant first:

    - ``rule_lanes``: lanes whose bank changes with the iteration in code the emission
      keeps direct (:func:`rule_lanes`): the scheduling rule gives each a port of
      every bank, so the II the emitted code reaches is at stake;
    - ``phased_lanes``: lanes of a pragma-only array whose banks rotate with a short
      period (:func:`phased`): the emission copies their statement once per phase;
    - ``interface_ports``: banks x copies of an interface array, 0 for any other:
      each bank is a port of the IP, and a memory the caller provides (864 scalar
      ports for a 24x36 array read by 24 lanes, where 24 memories serve);
    - ``bram18k``: block RAMs of every bank and copy, counted per bank from the ports
      its lanes use (a true dual-port bank is at most 18 bits wide per RAMB18:
      :func:`arraypart.rtl.cost.bram18k`);
    - ``lut``, ``ff``: the fitted model's LUTs and flip-flops of the bank and offset
      arithmetic, the selects between lanes and banks and LUT-RAM or register banks
      (:func:`arraypart.rtl.estimate`);
    - ``physical_banks``: banks x copies;
    - ``storage_overhead``: words of all banks and copies / elements - 1;
    - ``family``: per_dim (pragmas) before flat (explicit bank arrays);
    - ``key``: the scheme's parameters, for determinism.

    Build it by keyword (:func:`cost_of`, :func:`flat_floor`).
    """

    rule_lanes: int = 0
    phased_lanes: int = 0
    interface_ports: int = 0
    bram18k: int = 0
    lut: int = 0
    ff: int = 0
    physical_banks: int = 0
    storage_overhead: float = 0.0
    family: int = 0
    key: tuple = ()


def cost_of(banking: Banking, array_model: ArrayModel, shapes: list[GroupShape]) -> Cost:
    """The cost of ``banking`` from the fitted model (memoised per banking)."""
    resources = estimate(banking, array_model)
    return replace(cost_floor(banking, array_model, shapes), bram18k=resources.bram18k,
                   lut=resources.lut, ff=resources.ff)


def cost_floor(banking: Banking, array_model: ArrayModel, shapes: list[GroupShape]) -> Cost:
    """The parts of :func:`cost_of` that need no model; BRAM18K, LUT and FF 0."""
    scheme = banking.scheme
    rule, phased_count = rule_lanes(scheme, shapes, array_model.array.pragma_only)
    return Cost(
        rule_lanes=rule,
        phased_lanes=phased_count,
        interface_ports=interface_ports(array_model, scheme.banks * banking.copies),
        physical_banks=scheme.banks * banking.copies,
        storage_overhead=round(banking.copies * (1 + scheme.storage_overhead) - 1, 9),
        family=FAMILY_RANK[scheme.kind],
        key=(tuple((p.type, p.factor) for p in scheme.dims), scheme.alpha, scheme.block,
             scheme.fence_dim))


def interface_ports(array_model: ArrayModel, physical_banks: int) -> int:
    """:attr:`Cost.interface_ports` of ``physical_banks`` banks x copies."""
    return physical_banks if array_model.array.interface else 0


def crossbar_lanes(scheme: Scheme, shapes: list[GroupShape]) -> int:
    """Lanes whose bank varies with the iteration (they need a select over banks)."""
    return sum(len(s.lanes) for s in shapes if not _static(scheme, s))


def rule_lanes(scheme: Scheme, shapes: list[GroupShape],
               pragma_only: bool) -> tuple[int, int]:
    """(rotating, phased): the lanes whose bank varies with the iteration where the
    emitted code keeps the references as written (:func:`_rotating`), split into those
    that a phase switch makes constant (:func:`phased`, a pragma-only array's) and the
    others, each of which the scheduling rule gives a port of every bank."""
    rotating = phased_count = 0
    for s in _rotating(scheme, shapes, pragma_only):
        if pragma_only and phased(scheme, s):
            phased_count += len(s.lanes)
        else:
            rotating += len(s.lanes)
    return rotating, phased_count


def phased_loops(scheme: Scheme, shapes: list[GroupShape],
                 pragma_only: bool) -> tuple[str, ...]:
    """The loops of the groups whose lanes rotate over ``scheme``'s banks where the
    emitted code keeps the references as written, and that a phase switch makes
    constant (:func:`phased`): their II holds only if the emission writes it, which
    it does in these loops only (:attr:`.solution.ArraySolution.phased_loops`)."""
    if not pragma_only:
        return ()
    return tuple(sorted({s.group.loop for s in _rotating(scheme, shapes, pragma_only)
                         if phased(scheme, s)}))


def rule_overloaded(scheme: Scheme, shapes: list[GroupShape], pragma_only: bool,
                    ports: PortModel) -> bool:
    """Some group's lanes that rotate where the emitted code keeps the references as
    written (:func:`_rotating`) are more than one bank's ports serve at the group's
    target II: under the scheduling rule each takes a port of every bank, so the loop
    misses its target (:func:`every_lane_ii`)."""
    return any(every_lane_ii(s, ports) > s.group.target_ii
               for s in _rotating(scheme, shapes, pragma_only))


def refused_switch_overloaded(scheme: Scheme, shapes: list[GroupShape],
                              pragma_only: bool, ports: PortModel) -> bool:
    """:func:`rule_overloaded` by a group whose banks repeat within a phase switch's
    reach (:func:`phases` at most :data:`MAX_PHASES`) but that gets no switch: not
    ``phasable``, the emission having written none where the search priced one (in
    a callee's text, which its calls share; around a ``continue``; in a loop with a
    data-dependent exit)."""
    return any(not s.group.phasable and phases(scheme, s) <= MAX_PHASES
               and every_lane_ii(s, ports) > s.group.target_ii
               for s in _rotating(scheme, shapes, pragma_only))


def rule_ii(scheme: Scheme, shape: GroupShape, ports: PortModel,
            pragma_only: bool = False) -> int:
    """The II the scheduling rule leaves a group under ``scheme``: its target when the
    emission routes its lanes (a group that is not ``direct`` of an array that is not
    ``pragma_only``), when every lane's bank is constant (:func:`_static`) or the banks
    are registers (no port), or, for a pragma-only array, when the banks rotate with a
    period the emission's phase switches make constant (:func:`phased`); else the
    least II at which one bank serves every lane (:func:`every_lane_ii`), each taking
    a port of every bank."""
    if not (pragma_only or shape.group.direct) or (pragma_only and phased(scheme, shape)):
        return shape.group.target_ii
    return as_written_ii(scheme, shape, ports)


def as_written_ii(scheme: Scheme, shape: GroupShape, ports: PortModel) -> int:
    """The II the scheduling rule leaves a group whose references stay as written,
    with no phase switch: its target when every lane's bank is constant or the banks
    are registers, else :func:`every_lane_ii` of each class of lanes that share the
    digits of the dimensions every lane indexes by a constant (a per_dim scheme's
    sub-arrays: ``buf[v][b][i]``, ``v`` unrolled, reaches the banks of its ``v``; as
    the checker's rule counts them, :func:`arraypart.check.ports.by_class`)."""
    if scheme.registers or _static(scheme, shape):
        return shape.group.target_ii
    return max(every_lane_ii(shape, ports, lanes) for lanes in sub_arrays(scheme, shape))


def sub_arrays(scheme: Scheme, shape: GroupShape) -> list[list[int]]:
    """The group's lanes (positions) by the digits of the partitioned dimensions that
    every lane, a lane of unrolled loops, indexes by one constant in every instance
    of its loop; one class of all
    lanes when there are none (a constant outside unrolled lanes, a geometric loop's
    copy or an inlined call's argument, may be a run-time value to the HLS tool)."""
    constant = [(d, digit) for d, _, _, digit in scheme.bank_digits()
                if all(a.lane and isinstance(a.index[d], E.Const)
                       and all(other[d] == a.index[d] for other in a.instances)
                       for a in shape.lanes)]
    classes: dict[tuple, list[int]] = {}
    for k, a in enumerate(shape.lanes):
        key = tuple(int(E.evaluate(digit, {index_var(d): a.index[d].value}))
                    for d, digit in constant)
        classes.setdefault(key, []).append(k)
    return list(classes.values())


@lru_cache(maxsize=1 << 14)
def phased(scheme: Scheme, shape: GroupShape) -> bool:
    """The emission's phase switches give every lane of a pragma-only array's group a
    constant bank (:mod:`arraypart.codegen.phases`): its banks repeat within
    :data:`MAX_PHASES` steps (:func:`phases`), and the copies of its lanes, phases x
    lanes, are at most :data:`MAX_LANE_PHASES`; never in a group that is not
    ``phasable``.  Memoised (the shape compared by identity): every search of the
    array prices the same partitions (:func:`rule_lanes` of each family's floor)."""
    if not shape.group.phasable or not instances_agree(scheme, shape):
        return False
    period = phases(scheme, shape)
    return period <= MAX_PHASES and period * len(shape.lanes) <= MAX_LANE_PHASES


def phases(scheme: Scheme, shape: GroupShape) -> float:
    """After how many combined steps of the time variables every lane's bank repeats
    under a per_dim ``scheme``: prod_t lcm F_d / gcd(a_dt * stride_t, F_d) over the
    lanes and the cyclic dimensions d (factor F_d; a_dt: the coefficient of time
    variable t in the lane's index there, one for all lanes of a uniform group:
    :func:`_steps`); infinite when the scheme is not per_dim, or a lane's index in a
    bank dimension is irregular or not affine, or moves in a block or complete
    dimension (phase switches rotate cyclic banks only), or a fresh size (a loop's
    start or bound that is not affine: :data:`arraypart.ir.SIZE_MARK`) moves a cyclic
    bank (the emission switches over iterators and the top's scalar arguments,
    ``data[8*i + offset + m]``: :class:`arraypart.codegen.phases.SizeVar`), or a
    variable that may be negative does (the switch's ``i % P`` is a floor only for
    ``i >= 0``)."""
    if scheme.kind != "per_dim":
        return float("inf")
    if shape.uniform:
        rows = [_steps(shape)]
        if any(_block_moves(scheme, shape, d, row) for d, row in enumerate(rows[0])):
            return float("inf")
    else:
        rows = [_lane_steps(scheme, shape, lane) for lane in shape.lanes]
        if any(row is None for row in rows):
            return float("inf")
    sized = [v in shape.group.sizes and SIZE_MARK in v for v in shape.group.time_vars]
    periods = [1] * len(shape.strides)
    for steps in rows:
        for p, row in zip(scheme.dims, steps):
            if p.type == "cyclic" and any(k % p.factor for k, size in zip(row, sized)
                                          if size):
                return float("inf")  # a run-time size's residue: no phase is its
            if p.type == "cyclic" and any(k % p.factor and negative for k, negative
                                          in zip(row, shape.may_be_negative)):
                return float("inf")  # C's % of a negative iterator: no case matches
            if p.type == "cyclic":
                periods = [lcm(period, p.factor // gcd(k, p.factor))
                           for period, k in zip(periods, row)]
    return prod(periods)


def _lane_steps(scheme: Scheme, shape: GroupShape, lane) -> list[list[int]] | None:
    """:func:`_steps` of one lane of a group that is not uniform, from its affine
    index; None when its index in a partitioned dimension is irregular or not
    affine, or moves in a block or complete one."""
    steps = []
    for p, index in zip(scheme.dims, lane.index):
        form = None if index is None else E.affine_form(index)
        if form is None:
            if p.type != "none":
                return None
            steps.append([0] * len(shape.strides))
            continue
        row = [form[0].get(v, 0) * stride
               for v, stride in zip(shape.group.time_vars, shape.strides)]
        if p.type in ("block", "complete") and any(row):
            return None
        steps.append(row)
    return steps


def direct_flat_rule_ii(alphas, modulus: int, shape: GroupShape, ports: PortModel):
    """:func:`rule_ii` of flat schemes ``floor(alpha·x / B) mod N`` per row of
    ``alphas`` (``modulus`` = N*B) on a ``direct`` group: a lane's bank is constant
    when alpha·step_t is a multiple of N*B for every time variable t."""
    target = shape.group.target_ii
    if not shape.group.direct:
        return np.full(len(alphas), target, dtype=np.int64)
    moves = np.asarray(alphas, np.int64) @ np.array(_steps(shape), np.int64).reshape(
        len(shape.linear), len(shape.strides))
    static = (moves % modulus == 0).all(axis=1)
    return np.where(static, target, every_lane_ii(shape, ports))


def every_lane_ii(shape: GroupShape, ports: PortModel,
                  lanes: list[int] | None = None) -> int:
    """The least II >= the group's target at which one bank serves all of its lanes
    (those at positions ``lanes``, default all) in a cycle (``INFEASIBLE_II`` when it
    writes a read-only bank): its distinct reads (by offset in a uniform group; by
    subscript in another, where an irregular read is distinct from every other) and
    its writes, those that are one write (``CycleGroup.merged_writes``) once; reads of
    one address in different epochs (``LaneAccess.epoch``) are distinct."""
    positions = [k for k in (range(len(shape.lanes)) if lanes is None else lanes)
                 if k not in shape.group.merged_writes]
    reads = [k for k in positions if shape.lanes[k].kind == "read"]
    if shape.uniform:
        distinct = len({shape.lanes[k].read_key(tuple(shape.offsets[k].tolist()))
                        for k in reads})
    else:
        lanes = [shape.lanes[k] for k in reads]
        distinct = len({a.read_key(a.index) for a in lanes if a.regular}) + sum(
            not a.regular for a in lanes)
    writes = len(positions) - len(reads)
    if writes and not ports.writable:
        return INFEASIBLE_II
    ii = shape.group.target_ii
    while not ports.fits(distinct, writes, ii):
        ii += 1
    return ii


def _rotating(scheme: Scheme, shapes: list[GroupShape],
              pragma_only: bool) -> Iterator[GroupShape]:
    """The groups whose lanes' banks vary with the iteration in code that keeps the
    references as written (every group of a pragma-only array: an interface array,
    whose signature stays, or one a sub-function's shared text touches; a ``direct``
    cycle group).  Registers (:attr:`.scheme.Scheme.registers`) take no port: none."""
    if scheme.registers:
        return
    yield from (s for s in shapes
                if (pragma_only or s.group.direct) and not _static(scheme, s))


@lru_cache(maxsize=1 << 14)
def _static(scheme: Scheme, shape: GroupShape) -> bool:
    """Every lane's bank is the same at every P (so it needs no crossbar).  The time
    variable t advances by ``stride_t`` (the domain's stride), so a coefficient k of t
    in dimension d moves the bank by k*stride_t there.  Memoised like :func:`phased`
    (:meth:`.search.Search._gate` asks it of each pending per_dim candidate for every
    flat family)."""
    if scheme.kind == "none":
        return True
    if not instances_agree(scheme, shape):
        return False
    if not shape.uniform:
        return all(_lane_static(scheme, shape, lane) for lane in shape.lanes)
    steps = _steps(shape)
    if scheme.kind == "flat":
        modulus = scheme.flat_banks * scheme.block
        return all(sum(a * row[t] for a, row in zip(scheme.alpha, steps)) % modulus == 0
                   for t in range(len(shape.strides)))
    for d, (p, row) in enumerate(zip(scheme.dims, steps)):
        if p.type == "cyclic" and any(k % p.factor for k in row):
            return False
        if _block_moves(scheme, shape, d, row):
            return False
    return True


def instances_agree(scheme: Scheme, shape: GroupShape) -> bool:
    """Every lane has one subscript, where the bank reads it, in every instance of its
    loop's text (``LaneAccess.instances``; :meth:`Scheme.same_subscript`): else the HLS
    tool, which has one piece of code for them all, sees a bank that changes at run
    time, and no phase switch (over the iterators) makes it constant."""
    return all(lane_agrees(scheme, lane) for lane in shape.instanced_lanes)


def lane_agrees(scheme: Scheme, lane) -> bool:
    """:func:`instances_agree` for one lane."""
    return scheme.same_in_every_instance(lane.index, lane.instances)


def _lane_static(scheme: Scheme, shape: GroupShape, lane) -> bool:
    """One lane of a group that is not uniform keeps its bank at every P: in each bank
    dimension its index moves by a constant per step of every time variable
    (:func:`.expr.difference`, exact through floors and mods), a multiple of the
    cyclic factor; in a block or complete dimension zero, or the index stays in one
    block over the lane's domain (:func:`_lane_in_one_block`: lane c of ``a[i]`` with
    ``i`` from ``max(t, 8c)`` to ``8c + 7`` under block 8); a flat scheme's
    ``alpha·move`` is a multiple of N*B."""
    moves = [(d, _lane_moves(shape, lane, d)) for d in scheme.bank_dims()]
    if any(None in row for _, row in moves):
        return False
    if scheme.kind == "flat":
        modulus = scheme.flat_banks * scheme.block
        return all(sum(scheme.alpha[d] * row[t] for d, row in moves) % modulus == 0
                   for t in range(len(shape.strides)))
    return all(not any(k % scheme.dims[d].factor for k in row)
               if scheme.dims[d].type == "cyclic"
               else not any(row) or _lane_in_one_block(lane, d, _block_elements(scheme, d))
               for d, row in moves)


@lru_cache(maxsize=4096)
def _lane_in_one_block(lane, d: int, block: int) -> bool:
    """The lane's index in dimension d stays in one block of ``block`` elements over
    its domain: ``floor(lo / block) = floor(hi / block)`` for the least and greatest
    values there (a lane is compared by identity: one per model; one that never runs
    stays)."""
    domain = lane.domain
    if domain.is_empty():
        return True
    f = G.pw_aff(lane.index[d], domain.space).intersect_domain(domain)
    low, high = f.min_val(), f.max_val()
    return (low.is_int() and high.is_int()
            and low.to_python() // block == high.to_python() // block)


def _block_elements(scheme: Scheme, d: int) -> int:
    """Elements per bank along dimension d of a ``block`` or ``complete`` partition."""
    p = scheme.dims[d]
    return -(-scheme.shape[d] // p.factor) if p.type == "block" else 1


def _lane_moves(shape: GroupShape, lane, d: int) -> list[int | None]:
    """Per time variable t, how far the lane's index in dimension d moves when t takes
    its next value (:func:`.expr.difference` by ``stride_t``); None where it is not one
    integer at every point (or the dimension is irregular)."""
    index = lane.index[d]
    return [None if index is None else E.difference(index, v, stride)
            for v, stride in zip(shape.group.time_vars, shape.strides)]


def static_box(shape: GroupShape, array_shape: tuple[int, ...]) -> int:
    """The most banks of a per_dim cyclic scheme under which every lane of a group
    keeps its bank: the product of :func:`static_factors` (1 without them)."""
    factors = static_factors(shape, array_shape)
    return prod(factors) if factors is not None else 1


def static_factors(shape: GroupShape, array_shape: tuple[int, ...]
                   ) -> tuple[int, ...] | None:
    """Per dimension, the largest cyclic factor under which every lane of a group
    keeps its bank (:func:`_lane_static`): the gcd of the lanes' moves per time step
    (the whole dimension when none moves there), so cyclic over it or a divisor gives
    each lane a constant bank; None when some lane's move is not one integer (a floor
    that rounds differently from step to step) or a dimension is irregular."""
    factors = []
    for d, extent in enumerate(array_shape):
        moves = [k for lane in shape.lanes for k in _lane_moves(shape, lane, d)]
        if None in moves:
            return None
        factors.append(min(extent, reduce(gcd, moves, 0) or extent))
    return tuple(factors)


def _block_moves(scheme: Scheme, shape: GroupShape, d: int, row: list[int]) -> bool:
    """Dimension d is split into blocks (``block`` or ``complete``) and some lane's
    index there leaves its block over the domain (``row``: its steps, :func:`_steps`)."""
    return scheme.dims[d].type in ("block", "complete") and any(row) and not _one_block(
        shape, d, _block_elements(scheme, d))


def _one_block(shape: GroupShape, d: int, block: int) -> bool:
    """Every lane's index in dimension d stays in one block of ``block`` elements
    over the whole domain: ``floor((lo + d_k) / block) = floor((hi + d_k) / block)``
    with ``[lo, hi]`` the range of ``L·P`` (a row read by a pipelined column loop
    under a block partition of the rows)."""
    span = shape.linear_ranges[d]
    if span is None:
        return False
    lo, hi = span
    return all((lo + int(o)) // block == (hi + int(o)) // block for o in shape.offsets[:, d])


def _steps(shape: GroupShape) -> list[list[int]]:
    """``steps[d][t]``: how far dimension d's index moves when time variable t takes
    its next value (coefficient x stride)."""
    position = {v: t for t, v in enumerate(shape.group.time_vars)}
    steps = [[0] * len(shape.strides) for _ in shape.linear]
    for d, row in enumerate(shape.linear):
        for v, k in row:
            steps[d][position[v]] = k * shape.strides[position[v]]
    return steps


# ---------------------------------------------------------------- families


@dataclass(frozen=True, slots=True)
class Family:
    """The candidates of one family with ``banks`` banks and ``copies`` copies (reads
    spread by ``assignment``), pre-checked together: for flat, every alpha with block
    ``block``; for per_dim, the one partition ``dims`` (per_dim candidates are few and
    their exact cost is cheap, so each is its own family).  ``floor``: no member costs
    less (the search proves what is already pre-checked and cheaper first);
    ``crossbar``: no member has fewer lanes whose bank changes with the iteration."""

    kind: str
    banks: int
    copies: int
    assignment: Assignment
    floor: Cost
    block: int = 1
    dims: tuple[DimPartition, ...] = ()
    crossbar: int = 0


def flat_crossbar(varying: frozenset[int], banks: int, block: int,
                  shapes: list[GroupShape]) -> int:
    """No flat scheme with N = ``banks``, B = ``block`` has fewer lanes whose bank
    changes with the iteration: the lanes of non-uniform groups and of groups where no
    alpha is static (:func:`static_alpha_exists`)."""
    order = sorted(varying)
    return sum(len(s.lanes) for s in shapes if not s.uniform or not static_alpha_exists(
        tuple(tuple(_steps(s)[d]) for d in order), banks * block))


def flat_floor(array_model: ArrayModel, varying: frozenset[int], banks: int, copies: int,
               block: int, shapes: list[GroupShape], read_copy: tuple = ()) -> Cost:
    """:func:`flat_block_floors` of one block."""
    return flat_block_floors(array_model, varying, banks, copies, (block,), shapes,
                             read_copy)[0]


def flat_block_floors(array_model: ArrayModel, varying: frozenset[int], banks: int,
                      copies: int, blocks: tuple[int, ...], shapes: list[GroupShape],
                      read_copy: tuple = ()) -> tuple[Cost, ...]:
    """Per block B of ``blocks``, a cost no flat scheme ``floor(alpha·x / B) mod N``
    (N = ``banks``) can go below (the model's floors of every block in one batch).

    Storage: the fence dimension d (alpha_d != 0, so d varies) is padded to a multiple
    of P = N*B / gcd(N*B, alpha_d) <= N*B, and the banks hold N*B*ceil(D_d/P) words per
    row of the other dimensions, at least N*B*ceil(D_d/(N*B)); BRAM18K: those words in
    banks at least that deep.  A uniform group is static only if alpha·(L·stride)_t = 0
    (mod N*B) for every time variable t with alpha != 0 on the varying dimensions
    (:func:`static_alpha_exists`); in a group where no such alpha exists every lane's
    bank changes with the iteration: where the code keeps direct references it counts
    in ``rule_lanes``, and the lanes that reach every bank set the BRAM18K (ports they
    use) and LUT floors (:func:`arraypart.rtl.cost.flat_family_floors`)."""
    shape = array_model.array.shape
    size = prod(shape)
    order = sorted(varying)
    interface = array_model.array.interface
    steps = [tuple(tuple(_steps(s)[d]) for d in order) if s.uniform else None
             for s in shapes]
    words, dynamics, rules = [], [], []
    for block in blocks:
        modulus = banks * block
        words.append(min(modulus * -(-shape[d] // modulus) * (size // shape[d])
                         for d in varying))
        dynamic = frozenset(g for g, s in enumerate(shapes)
                            if s.uniform and not static_alpha_exists(steps[g], modulus))
        dynamics.append(dynamic)
        rules.append(sum(len(s.lanes) for g, s in enumerate(shapes)
                         if (interface or s.group.direct) and (g in dynamic or not s.uniform)))
    table = lane_table(array_model, copies, read_copy)
    floors = flat_family_floors(table, banks, tuple(blocks), tuple(dynamics), varying,
                                tuple(-(-w // banks) for w in words))
    return tuple(Cost(rule_lanes=rule, bram18k=bram, lut=lut, ff=ff,
                      interface_ports=interface_ports(array_model, banks * copies),
                      physical_banks=banks * copies,
                      storage_overhead=round(copies * w / size - 1, 9),
                      family=FAMILY_RANK["flat"])
                 for rule, w, (bram, lut, ff) in zip(rules, words, floors))


@lru_cache(maxsize=4096)
def static_alpha_exists(matrix: tuple[tuple[int, ...], ...], modulus: int) -> bool:
    """Whether some alpha != 0 (mod ``modulus``) has alpha·A = 0 (mod ``modulus``),
    A = ``matrix`` (n rows, T columns).

    With the Smith form A = U·diag(s_1..s_r)·W the solutions are beta = alpha·U with
    beta_i·s_i = 0 (i <= r) and beta_i free (i > r): a nonzero one exists iff r < n or
    some gcd(s_i, modulus) > 1, i.e. iff gcd(d_n, modulus) > 1 where d_n = s_1···s_n is
    the gcd of A's n x n minors (0 when r < n)."""
    rows = len(matrix)
    if rows == 0:
        return False
    columns = len(matrix[0]) if matrix else 0
    minors = 0
    for chosen in itertools.combinations(range(columns), rows):
        minors = gcd(minors, _determinant([[row[c] for c in chosen] for row in matrix]))
    return gcd(minors, modulus) > 1


def _determinant(m: list[list[int]]) -> int:
    """Exact integer determinant (Bareiss' fraction-free elimination)."""
    m = [row[:] for row in m]
    n, sign, previous = len(m), 1, 1
    for k in range(n - 1):
        if m[k][k] == 0:
            swap = next((i for i in range(k + 1, n) if m[i][k]), None)
            if swap is None:
                return 0
            m[k], m[swap], sign = m[swap], m[k], -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                m[i][j] = (m[i][j] * m[k][k] - m[i][k] * m[k][j]) // previous
        previous = m[k][k]
    return sign * m[n - 1][n - 1] if n else 1


# ---------------------------------------------------------------- per_dim


def dim_options(size: int, factor: int) -> tuple[DimPartition, ...]:
    """Partitions of one dimension of ``size`` into ``factor`` banks: none (1), cyclic
    and block below the size (block only when ``factor`` is the number of blocks it
    really makes), complete at the size."""
    if factor == 1:
        return (DimPartition("none", 1),)
    if factor > size:
        return ()
    if factor == size:
        return (DimPartition("complete", size),)
    options = (DimPartition("cyclic", factor),)
    if -(-size // -(-size // factor)) == factor:
        options += (DimPartition("block", factor),)
    return options


@lru_cache(maxsize=1024)
def per_dim_partitions(shape: tuple[int, ...], varying: frozenset[int],
                       banks: int) -> tuple[tuple[DimPartition, ...], ...]:
    """Every per_dim partition of the varying dimensions with exactly ``banks`` banks:
    the ordered factorizations of ``banks`` over those dimensions."""
    return tuple(_factorizations(shape, tuple(d in varying for d in range(len(shape))),
                                 banks))


def _factorizations(shape: tuple[int, ...], varies: tuple[bool, ...], banks: int):
    if not shape:
        if banks == 1:
            yield ()
        return
    factors = _divisors(banks, shape[0]) if varies[0] else [1]
    for f in factors:
        for head in dim_options(shape[0], f):
            for tail in _factorizations(shape[1:], varies[1:], banks // f):
                yield (head,) + tail


def _divisors(n: int, most: int) -> list[int]:
    """The divisors of ``n`` up to ``most``, ascending (a dimension of ``most``
    elements takes no larger factor, :func:`dim_options`), by trial division up to
    sqrt(n): the refinement asks for thousands of bank counts."""
    small = [f for f in range(1, isqrt(n) + 1) if n % f == 0]
    every = small + [n // f for f in reversed(small) if f * f != n]
    return [f for f in every if f <= most]


# ---------------------------------------------------------------- flat


def alpha_values(banks: int, block: int) -> list[int]:
    """Candidate alpha residues mod N*B for one dimension."""
    modulus = banks * block
    if modulus <= FULL_ALPHA_RANGE:
        return list(range(modulus))
    menu = {0, 1} | set(range(2, SMALL_ALPHA + 1))
    menu |= {1 << k for k in range(modulus.bit_length())}
    menu |= {a for a in range(1, modulus) if gcd(a, banks) == 1}
    return sorted(a % modulus for a in menu)


def alpha_rows(ndims: int, varying: frozenset[int], banks: int, block: int):
    """Alpha vectors, lazily: 0 on dimensions where no lane differs.  For B = 1 the
    bank permutation x -> u·x (u a unit mod N) is a symmetry, so the first varying
    coefficient is normalized to a divisor of N."""
    values = alpha_values(banks, block)
    order = sorted(varying)
    for combo in itertools.product(values, repeat=len(order)):
        if not any(combo):
            continue
        if block == 1 and combo[0] and banks % combo[0]:
            continue
        alpha = [0] * ndims
        for d, a in zip(order, combo):
            alpha[d] = a
        yield alpha


# ---------------------------------------------------------------- copies


def copy_assignments(refs: tuple[ReadRef, ...], copies: int) -> list[Assignment]:
    """Ways to spread the reads over ``copies`` copies (``Banking.read_copy``), each
    reaching every copy, without duplicates:

    - by reference (in ``ref_id`` order): round robin ``k mod C`` and contiguous runs
      ``floor(k / ceil(R / C))`` of the k-th of R references;
    - by lane, only when some cycle group reads fewer references than copies (so the
      ways by reference leave a copy unread in it, and the search meets no more
      families where they suffice; two loops reading one reference each over two
      copies): a reference whose lanes are numbered (``ReadRef.lane_index`` n, its
      ``step`` g, m numbers) reads copy ``floor(n / s) mod C`` in each lane, s = g
      (round robin over its lanes) or s = g*ceil(m / C) (runs); the other references
      round robin by reference;
    - interleaved, under the same condition: the k-th of R references reads copy
      ``(R * floor(n / g) + k) mod C`` in each numbered lane (eight references in five
      lanes on 20 copies: two reads a copy);
    - packed, under the same condition: each reference takes the next run of copies,
      as many as its lanes, copy ``(b_k + floor(n / g) - floor(n_0 / g)) mod C`` with
      b_k the lanes of the references before it (n_0 its first lane): one reference
      in one lane plus two in five and one in three read 14 copies once each."""
    run = -(-len(refs) // copies)
    ways = [tuple((r.ref_id, E.const(k % copies)) for k, r in enumerate(refs)),
            tuple((r.ref_id, E.const(k // run)) for k, r in enumerate(refs))]
    fixed = [r for r in refs if r.lane_index is None]
    by_lane = len(fixed) < len(refs) and _fewest_per_group(refs) < copies
    for runs in ((False, True) if by_lane else ()):
        ways.append(tuple(sorted([(r.ref_id, _lane_rule(r, copies, runs))
                                  for r in refs if r.lane_index is not None]
                                 + [(r.ref_id, E.const(k % copies))
                                    for k, r in enumerate(fixed)])))
    if by_lane:
        ways.append(tuple((r.ref_id, E.const(k % copies) if r.lane_index is None else
                           E.mod(E.add(E.scale(len(refs), E.floordiv(r.lane_index, r.step)),
                                       E.const(k)), copies))
                          for k, r in enumerate(refs)))
        ways.append(_packed(refs, copies))
    return sorted({w for w in ways if _reached(refs, w, copies) == copies},
                  key=copy_key)


def _fewest_per_group(refs: tuple[ReadRef, ...]) -> int:
    """The fewest references any cycle group reads (all of them where the references
    name no groups)."""
    groups = set().union(*(r.groups for r in refs))
    if not groups:
        return len(refs)
    return min(sum(g in r.groups for r in refs) for g in groups)


def _packed(refs: tuple[ReadRef, ...], copies: int) -> Assignment:
    """The packed way of :func:`copy_assignments`."""
    way, base = [], 0
    for r in refs:
        if r.lane_index is None:
            way.append((r.ref_id, E.const(base % copies)))
            base += 1
            continue
        first, last = r.values[0] // r.step, r.values[-1] // r.step
        way.append((r.ref_id, E.mod(E.add(E.floordiv(r.lane_index, r.step),
                                          E.const(base - first)), copies)))
        base += last - first + 1
    return tuple(way)


def copy_key(assignment: Assignment) -> tuple[tuple[int, str], ...]:
    """``assignment`` as sortable text (ties between equal costs)."""
    return tuple((r, E.to_isl(e)) for r, e in assignment)


def _lane_rule(ref: ReadRef, copies: int, runs: bool) -> E.Expr:
    """``floor(lane_index / s) mod C`` of :func:`copy_assignments`."""
    step = ref.step * (-(-len(ref.values) // copies) if runs else 1)
    return E.mod(E.floordiv(ref.lane_index, step), copies)


def _reached(refs: tuple[ReadRef, ...], way: Assignment, copies: int) -> int:
    """How many copies some read lane reads under ``way``."""
    rule, reached = dict(way), set()
    for r in refs:  # every lane of a reference at once
        lanes = [dict(lane) for lane in r.lanes or ((),)]
        env = {v: np.array([lane[v] for lane in lanes], np.int64)
               for v in E.variables(rule[r.ref_id])}
        reached.update(np.broadcast_to(E.evaluate(rule[r.ref_id], env),
                                       (len(lanes),)).tolist())
    return len(reached)
