"""The located warnings about an array's banking: kept or wasteful partitions, a
cheaper flat scheme a pragma-only array cannot take, a search cut short or missing its
targets; and the prose they share (per-loop IIs, how reads pick their copy).

Invariants: a note only informs; nothing here changes the banking the array gets.
A note that compares with another banking names one the search proved (conflict-free
where the note says it is better); the search behind the flat-scheme note is bounded
by counts (:data:`NOTE_CANDIDATES`, :data:`NOTE_PROOFS`), not by time, so the notes
stay deterministic.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from .. import expr as E
from ..errors import warning_text
from ..ir import size_words
from ..poly.model import ArrayModel
from ..scheme import Banking, scheme_from_pragmas
from .options import Options, TimeUp
from .proof import Proof, ProofTimeout
from .screen import ALPHA_BATCH
from .search import Answer, Search
from .space import Cost, rule_overloaded


# Candidates that the search behind a pragma-only array's flat-scheme note pre-checks
# at most: the note only informs (the array keeps its per_dim banking), and on large
# arrays that search cost most of a compile (Rosetta 3d-rendering: 25 of 38 s, no note
# found).  A count, not a time, so the output stays deterministic.
NOTE_CANDIDATES = ALPHA_BATCH
# ... and of those, the note's search proves at most this many (each costs its model
# price, routing and samples: 2,130 took 8 s on a 16-lane depthwise convolution, and
# no note came of them; the notes found in the suite took one).
NOTE_PROOFS = 64
# A user's array_partition is called wasteful when it needs more BRAM18K than
# arraypart's conflict-free banking, or more than this many times its LUTs or banks x
# copies (smaller differences are within the fitted model's error, ~6%, and a user's
# reasons).
WASTE_RATIO = 2


def partition_notes(search: Search, kept: Banking, proof: Proof,
                    better: Answer) -> list[str]:
    """The notes on the user's partition pragmas, which the array keeps (``kept``,
    proven by ``proof``), beside ``better``, the search's own banking: they conflict
    (with what would do better), or they cost clearly more, or the scheduling rule
    leaves a loop above its target (:func:`_rule_note`)."""
    array = search.am.array
    notes = []
    if not proof.conflict_free:
        notes.append(warning_text(array.partitions[0].coord, (
            f"the array_partition pragmas of {array.name} ({kept.scheme.describe()}) "
            f"conflict: {proof.counterexample}{_suggestion(search, proof, better)}")))
    elif _wasteful(search.cost(kept), better) and not search.rule_risky(better.banking):
        notes.append(_waste_note(array, search.cost(kept), better, search.bound))
    return notes + _rule_note(search.am, search, kept, proof, better)


def search_notes(search: Search, banking: Banking, proof: Proof,
                 cut_short: bool) -> list[str]:
    """The notes on the banking the search chose: a pragma-only array's cheaper flat
    scheme (:func:`_flat_note`), the time limit that cut the search for a cheaper one
    short, the targets no banking reached."""
    am, options = search.am, search.options
    array = am.array
    notes = []
    if array.pragma_only and "flat" in options.families:
        notes += _flat_note(am, search, banking, proof, options)
    if cut_short:
        notes.append(warning_text(array.coord, (
            f"solver time limit of {options.time_limit:g} s reached while looking "
            f"for a cheaper banking of {array.name} than {banking.describe()}, which "
            f"is proven and kept")))
    if not proof.conflict_free:
        notes.append(warning_text(array.coord, (
            f"no banking of {array.name} within {search.ceiling} banks "
            f"{_what_fails(am)}{search.copies_note()}; using {banking.describe()}, "
            f"achieved II {ii_text(search.reached(banking, proof).items())}: "
            f"{proof.counterexample}")))
    return notes


def _suggestion(search: Search, kept: Proof, better: Answer) -> str:
    """What the note on conflicting pragmas advises: the search's banking when it
    does better than the pragmas (proven conflict-free, or a smaller II summed over
    the loops) and keeps that II with every reference as written under the
    scheduling rule (:meth:`Search.rule_risky`); else where to look."""
    total = [sum(ii for _, ii in p.achieved_ii) for p in (kept, better.proof)]
    if not better.proof.conflict_free and total[1] >= total[0]:
        return "; no banking arraypart tried does better"
    if search.rule_risky(better.banking):
        return ("; arraypart's own banking (--replace-partitions) is chosen under the "
                "scheduling rule for the code it emits")
    if rule_overloaded(better.banking.scheme, search.screen.uniform, True, search.am.ports):
        return (f"; --replace-partitions uses a better banking, "
                f"{better.banking.describe()}, and routes the lanes whose banks change "
                "(as a pragma alone it would not reach that II)")
    return f"; a better banking is {better.banking.describe()}"


def _rule_note(am: ArrayModel, search: Search, kept: Banking, proof: Proof,
               better: Answer) -> list[str]:
    """The note on conflict-free pragmas whose banks change with the iteration at
    references the emission keeps as written (neither routed nor phased; every
    reference of a pragma-only array, whose phase switches serve the lanes they can),
    so that the scheduling rule leaves a loop above its target: the pragmas are what
    cost that II, and the note says what ``better`` reaches there (probe 39 L5: a
    cyclic 128 on ``va[i + ii]``, i a multiple of 32, gets II 16 where cyclic 16 gets
    1, and only its LUTs were named)."""
    pragma_only = am.array.pragma_only
    reached = search.reached(kept, proof, as_written=not pragma_only)
    missed = {g.loop: reached[g.loop] for g in am.groups if reached[g.loop] > g.target_ii}
    if not proof.conflict_free or not missed:
        return []
    loops = ", ".join(f"{loop} at II {ii}" for loop, ii in sorted(missed.items()))
    routed = search.reached(better.banking, better.proof)
    helps = (not any(routed[loop] > ii for loop, ii in missed.items())
             and any(routed[loop] < ii for loop, ii in missed.items()))
    how = "" if pragma_only else ", routing those lanes"
    fix = (f"; --replace-partitions banks it as {better.banking.describe()}{how}, "
           f"reaching II {ii_text((loop, routed[loop]) for loop in sorted(missed))}"
           if better.proof.conflict_free and helps else "")
    return [warning_text(am.array.partitions[0].coord, (
        f"the array_partition pragmas of {am.array.name} are conflict-free, but its "
        "references stay as written and the banks of some change with the iteration "
        "(each such lane takes a port of every bank): with these pragmas Vitis "
        f"schedules {loops}{fix}"))]


def _wasteful(kept: Cost, better: Answer) -> bool:
    """A proven conflict-free banking costs clearly less than the user's: it ranks
    before it (:class:`.space.Cost`) with fewer BRAM18K or a WASTE_RATIO-th of the
    LUTs, or whatever its BRAM18K it needs a WASTE_RATIO-th of the LUTs and of the
    banks x copies (the note gives both costs: the user weighs the trade)."""
    ours = better.cost
    logic = WASTE_RATIO * ours.lut < kept.lut
    return better.proof.conflict_free and (
        (ours < kept and (ours.bram18k < kept.bram18k or logic))
        or (logic and WASTE_RATIO * ours.physical_banks < kept.physical_banks))


def _waste_note(array, kept: Cost, better: Answer, bound: int) -> str:
    return warning_text(array.partitions[0].coord, (
        f"the array_partition pragmas of {array.name} use {kept.physical_banks} banks "
        f"({scheme_from_pragmas(array).describe().split(':')[0]}) and cost "
        f"{kept.bram18k} BRAM18K and {kept.lut} LUTs (fitted model); "
        f"{better.banking.describe()}, with {better.cost.physical_banks} banks (lower "
        f"bound {bound}), costs {better.cost.bram18k} BRAM18K and {better.cost.lut} "
        "LUTs; --replace-partitions uses it, or one memory where the emitted code's "
        "II is no lower with banks"))


def _flat_note(am: ArrayModel, search: Search, banking: Banking, proof: Proof,
               options: Options) -> list[str]:
    """The note on a pragma-only array whose per_dim ``banking`` costs more banks and
    logic than a flat scheme would if its text could change: the cheapest banking of
    the array freed of that (not pragma-only: the emission would route its lanes),
    compared as the banks themselves cost (:func:`_hardware`), within
    :data:`NOTE_CANDIDATES` pre-checked candidates and :data:`NOTE_PROOFS` proven."""
    kept = _hardware(search.cost(banking))
    # a flat scheme has two banks or more (one bank is no scheme of its own)
    if proof.conflict_free and kept < _hardware(
            search.screen.flat_floor(max(search.bound, 2))):
        return []
    array = am.array
    free_array = replace(array, interface=False, functions=(), header=False,
                         file_scope=False, kept_reference=None, member=None)
    try:
        free = Search(replace(am, array=free_array), search.shapes, search.bound,
                      options, NOTE_PROOFS, twin=search).run(options.families,
                                                              budget=NOTE_CANDIDATES)
    except (ProofTimeout, TimeUp):
        return []  # the note compares with a flat scheme; the banking stands
    if (free.banking.scheme.kind != "flat" or not free.proof.conflict_free
            or (proof.conflict_free and kept <= _hardware(free.cost))):
        return []
    return [warning_text(array.coord, (
        f"{'interface ' if array.interface else ''}array {array.name} keeps a per_dim "
        f"scheme ({banking.describe()}) so {_kept_text(array)} unchanged; a flat scheme "
        f"would be cheaper ({free.banking.describe()})"))]


def _kept_text(array) -> str:
    """What keeps a pragma-only array's text as it is, ending in "is" (the note says
    "so ... is unchanged")."""
    if array.kept_reference is not None:
        return f"its references stay as written ({array.kept_reference}), and that is"
    if array.interface:
        return "the top function's signature is"
    if array.functions:
        return f"the text of {', '.join(array.functions)}, shared by every call, is"
    if array.member is not None:
        return "the struct that declares it as a field is"
    if array.header:
        return "its declaration in a header is"
    return "its declaration at file scope, which other functions may use, is"


def _hardware(cost: Cost) -> Cost:
    """``cost`` without the scheduling rule's lanes and the interface's ports: what the
    banks themselves cost.  (The freed array of :func:`_flat_note` is no interface, so
    its cost counts no ports: kept with its ports, an interface array's banking lost
    to any flat scheme, and the note called N=3 at 4,822 LUTs cheaper than block 4 at
    2,713.)"""
    return replace(cost, rule_lanes=0, phased_lanes=0, interface_ports=0)


def ii_text(achieved: Iterable[tuple[str, int]]) -> str:
    """Per-loop IIs in prose: ``4 in loop L95``, ``2 in loop a, 32 in loop b``."""
    return ", ".join(f"{ii} in loop {loop}" for loop, ii in achieved)


def copies_evidence(am: ArrayModel, banking: Banking) -> str:
    """How the reads pick their copy, per read reference (by its location)."""
    if banking.copies == 1:
        return ""
    where = {a.ref_id: a.coord for g in am.groups for a in g.accesses if a.kind == "read"}
    reads = [f"{where[r]} reads copy {E.pretty(e)}" for r, e in banking.read_copy if r in where]
    return f"; {banking.copies} copies, writes to all: " + ", ".join(reads)


def _what_fails(am: ArrayModel) -> str:
    """What no banking reached: conflict-free ports, or, where the emitted code keeps
    some loop's references as written (``CycleGroup.direct``), the targets under the
    scheduling rule (a lane whose bank changes with the iteration there takes a port
    of every bank, so a banking conflict-free in ports alone may miss them; every
    loop of a pragma-only array).  A run-time size that moves an index there
    (:func:`moving_sizes`) is named, with the fix: a bank that moves with it is no
    compile-time value either, though it stays put from one iteration to the next."""
    groups = [g for g in am.groups if g.direct or am.array.pragma_only]
    if not groups:
        return "is conflict-free"
    direct = sorted({g.loop for g in groups})
    sizes = " and ".join(size_words(s) for s in moving_sizes(groups))
    why = (f"a lane whose bank changes with the iteration, or depends on the run-time "
           f"value of {sizes} (the same in every iteration, unknown at compile time), "
           f"takes a port of every bank; a `switch` with one case per residue of {sizes} modulo the banks, "
           "each case's subscripts at compile-time offsets, or a local copy of the "
           "array, gives each lane a bank of its own") if sizes else (
        "a lane whose bank changes with the iteration takes a port of every bank")
    return (f"reaches every target II where the HLS tool sees the references as written "
            f"(loop {', '.join(direct)}: {why})")


def moving_sizes(groups, dims: frozenset[int] | None = None) -> list[str]:
    """The run-time sizes (``CycleGroup.sizes``: one value per run) with a coefficient
    in some lane's affine index of ``groups`` (in one of the dimensions ``dims``, every
    one when None): under ``cyclic B`` the bank of ``8*i + offset + m`` is ``(offset
    + m) mod B``, the same in every iteration yet unknown to the HLS tool."""
    moving = set()
    for g in groups:
        for a in g.accesses:
            forms = [E.affine_form(e) for d, e in enumerate(a.index)
                     if e is not None and (dims is None or d in dims)]
            moving |= {v for f in forms if f is not None for v, k in f[0].items()
                       if k and v in g.sizes}
    return sorted(moving)
