"""What a search that misses a target keeps: the banking with the least excess II.

:func:`cheapest_at_reached_ii` searches again at the missed groups' targets raised
(by 1, 2, 4, ... up to the gap, then bisected), each time with a :class:`.search.Search`
based on the first (its proofs and families shared), and keeps, of the bankings that
reach no larger II in any loop, the one with the least total II, then the least cost;
last it may trade II between this array's loops for fewer cycles
(:func:`_fewest_cycles`).

Invariants: every banking kept is proven against the real targets (never only the
raised ones); the banking the first search found is kept unless one is no worse in
every loop; a time limit keeps the best found so far and says so.
"""

from __future__ import annotations

from math import prod
from typing import Callable

from ..poly.model import ArrayModel
from ..scheme import Banking, DimPartition, per_dim_scheme
from .bounds import lower_bound_of
from .feasible import relaxed
from .groups import analyze_group
from .options import Options, TimeUp
from .proof import Proof, ProofTimeout
from .search import Search
from .space import static_factors


def cheapest_at_reached_ii(am: ArrayModel, search: Search, banking: Banking,
                           proof: Proof, families: tuple[str, ...], options: Options
                           ) -> tuple[Banking, Proof, bool]:
    """A search that misses a target, in the proof or under the scheduling rule
    (:meth:`.search.Search.reached`), keeps the candidate with the least excess II in the
    tiers it searched for the target, not the cheapest one at the II it reaches (flat
    N=5 with 400% padding in block RAM, where cyclic 4 in LUT RAM reaches the same II
    2), nor the one reaching the least II where the excess of groups that isl judges
    is only known as missed or met (one memory at II 4 where cyclic 4 reaches II 2),
    nor one that meets the targets on paper only (a cyclic 1502 whose rotating lanes
    take a port of every bank: II 1348, where cyclic 512 keeps every lane on its bank
    at II 3).  Search again with each missed group's target raised by 1, 2, 4, ...
    below the gap to the II it reaches, then by the gap, until a banking reaches the
    raised targets (a 17-tap window unrolled by 2 whose cyclic 18 rotates to II 18 is
    met by cyclic 2, static, at the raised target 9); then bisect between the last
    raise missed and the first met (a 3x3 window unrolled by 4 whose cyclic 2 reaches
    II 9 at the raise to 9, where cyclic 4 reaches II 6, met at the raise to 7 but
    not at 5).  Of the bankings that, proven against the real targets, reach no
    larger II in any loop, the one with the least total II, then the least cost, is
    kept.  The time limit ends the search (the third value says so: the best so far
    is kept).  Last, a banking that keeps one group's lanes static may take fewer
    cycles (:func:`_fewest_cycles`)."""
    reached = search.reached(banking, proof)
    missed = {k: g for k, g in enumerate(am.groups) if reached[g.loop] > g.target_ii}
    if not missed:
        return banking, proof, False
    best = [(sum(reached.values()), search.cost(banking), banking, proof)]
    gap = max(reached[g.loop] - g.target_ii for g in missed.values())

    def met_at(raise_by: int) -> bool | None:
        """Search at the targets raised by ``raise_by``, keep what it finds in
        ``best`` if it is no worse anywhere; whether it meets the raised targets
        (None: the time limit cut the search)."""
        floors = {k: (min(reached[g.loop], g.target_ii + raise_by), "")
                  for k, g in missed.items()}
        try:
            found = _banked_at(am, search, floors, families, options)
        except (ProofTimeout, TimeUp):
            return None
        if found is None:
            return False
        again, checked, cut_short = found
        theirs = search.reached(again, checked)
        if all(theirs[loop] <= ii for loop, ii in reached.items()):
            best[0] = min(best[0], (sum(theirs.values()), search.cost(again), again,
                                    checked), key=lambda entry: entry[:2])
        if cut_short:
            return None
        return all(theirs[am.groups[k].loop] <= ii for k, (ii, _) in floors.items())

    if not _raised_until_met(met_at, gap):
        return best[0][2], best[0][3], True
    return (*_fewest_cycles(am, search, best[0][2], best[0][3]), False)


def _raised_until_met(met_at: Callable[[int], bool | None], gap: int) -> bool:
    """Ask ``met_at`` at the raises 1, 2, 4, ... below ``gap``, then at ``gap``, until
    one is met; then bisect between the last raise missed and the first met.  False
    when ``met_at`` answers None (the time limit cut its search), True when done."""
    low, high = 0, None
    for raise_by in sorted({1 << k for k in range(gap.bit_length())} | {gap}):
        met = met_at(raise_by)
        if met is None:
            return False
        if met:
            high = raise_by
            break
        low = raise_by
    while high is not None and high - low > 1:
        middle = (low + high) // 2
        met = met_at(middle)
        if met is None:
            return False
        low, high = (low, middle) if met else (middle, high)
    return True


def _fewest_cycles(am: ArrayModel, search: Search, banking: Banking,
                   proof: Proof) -> tuple[Banking, Proof]:
    """Of ``banking`` and the per_dim bankings that keep one group's lanes each on one
    bank (:func:`.space.static_factors`: cyclic by the gcd of their moves), the one
    whose loops take the fewest cycles, sum over loops of iterations x II
    (:meth:`.search.Search.reached`); ``banking`` on a tie.  A banking whose lanes rotate
    in one loop (II 16 over 1,024 iterations) may be worse than one that rotates in
    another (II 20 over 16), which the II-by-II comparison never trades.  Only loops
    of this array alone may change II: in a loop another array shares, that one may
    hold the II (stencil3d's boundary loops, bound by orig), and the trade buys
    nothing for what it costs elsewhere."""
    iterations: dict[str, int] = {}
    for g in am.groups:
        iterations[g.loop] = max(iterations.get(g.loop, 0), g.total_iterations)

    def cycles(reached: dict[str, int]) -> int:
        return sum(ii * iterations.get(loop, 1) for loop, ii in reached.items())

    ours = search.reached(banking, proof)
    best = (cycles(ours), banking, proof)
    for shape in search.shapes:
        factors = static_factors(shape, am.array.shape)
        if factors is None or not 1 < prod(factors) <= search.ceiling:
            continue
        other = Banking(am.array.name, per_dim_scheme(am.array.shape, tuple(
            DimPartition("cyclic", f) if f > 1 else DimPartition("none", 1)
            for f in factors)))
        if other == banking:
            continue
        checked = search.prove(other)
        theirs = search.reached(other, checked)
        if any(theirs[loop] != ii for loop, ii in ours.items()
               if loop in search.options.shared_loops):
            continue  # another array there may bound the II: the trade is not this one's
        best = min(best, (cycles(theirs), other, checked), key=lambda e: e[0])
    return best[1], best[2]


def _banked_at(am: ArrayModel, search: Search, floors: dict, families: tuple[str, ...],
               options: Options) -> tuple[Banking, Proof, bool] | None:
    """The cheapest banking conflict-free with the groups' targets raised to
    ``floors`` (:func:`.feasible.relaxed`) and its proof against the real targets;
    None when there is none; and whether the time limit ended the search for a
    cheaper one.  Raises :class:`TimeUp` (or ``ProofTimeout``) when it ends the
    search before one is found."""
    raised = relaxed(am, floors)
    shapes = [analyze_group(g, len(am.array.shape)) for g in raised.groups]
    again = Search(raised, shapes, lower_bound_of(am.ports, shapes, am.array),
                   options, base=search).run(families)
    if not again.proof.conflict_free:
        return None
    return again.banking, search.prove(again.banking), again.cut_short
