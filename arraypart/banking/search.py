"""One array's candidate search: :class:`Search` and its loop over tiers of candidates.

Search (per array): tiers of physical banks t = banks x copies, from the lower bound
up to the search ceiling (:func:`search_ceiling`; only the ceiling when the bound
exceeds it: then the least II is sought).  A tier is a set of :class:`.space.Family`
values (per_dim partitions of N banks, flat ``floor(alpha·x/B) mod N`` for each B, at
each copy count and read assignment), visited in the order of their cost floors.
Before a family is pre-checked, the candidates already pre-checked that cost less
than its floor are proved in cost order; the first that :func:`.prove` confirms wins,
since nothing in the families still to come can cost less.  So a per_dim banking at
the bound that no flat scheme can beat (storage, crossbar) is accepted before any
flat candidate is looked at.  Pre-checks are exact residue counts on uniform groups
(:mod:`.precheck`); non-uniform groups are refuted on samples, then judged by isl.
When no tier succeeds, the candidate with the least (pre-checked) II wins and the
report says so.

Invariants: a :class:`Search`'s state is local to one array in one :func:`.driver.solve`
call (memos of pure functions of the array, its groups and the options: lane sets,
family floors, isl verdicts), so the order candidates are visited in, and the answer,
depend on the input alone, never on timing, except where the deadline ends the search
(:class:`.options.TimeUp`).  An :class:`Answer` names a banking only with its isl proof.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace
from math import prod
from typing import Iterator

import numpy as np

from ..poly.model import ArrayModel
from ..rtl.closed import lane_table
from ..rtl.cost import flat_floors, scheme_floors
from ..scheme import Banking, none_scheme, per_dim_scheme
from .bounds import bram18k
from .device import DEFAULT_SEARCH_BANKS
from .groups import GroupShape
from .options import Options, TimeUp, check_deadline
from .proof import Proof, ProofTimeout, at_raised_targets, prove, prove_group
from .sampling import (refuted, routed_ii, sampled_rule_ii, sampled_rule_missed,
                       sample_group, with_point)
from .screen import Screen, model_floors
from .solution import Found
from .space import (Cost, Family, as_written_ii, copy_key, cost_floor, cost_of,
                    crossbar_lanes, per_dim_partitions, phased, rule_ii, rule_lanes,
                    rule_overloaded, static_box, refused_switch_overloaded)


# Arrays up to this many elements may become registers when sharing one address
# rules out memory banks at the target II, a fallback taken without comparing costs
# (the selects of a larger register file cost more than an II).
MAX_REGISTER_ELEMENTS = 16
# Arrays up to this many elements and bits (the top's only in place of a phase switch
# the emission cannot write in a helper: their registers are ports of the IP) are
# searched as registers too where lanes that rotate in references kept as written
# overload every memory banking under the scheduling rule; the search ranks them with
# those bankings, by the lanes that rotate first, then by their fitted cost (a callee's
# 32-word table: II 3 in any memory).
MAX_ROTATING_REGISTER_ELEMENTS = 64
MAX_ROTATING_REGISTER_BITS = 64 * 32
# Candidates set aside for their routed groups' sites (:meth:`Search._routed_ok`)
# after which a search stops pricing the sites.
MAX_ROUTED_REFUTED = 2048

# Tiers searched past the first one at each new lowest BRAM18K floor
# (:meth:`Search._refine_tiers`).
LEVEL_TIERS = 8


@dataclass(frozen=True, slots=True)
class Answer:
    """A search's answer: the banking, its proof, its cost, candidates pre-checked."""

    banking: Banking
    proof: Proof
    cost: Cost
    tried: int
    cut_short: bool = False  # the deadline ended the search for a cheaper one


@dataclass(frozen=True, order=True)
class _Pending:
    """A pre-checked candidate waiting for its proof: ``cost`` exact, or a floor of it
    when not ``exact``; ``order`` keeps equal costs in the order they were found."""

    cost: Cost
    copy_key: tuple
    order: int
    exact: bool = field(compare=False)
    banking: Banking = field(compare=False)


@dataclass(frozen=True, order=True)
class _Fallback:
    """The best candidate that misses the target: least excess II (summed over the
    groups), then least cost without the model (rule lanes, banks x copies, padding:
    fallbacks are many and rarely chosen)."""

    excess_ii: int
    cost: Cost
    copy_key: tuple
    banking: Banking = field(compare=False)


def search_ceiling(options_max: int | None, bram_budget: int, bound: int,
                   shapes: list[GroupShape], shape: tuple[int, ...]) -> int:
    """The most banks x copies the search tries.  An explicit ``--max-banks`` is kept.
    Otherwise the device's BRAM18K count caps it, and below that cap the search stops
    at the larger of :data:`.device.DEFAULT_SEARCH_BANKS` and the largest bounding box
    of a uniform group's offsets (per-dimension cyclic banking over that box separates
    every lane, so the subscripts never ask for more); never beyond the elements."""
    if options_max is not None:
        return options_max
    box = max([bound] + [_box(s, shape) for s in shapes if s.uniform])
    return max(1, min(bram_budget, prod(shape), max(DEFAULT_SEARCH_BANKS, box)))


def _box(s: GroupShape, shape: tuple[int, ...]) -> int:
    if not len(s.offsets):
        return 1
    spans = s.offsets.max(0) - s.offsets.min(0) + 1
    return prod(min(int(w), n) for w, n in zip(spans, shape))


class Search:
    """One array's candidate search (state local to one :func:`.driver.solve` call:
    the isl verdicts, proofs and costs of this array, computed once; its candidates and
    their pre-check are ``screen``'s, :class:`.screen.Screen`).  A search at targets
    raised from those of a ``base`` search (:func:`.missed._banked_at`) takes its
    proofs from that one's (:meth:`prove`) and its families from that one's screen.
    A search of a ``twin`` array, the same accesses at the same targets under other
    flags (the flat note's, :func:`.notes._flat_note`), shares its proofs and the
    model's floors of its per_dim partitions, which those flags do not change."""

    def __init__(self, am: ArrayModel, shapes: list[GroupShape], bound: int,
                 options: Options, proofs: int | None = None, base: Search | None = None,
                 twin: Search | None = None):
        self.am, self.shapes, self.bound, self.options = am, shapes, bound, options
        self.proofs_left = proofs  # candidates :meth:`_confirm` may still try (None: any)
        self.base = base
        self.ceiling = search_ceiling(options.max_banks, options.bram_budget, bound,
                                      shapes, am.array.shape)
        self.samples = [sample_group(s) for s in shapes if not s.uniform]
        shared = base or twin
        self.screen = Screen(am, shapes, options, self.samples,
                             None if base is None else base.screen.family_memo,
                             None if shared is None else shared.screen.floor_memo)
        self.isl_ok: dict[Banking, bool] = {}
        self.proofs: dict[Banking, Proof] = {} if twin is None else twin.proofs
        self.routed_memo: dict[Banking, dict[str, int]] = {}
        self.routed_refuted = 0  # candidates set aside for their routed sites
        self.sample_memo: dict[int, object] = {}
        self.cost_memo: dict[Banking, Cost] = {}

    def run(self, families: tuple[str, ...], *, report: bool = False,
            budget: int | None = None) -> Answer:
        """The cheapest proven banking: the first tier that has one
        (:meth:`_first_tier`), then cheaper per_dim bankings with more banks
        (:meth:`_refine`).  With ``report`` (the search for the banking the array
        gets) the first tier's is reported as found before the refinement.  With a
        ``budget`` (a note's search, which compares conflict-free bankings only), past
        that many candidates pre-checked, or when no candidate is conflict-free, the
        first tier raises :class:`TimeUp`."""
        found = self._first_tier(families, budget)
        if not found.proof.conflict_free:
            return found
        if report:
            self.options.found(Found(found.banking, complete=False))
        try:
            return self._refine(found)
        except (ProofTimeout, TimeUp):
            return replace(found, cut_short=True)

    def _first_tier(self, families: tuple[str, ...], budget: int | None = None) -> Answer:
        """Tiers from the lower bound up; in a tier the per_dim families (cheap to
        pre-check) first, then the flat ones in the order of their :meth:`_gate`
        floors; a pending candidate cheaper than every family still to visit is
        proved, and the first proven wins.  When none is, the fallback with the least
        excess II is kept, or one memory (:meth:`_kept_when_missed`)."""
        fallback, tried = None, [0]
        for tier in range(min(self.bound, self.ceiling), self.ceiling + 1):
            pending: list[_Pending] = []
            tier_families = list(self.screen.families(tier, families))
            flat = [f for f in tier_families if f.kind == "flat"]
            flat_floor = min((f.floor for f in flat), default=None)
            for family in sorted((f for f in tier_families if f.kind != "flat"),
                                 key=lambda f: f.floor):
                bar = family.floor if flat_floor is None else min(family.floor, flat_floor)
                found, fallback = self._visit(family, bar, pending, fallback, tier, tried,
                                              budget)
                if found is not None:
                    return Answer(*found, tried[0])
            for bar, family in sorted(((self._gate(f, pending), f) for f in flat),
                                      key=lambda p: p[0]):
                found, fallback = self._visit(family, bar, pending, fallback, tier, tried,
                                              budget)
                if found is not None:
                    return Answer(*found, tried[0])
            found, fallback = self._confirm(pending, None, fallback, tier, tried[0])
            if found is not None:
                return Answer(*found, tried[0])
        if budget is not None:
            raise TimeUp  # (proving the fallback and one memory would tell it nothing)
        banking = self._kept_when_missed(fallback)
        return Answer(banking, self.prove(banking), self.cost(banking), tried[0])

    def _kept_when_missed(self, fallback: _Fallback | None) -> Banking:
        """The banking kept when none reaches the target: ``fallback``, unless one
        memory, proven, reaches an II no larger in any of its loops.  Banks that miss
        the target by as much buy nothing with their selects (a bank that varies with
        an outer loop's iterator takes a port of every bank under the scheduling
        rule); the pre-check's scores do not tell, so both are proven."""
        alone = Banking(self.am.array.name, none_scheme(self.am.array.shape))
        if fallback is None:
            return alone
        kept = dict(self.prove(fallback.banking).achieved_ii)
        if all(ii <= kept.get(loop, ii) for loop, ii in self.prove(alone).achieved_ii):
            return alone
        return fallback.banking

    def _visit(self, family: Family, bar: Cost, pending: list[_Pending],
               fallback: _Fallback | None, tier: int, tried: list[int],
               budget: int | None = None):
        """Prove the pending candidates cheaper than ``bar`` (no family still to visit
        costs less), then pre-check ``family`` into ``pending``; ``tried[0]`` counts
        the candidates pre-checked (:class:`TimeUp` when it reaches ``budget``).
        Returns (proven or None, fallback)."""
        found, fallback = self._confirm(pending, bar, fallback, tier, tried[0])
        if found is not None:
            return found, fallback
        if fallback is not None and fallback.excess_ii <= self.screen.least_excess(tier) \
                and fallback.cost < bar:
            return None, fallback
        for make, scores in self.screen.batches(family):
            check_deadline(self.options, tier, tried[0])
            if budget is not None and tried[0] >= budget:
                raise TimeUp(f"{tried[0]} candidates pre-checked, the budget")
            tried[0] += len(scores)
            passed = []
            for banking in map(make, np.flatnonzero(scores == 0)):
                # a sampled rule check may take 0.1 s
                check_deadline(self.options, tier, tried[0])
                if self._routable(banking):
                    passed.append(banking)
            for entry in self._priced(family, passed, len(pending)):
                heapq.heappush(pending, entry)
            if len(scores) and scores.min() > 0:
                fallback = self._better(fallback, int(scores.min()),
                                        make(int(np.argmin(scores))))
        return None, fallback

    def _gate(self, family: Family, pending: list[_Pending]) -> Cost:
        """The floor a family is pre-checked at.  A flat family's is raised to the cost
        of a pre-checked per_dim banking it cannot beat on what a flat scheme changes:
        no fewer rule lanes or lanes on a select (``Family.crossbar``), and no less
        padding.  Such a flat scheme stores as many words per bank and serves as many
        lanes, and the selects dominate the fitted LUTs, so it is taken to cost no
        less (a heuristic, not a bound: it may spread the lanes over the ports
        differently), and the per_dim banking is proved before any flat candidate is
        pre-checked (the search's expensive part; issue 14: a per_dim banking at the
        bound stops the search)."""
        floor = family.floor
        if family.kind != "flat":
            return floor
        rivals = [self.cost(e.banking) for e in pending
                  if e.banking.scheme.kind != "flat" and e.cost.rule_lanes <= floor.rule_lanes
                  and e.cost.storage_overhead <= floor.storage_overhead
                  and crossbar_lanes(e.banking.scheme, self.shapes) <= family.crossbar]
        if not rivals:
            return floor
        return max(floor, replace(min(rivals), interface_ports=floor.interface_ports,
                                  physical_banks=floor.physical_banks,
                                  storage_overhead=floor.storage_overhead,
                                  family=floor.family, key=()))

    def _refine(self, best: Answer) -> Answer:
        """Banks cost only their BRAM and logic: past the first proven tier, up to the
        largest bounding box of a uniform group's offsets (:meth:`horizon`), per_dim
        bankings that cost less than ``best`` are proved in cost order, the first
        proven wins.  A tier is only searched when one of its per_dim partitions has
        fewer rule lanes than ``best`` (more banks may give a lane one bank), when the
        tier's BRAM18K floor (:meth:`tier_floor`) is below ``best``'s (banks small
        enough for LUT RAM, or each served by one port where two make a bank true
        dual-port), or when it is a uniform group's bounding box: cyclic over the box
        gives every lane a constant bank (a loop unrolled by U on cyclic U), no select
        between banks.  Other tiers may save a few LUTs, not worth searching each for.
        Flat schemes and read copies stay at the first tier, whose pre-check is the
        search's expensive part.

        Best first over every such tier: the families in the order of their floors,
        a family pre-checked only when no pending candidate that costs less than its
        floor is proven (nothing in it, nor in the families after it, costs less)."""
        first, tried = best.cost.physical_banks, best.tried
        families = sorted((f for tier in self._refine_tiers(best)
                           for f in self.screen.families(tier, ("per_dim",), copies=1)
                           if f.floor < best.cost), key=lambda f: f.floor)
        pending: list[_Pending] = []
        for family in families:
            found, _ = self._confirm(pending, family.floor, None, first, tried)
            if found is not None:
                return Answer(*found, tried)
            check_deadline(self.options, family.banks, tried)
            for make, scores in self.screen.batches(family):
                tried += len(scores)
                passed = [b for b in map(make, np.flatnonzero(scores == 0))
                          if self._routable(b)]
                for entry in self._priced(family, passed, len(pending)):
                    heapq.heappush(pending, entry)
        found, _ = self._confirm(pending, best.cost, None, first, tried)
        return Answer(*found, tried) if found is not None else replace(best, tried=tried)

    def _refine_tiers(self, best: Answer) -> Iterator[int]:
        """The tiers :meth:`_refine` searches (see there), of those whose BRAM18K floor
        is below ``best``'s only the first :data:`LEVEL_TIERS` at each new lowest floor:
        past them, more banks at the same floor add banks, selects and address bits
        (thousands of LUT-RAM tiers for a 16384-word array, each priced by the fitted
        model, were most of its search), and tiers that change a lane's bank (boxes,
        fewer rule lanes) are searched anyway.  Pricing a tier's families is the
        refinement's cost before any pre-check (a thousand tiers for an array with a
        thousand lanes), so the deadline is read at each tier."""
        first = best.cost.physical_banks
        boxes = {_box(s, self.am.array.shape) for s in self.screen.uniform}
        level, level_start = best.cost.bram18k, first
        for tier in range(first + 1, self.horizon(best.banking, best.cost.bram18k) + 1):
            check_deadline(self.options, tier, best.tried)
            floor = min(self.tier_floor(tier), self.options.bram_budget + 1)
            if floor < level:
                level, level_start = floor, tier
            if (tier in boxes or (floor == level < best.cost.bram18k
                                  and tier < level_start + LEVEL_TIERS)
                    or self._fewer_rule_lanes(
                        tier, (best.cost.rule_lanes, best.cost.phased_lanes))):
                yield tier

    def _fewer_rule_lanes(self, tier: int, lanes: tuple[int, int]) -> bool:
        """Some per_dim partition into ``tier`` banks has fewer rule lanes than
        ``lanes`` (rotating, phased: :func:`.space.rule_lanes`), counted without the
        fitted model, whose pricing of every partition of every tier was most of the
        refinement's time on large arrays.  Phased lanes count for an array of at most
        :data:`MAX_REGISTER_ELEMENTS`: its registers are tried where a phase switch was
        the best so far (the emission may not be able to write one); a larger one's
        phase switch stands against registers."""
        array = self.am.array
        width = 2 if array.size <= MAX_REGISTER_ELEMENTS else 1
        return lanes[:width] > (0, 0)[:width] and any(
            rule_lanes(per_dim_scheme(array.shape, dims), self.shapes,
                       array.pragma_only)[:width] < lanes[:width]
            for dims in per_dim_partitions(array.shape, self.screen.varying, tier))

    def prove(self, banking: Banking) -> Proof:
        """isl's proof of ``banking`` (:func:`.proof.prove`), made once per search; in a
        search at raised targets, the ``base`` search's proof at its targets read at
        the raised ones (:func:`.proof.at_raised_targets`): the raise-and-bisect of
        :func:`.missed.cheapest_at_reached_ii` proves each banking it finds at the real
        targets anyway, and meets the same bankings at several raises."""
        if banking not in self.proofs:
            found = None if self.base is None else at_raised_targets(
                self.base.prove(banking), self.am.groups)
            if found is None:
                found = prove(self.am, banking, deadline=self.options.deadline)
            self.proofs[banking] = found
        return self.proofs[banking]

    def rule_risky(self, banking: Banking) -> bool:
        """Some group whose references the emitted code keeps as written (every group
        of a pragma-only array, a ``direct`` one of another) has lanes that change
        bank and overload it under the scheduling rule (uniform groups:
        :func:`.space.rule_overloaded`; the others on their samples:
        :func:`.sampling.sampled_rule_ii`): advice to use this banking could lower no
        II."""
        kept = self.am.array.pragma_only
        uniform = self.screen.uniform
        return rule_overloaded(banking.scheme, uniform, kept, self.am.ports) or any(
            sampled_rule_missed(sample, banking, self.am.ports) for sample in self.samples
            if kept or sample.shape.group.direct)

    def reached(self, banking: Banking, proof: Proof, *,
                as_written: bool = False) -> dict[str, int]:
        """Per loop of the array's groups, the II ``banking`` leaves it in the emitted
        code: the proof's (against the ideal port model), raised to the scheduling
        rule's for groups whose references the emission keeps as written
        (:func:`.space.rule_ii`; sampled non-uniform groups:
        :func:`.sampling.sampled_rule_ii`).  A pragma-only array's banks that rotate
        with a short period are made constant by the emission's phase switches
        (:func:`.space.phased`).  ``as_written``: every reference stays as written and
        no phase switch is emitted (the user's pragmas, kept;
        :func:`.space.as_written_ii`)."""
        kept = self.am.array.pragma_only
        reached = {g.loop: g.target_ii for g in self.am.groups} | dict(proof.achieved_ii)
        rule = [(s.group.loop, as_written_ii(banking.scheme, s, self.am.ports) if as_written
                 else rule_ii(banking.scheme, s, self.am.ports, kept))
                for s in self.screen.uniform] + [
            (sample.shape.group.loop, sampled_rule_ii(sample, banking, self.am.ports))
            for sample in self.samples if as_written or (
                (kept or sample.shape.group.direct)
                and not (kept and phased(banking.scheme, sample.shape)))]
        if not (as_written or kept):
            rule += list(self.routed(banking).items())
        for loop, ii in rule:
            reached[loop] = max(reached[loop], ii)
        return reached

    def routed(self, banking: Banking) -> dict[str, int]:
        """Per loop of a group whose lanes the emission routes (not ``direct``, of an
        array that is not pragma-only, its lanes overloading a bank as written), the
        II its bank-centric code reaches under the scheduling rule
        (:func:`.sampling.routed_ii`)."""
        if banking in self.routed_memo:
            return self.routed_memo[banking]
        found: dict[str, int] = {}
        ports = self.am.ports
        for shape in ([] if self.am.array.pragma_only else self.shapes):
            target = shape.group.target_ii
            if shape.group.direct or (
                    as_written_ii(banking.scheme, shape, ports) <= target if shape.uniform
                    else not sampled_rule_missed(self._sample(shape), banking, ports)):
                continue  # kept as written, or fits as written: nothing is routed
            ii = routed_ii(self._sample(shape), banking, ports)
            found[shape.group.loop] = max(found.get(shape.group.loop, 0), ii)
        self.routed_memo[banking] = found
        return found

    def _sample(self, shape: GroupShape):
        """The sampled cycles of ``shape``'s group (a uniform one's made on demand)."""
        key = id(shape)
        if key not in self.sample_memo:
            self.sample_memo[key] = next(
                (s for s in self.samples if s.shape is shape), None) or sample_group(shape)
        return self.sample_memo[key]

    def _routable(self, banking: Banking) -> bool:
        """The emitted code keeps the banking's II under the scheduling rule: the
        bank-centric emission routes lanes that change bank within one copy only, so
        a banking with read copies must give every lane a constant bank; and the
        sampled cycles of a ``direct`` non-uniform group of an array the emission may
        route (:meth:`.screen.Screen._rule_ii` prices the uniform ones) are not
        refuted under the rule (:func:`.sampling.sampled_rule_ii`).  Asked before a
        candidate is priced (the routed groups' sites are asked before its proof:
        :meth:`_routed_ok`)."""
        if banking.copies > 1 and crossbar_lanes(banking.scheme, self.shapes) > 0:
            return False
        return self.am.array.pragma_only or not any(
            sampled_rule_missed(sample, banking, self.am.ports)
            for sample in self.samples if sample.shape.group.direct)

    def _routed_ok(self, banking: Banking) -> bool:
        """The sites of the groups the emission routes fit their targets
        (:meth:`routed`); asked when a candidate comes up for its proof, for the first
        :data:`MAX_ROUTED_REFUTED` refuted ones only: where no routing keeps the target
        (a read and a write site per bank on one port), the search would otherwise
        walk every tier to its deadline, and the emitted code's schedule, banked again
        where it misses (:func:`arraypart.api._retry`), decides instead."""
        if self.routed_refuted >= MAX_ROUTED_REFUTED:
            return True
        targets = {g.loop: g.target_ii for g in self.am.groups}
        if any(ii > targets[loop] for loop, ii in self.routed(banking).items()):
            self.routed_refuted += 1
            return False
        return True

    def horizon(self, best: Banking, best_bram18k: int) -> int:
        """The most banks x copies :meth:`_refine` tries past ``best``: the largest
        bounding box of a uniform group's offsets (per_dim cyclic over it gives every
        lane a bank of its own, so more banks only split them further), within the
        search ceiling.  Read copies that take block RAM extend it to twice their banks
        x copies: one copy in that many banks needs fewer BRAM18K (each bank holds
        1/(2·banks) of the array, not all of it) and may serve the lanes the copies do.
        A group's :func:`.space.static_box`, the most banks that leave each of its
        lanes on one bank, extends it (``dst[i]``, ``dst[i + 2]`` with ``i += 4``:
        cyclic 4 keeps them apart and static, past the offsets' box of 3).  When
        ``best``'s rotating lanes miss a target under the scheduling rule
        (:func:`.space.rule_overloaded`), an array of at most
        :data:`MAX_ROTATING_REGISTER_ELEMENTS` and :data:`MAX_ROTATING_REGISTER_BITS` (a
        wider one, or an interface array, of at most :data:`MAX_REGISTER_ELEMENTS`: its
        registers are ports of the IP, which stand in only for a phase switch that the
        lanes' period allows and the emission cannot write in a sub-function's text,
        shared by its calls, :func:`.space.refused_switch_overloaded`) may
        become registers, which take no port; a larger one is searched up to the
        ceiling short of registers, where a block partition may hold each lane in one
        bank (lane c of ``a[i]``, ``i`` from ``max(t, 8c)`` to ``8c + 7``, under block 8:
        :meth:`_refine_tiers` takes only the tiers with fewer rotating lanes)."""
        array = self.am.array
        physical = best.scheme.banks * best.copies
        box = max([physical * (2 if best.copies > 1 and best_bram18k > 0 else 1)]
                  + [_box(s, array.shape) for s in self.screen.uniform]
                  + [static_box(s, array.shape) for s in self.shapes])
        kept, ports = array.pragma_only, self.am.ports
        if rule_overloaded(best.scheme, self.shapes, kept, ports):
            wide = array.size * array.elem_bits > MAX_ROTATING_REGISTER_BITS
            ported = array.interface and not (array.functions and refused_switch_overloaded(
                best.scheme, self.shapes, kept, ports))
            most = (MAX_REGISTER_ELEMENTS if wide or ported
                    else MAX_ROTATING_REGISTER_ELEMENTS)
            box = max(box, array.size if array.size <= most else array.size - 1)
        return min(self.ceiling, box)

    def tier_floor(self, tier: int) -> int:
        """No banking of one copy with ``tier`` banks needs fewer BRAM18K: each bank
        holds at least ceil(elements / banks) words (:func:`.bounds.bram18k`, any port
        use)."""
        array = self.am.array
        return bram18k(-(-array.size // tier), array.elem_bits, tier, 1, self.am.ports.name,
                       array.storage_impl)

    def copies_note(self) -> str:
        """Why read copies were not offered, when the device's BRAM is the reason."""
        array = self.am.array
        banks = max(1, self.bound // 2)
        need = bram18k(-(-array.size // banks), array.elem_bits, banks, 2, self.am.ports.name,
                       array.storage_impl)
        if not self.screen.duplicable or need <= self.options.bram_budget:
            return ""
        return (f" (two read copies would need {need} BRAM18K, more than the device's "
                f"{self.options.bram_budget})")

    def cost(self, banking: Banking) -> Cost:
        """``banking``'s cost (made once per search: :meth:`_gate` asks it of every
        pending per_dim candidate for each flat family)."""
        if banking not in self.cost_memo:
            self.cost_memo[banking] = self.screen.within_budget(
                cost_of(banking, self.am, self.shapes))
        return self.cost_memo[banking]

    def _better(self, current: _Fallback | None, score: int, banking: Banking) -> _Fallback:
        candidate = _Fallback(score, cost_floor(banking, self.am, self.shapes),
                              copy_key(banking.read_copy), banking)
        return candidate if current is None or candidate < current else current

    def _priced(self, family: Family, bankings: list[Banking], start: int) -> list[_Pending]:
        """Pending entries for pre-checked candidates at a floor of their cost, priced
        exactly when they come first: a per_dim candidate at its family's floor, flat
        ones at their BRAM18K and LUT/FF floors computed together
        (:func:`arraypart.rtl.cost.flat_floors`)."""
        if family.kind == "per_dim" or not bankings:
            return [_Pending(family.floor, copy_key(b.read_copy), start + k, False, b)
                    for k, b in enumerate(bankings)]
        table = lane_table(self.am, family.copies, family.assignment)
        schemes = [b.scheme for b in bankings]
        if table.affine.all():
            floors = flat_floors(table, np.array([s.alpha for s in schemes]), family.banks,
                                 family.block, np.array([s.bank_depth for s in schemes]))
        else:
            floors = scheme_floors(table, schemes)
        costs = model_floors(bankings, self.am, self.shapes, *floors)
        return [_Pending(self.screen.within_budget(cost), copy_key(b.read_copy), start + k,
                         False, b) for k, (b, cost) in enumerate(zip(bankings, costs))]

    def _confirm(self, pending: list[_Pending], floor: Cost | None,
                 fallback: _Fallback | None, tier: int, tried: int):
        """Prove the pre-checked candidates cheaper than ``floor`` (all when None) in
        cost order; the first proven one wins.  ``pending`` is a heap; an entry priced
        by a floor is priced exactly when it comes first (its cost is not below the
        floor, so the first exact entry is the cheapest).  Refuted ones leave
        ``pending`` and may become the fallback.  Returns ((banking, proof, cost) or
        None, fallback)."""
        while pending and (floor is None or pending[0].cost < floor):
            entry = heapq.heappop(pending)
            if not entry.exact:
                heapq.heappush(pending, replace(entry, cost=self.cost(entry.banking),
                                                exact=True))
                continue
            check_deadline(self.options, tier, tried)
            self._spend_proof(tier, tried)
            if self._routed_ok(entry.banking) and self._isl_groups_ok(entry.banking):
                proof = self.prove(entry.banking)
                if proof.conflict_free:
                    return (entry.banking, proof, entry.cost), fallback
            fallback = self._better(fallback, 1, entry.banking)
        return None, fallback

    def _spend_proof(self, tier: int, tried: int) -> None:
        if self.proofs_left is not None:
            self.proofs_left -= 1
            if self.proofs_left < 0:
                raise TimeUp(f"{tried} candidates pre-checked, at {tier} banks, "
                             "its candidates to prove spent")

    def _isl_groups_ok(self, banking: Banking) -> bool:
        """Non-uniform groups fit at their target II: refuted by counting irregular
        lanes or on samples, else isl (cached per banking)."""
        if any(refuted(sample, banking, self.am.ports) for sample in self.samples):
            return False
        if banking not in self.isl_ok:
            self.isl_ok[banking] = all(self._fits_at_target(n, banking)
                                       for n in range(len(self.samples)))
        return self.isl_ok[banking]

    def _fits_at_target(self, n: int, banking: Banking) -> bool:
        """isl's verdict on the ``n``-th non-uniform group at its target II; the
        colliding cycle of a refutation joins the group's sample
        (:func:`.sampling.with_point`)."""
        group = self.samples[n].shape.group
        verdict = prove_group(self.am, group, banking, max_ii=group.target_ii,
                              deadline=self.options.deadline)
        if verdict.ii != group.target_ii and verdict.point is not None:
            self.samples[n] = with_point(self.samples[n], verdict.point)
        return verdict.ii == group.target_ii
