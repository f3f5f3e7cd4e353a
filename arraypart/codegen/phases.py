"""Phase switches: compile-time banks for arrays whose text must stay.

A pragma-only array (an interface, an array that a sub-function's text touches, a
header's table) keeps its references as written, so where its banks rotate in a
pipelined loop it cannot get bank-centric code (:mod:`.bankcentric`).  Under
``cyclic B`` on dimension ``d`` the bank of a subscript ``x_d = a*i + r`` (``i`` the
pipelined loop's iterator or that of a loop around it, ``r`` free of ``i``) is
``(a*i + r) mod B``: ``i`` steps by ``s``, so it rotates with period ``B / gcd(a*s, B)``
in iterations, ``P_d = s * B / gcd(a*s, B)`` in values of ``i`` (1 when it does not
rotate; the search's :func:`arraypart.banking.space.phases` counts iterations).  With
``P = lcm_d P_d`` and ``i >= 0`` (C's ``/`` and ``%`` are floor there)::

    a*i = a*P*(i/P) + a*(i % P)        and        a*P = 0 (mod B)

so in the iterations with ``i % P == p`` the subscript

    a*P*(i/P) + a*p + (x_d - a*i)

names the same element, and its bank ``(a*p + r) mod B`` no longer depends on ``i``.
Done for every iterator ``i_1 .. i_n`` whose banks rotate (the loops around first,
the pipelined loop last; each ``for`` of the same function text), each bank is a
compile-time value in each unrolled lane and each of the ``P_1 * ... * P_n`` phases
(checked with :mod:`.ranges`, as the scheduling rule sees it); only the phases
``i`` reaches get a case (``i = 0, 32, ..`` under ``P = 128``: 4 of them).  The statement of the
loop body that holds the references is emitted once per phase, ``switch (c) { case
p: { S_p } break; ... }`` with ``c = (..(i_1 % P_1) * P_2 + i_2 % P_2)..) * P_n +
i_n % P_n``; the rewrite is an identity on every element, whatever the banking, so
shared text stays right for every call.  Loop labels in the copies get a ``_p<k>``
suffix (a label is unique in its function).

A run-time size that moves a bank is phased the same way, outermost, where it is an
unsigned scalar argument of the top function that its text never writes
(:class:`SizeVar`: ``data[8*i + offset + m]`` under ``cyclic 8``, ``switch (offset %
8)``): its value is the same in every iteration and never negative, so
``a*P*(offset/P) + a*p + (x_d - a*offset)`` names the same element when ``offset % P
== p``.

A statement qualifies when no other edit of the emitted text falls inside it (its
references to other arrays are copied into every case as written: one site per phase,
and one phase runs per iteration), its phased references are written out (not in a
macro's text), it calls none of the file's functions (each case would inline its own
copy), declares no ``static`` (each copy would be its own), and holds no ``goto``,
``return``, or ``break`` or ``continue`` of a loop or ``switch`` around it (a
``switch`` would capture or change them).  A declaration qualifies when it declares
one scalar, ``T v = e;``: ``T v;`` goes before the switch and ``v = e;`` in each
case, so that ``v`` outlives the cases.
"""

from __future__ import annotations

import bisect
import textwrap
from dataclasses import dataclass
from math import gcd, lcm, prod

from .. import expr as E
from ..banking.solution import ArraySolution, Solution
from ..banking.space import MAX_LANE_PHASES, MAX_PHASES
from ..errors import Coord
from ..frontend import cnodes as N
from ..frontend import scalars as S
from ..frontend.declarations import SCALAR_KINDS
from ..ir import Kernel, Loop
from ..scheme import Scheme, index_var
from ..sourcetext import KEEP_BYTES
from . import ranges
from .bankcentric import (boxed, constant_loop, found_accesses, fresh, lane_env,
                          needs_routing, pipelined_loops_around)
from .textedit import MAX_LINE, Edit, apply, statement_end

_PHASE_QUOTIENT = "__phase_q"  # the new loop-free variable i/P in the constness check
_PAD = "    "  # a case's statements are one level deeper than the switch (or a tab more)


@dataclass(frozen=True, slots=True)
class SizeVar:
    """A run-time size phased like an iterator (module doc): ``var``, an unsigned
    scalar argument of the top function (:class:`arraypart.ir.Param`) that the top's
    text never writes, in ``low..high``; a step of 1."""

    var: str
    low: int
    high: int
    step: int = 1


@dataclass(frozen=True, slots=True)
class PhasedLoop:
    """A pipelined loop whose references to ``arrays`` are emitted per phase of the
    variables of ``loops`` (the run-time sizes that move a bank, the loops around it
    that rotate one, then ``loop``), each with its period in ``periods``."""

    loop: Loop
    arrays: tuple[str, ...]
    loops: tuple[Loop | SizeVar, ...]
    periods: tuple[int, ...]
    coefficients: tuple  # ((ref coord, dim, k), a): loops[k]'s iterator's coefficient
    reached: tuple[frozenset[int], ...]  # per loop, the residues its iterator takes

    @property
    def period(self) -> int:
        """The number of phases (cases)."""
        return prod(self.periods)

    @property
    def places(self) -> frozenset[Coord]:
        """The coordinates of the phased references."""
        return frozenset(coord for (coord, _, _), _ in self.coefficients)

    def coefficient(self, coord: Coord, dim: int, k: int) -> int:
        """The coefficient of ``loops[k]``'s iterator in dimension ``dim`` of the
        reference at ``coord`` (0: none there)."""
        return dict(self.coefficients).get((coord, dim, k), 0)

    @property
    def cases(self) -> tuple[int, ...]:
        """The cases some iteration reaches: each iterator's residues modulo its period
        (``reached``, :func:`_residues`; a loop from 0 to 2 under period 16 reaches 3
        phases, ``i = 32*r; ..; i += 32`` under period 128 reaches 4)."""
        return tuple(case for case in range(self.period)
                     if all(p in r for r, p in zip(self.reached, self.phase(case))))

    def phase(self, case: int) -> tuple[int, ...]:
        """Each iterator's residue in ``case`` (mixed radix, the last loop fastest)."""
        out = []
        for period in reversed(self.periods):
            out.append(case % period)
            case //= period
        return tuple(reversed(out))


def _residues(loop: Loop | SizeVar, period: int, strides) -> frozenset[int]:
    """``{v mod period}`` over the values ``o + s*k`` of ``loop``'s iterator ``v``
    (``o`` its start, ``s`` its step); for a size, over ``low..high``.  ``o = c +
    sum_w c_w*w`` affine: an iterator ``w`` of ``strides`` is ``o_w + s_w*t`` with ``o_w`` a constant, any other ``w``
    any integer, so ``v = base (mod g)`` with ``base = c + sum c_w*o_w`` and ``g =
    gcd(period, s, c_w*s_w or c_w)``: the residues ``base + g*m``.  When ``o`` is a
    constant and so is the bound, only those of the first trips (at most ``period``).
    Every residue when the start is not affine or is one of several."""
    if isinstance(loop, SizeVar):
        return frozenset(v % period for v in range(loop.low, min(
            loop.high, loop.low + period - 1) + 1))
    if len(loop.init) != 1 or E.affine_form(loop.init[0]) is None:
        return frozenset(range(period))
    coefficients, base = E.affine_form(loop.init[0])
    modulus = gcd(period, loop.step)
    for w, c in coefficients.items():
        origin, step = strides.get(w, (None, 1))
        if isinstance(origin, E.Const):
            base += c * origin.value
        else:
            step = 1
        modulus = gcd(modulus, c * step)
    bound = loop.bound[0] if len(loop.bound) == 1 else None
    if coefficients or not isinstance(bound, E.Const):
        return frozenset((base + modulus * m) % period for m in range(period // modulus))
    trips = max(0, (bound.value - base) // loop.step + 1)
    return frozenset((base + k * loop.step) % period for k in range(min(trips, period)))


def phase_edits(kernel: Kernel, solution: Solution, contexts, taken: set[str],
                others: list[Edit]) -> list[Edit]:
    """The edits that emit each phased statement once per phase (module doc), none
    overlapping the edits ``others``."""
    source = kernel.source
    data = source.text.encode(errors=KEEP_BYTES)
    functions = (source.func,) + tuple(source.callees)
    for_nodes = {n.coord: n for f in functions for n in N.walk(f.body)
                 if isinstance(n, N.For)}
    called = {f.key for f in functions}
    chosen: dict[int, tuple] = {}  # id(statement) -> (statement, phased, iterators, key)
    disputed: set[int] = set()
    for phased in phased_loops(kernel, solution, contexts):
        node = for_nodes.get(phased.loop.coord)
        iterators = _iterator_names(phased, for_nodes, source.func)
        if iterators is None:
            continue
        statements = _statements(node, phased)
        if not _covered(statements, phased):
            continue
        for statement in statements:
            if not _qualifies(statement, phased, called, data) or _edited(
                    statement, others, data):
                continue
            key = (phased.arrays, phased.periods, phased.coefficients, phased.cases,
                   iterators)
            earlier = chosen.setdefault(id(statement), (statement, phased, iterators, key))
            if earlier[3] != key:
                disputed.add(id(statement))  # two calls of the text phase it apart
    return [_phase_switch(data, statement, phased, iterators, taken)
            for k, (statement, phased, iterators, _) in chosen.items() if k not in disputed]


def _iterator_names(phased: PhasedLoop, for_nodes, top: N.FuncDef
                    ) -> tuple[str, ...] | None:
    """The names the text gives the phased loops' iterators and sizes (a size's own,
    where the pipelined loop is the top function's: a callee's text names its own
    parameters); None when a loop has no
    ``for`` of the text (the pipelined one may be a function body), or one around the
    pipelined loop is not written around it in the same function, or a loop's body
    declares its iterator's name again (the phased subscripts would name the inner
    one)."""
    inner = for_nodes.get(phased.loop.coord)
    if inner is None:
        return None  # a pipelined function body: no iterator of its own
    names = []
    for lp in phased.loops:
        if isinstance(lp, SizeVar):
            if not top.body.start <= inner.start < top.body.end or any(
                    isinstance(n, N.Decl) and n.name == lp.var for n in N.walk(top.body)):
                return None  # another function's text, or a name declared again
            names.append(lp.var)
            continue
        node = for_nodes.get(lp.coord)
        name = None if node is None or node.start < 0 else _iterator_name(node)
        if name is None or not node.start <= inner.start < node.end:
            return None
        if any(isinstance(n, N.Decl) and n.name == name for n in N.walk(node.stmt)):
            return None  # a body that declares the name again hides the iterator
        names.append(name)
    return tuple(names)


def phased_loops(kernel: Kernel, solution: Solution, contexts) -> list[PhasedLoop]:
    """Every pipelined loop where the search priced a phase switch for a pragma-only
    array (:attr:`.ArraySolution.phased_loops`, its one decision:
    :func:`arraypart.banking.space.phased`) whose lanes there need one
    (:func:`.bankcentric.needs_routing`), with how to write it.  A loop whose switch
    cannot be written soundly (an iterator that may be negative, a bank that stays
    variable in some case) or would hold more than :data:`MAX_PHASES` cases gets none:
    the scheduling rule then finds the loop missing its II, and the search runs again
    without that switch (:func:`arraypart.api._retry`)."""
    solved = {s.array.name: s for s in solution.arrays}
    sizes = _phasable_sizes(kernel)
    out = []
    for loop, around in pipelined_loops_around(boxed(kernel.body), ()):
        found = list(found_accesses(loop.body, (), (), iter(range(1 << 62))))
        candidates = _moving(sizes, found) + around + (loop,)
        chosen, periods, coefficients = {}, [1] * len(candidates), {}
        for name in dict.fromkeys(f.access.array for f in found):
            sol = solved.get(name)
            if sol is None or loop.name not in sol.phased_loops or not _phasable_array(
                    sol) or not needs_routing(loop, found, name, solved, contexts):
                continue
            mine = [f for f in found if f.access.array == name]
            phase = _periods(candidates, mine, sol.banking.scheme, contexts)
            if phase is None:
                continue
            chosen[name] = mine
            periods = [lcm(a, b) for a, b in zip(periods, phase[0])]
            coefficients.update(phase[1])
        kept = [k for k, period in enumerate(periods) if period > 1]
        strides = _common_strides([f for mine in chosen.values() for f in mine], contexts)
        phased = PhasedLoop(loop, tuple(chosen), tuple(candidates[k] for k in kept),
                            tuple(periods[k] for k in kept), tuple(sorted(
                                (((c, d, kept.index(k)), a)
                                 for (c, d, k), a in coefficients.items() if k in kept),
                                key=str)), tuple(_residues(candidates[k], periods[k], strides)
                                                 for k in kept))
        lanes = sum(f.lanes for mine in chosen.values() for f in mine)
        cases = len(phased.cases)
        if chosen and 1 < phased.period and cases <= MAX_PHASES and \
                cases * lanes <= MAX_LANE_PHASES and all(
                    _constant_banks(phased, mine, solved[name].banking.scheme, contexts)
                    for name, mine in chosen.items()):
            out.append(phased)
    return out


def _phasable_sizes(kernel: Kernel) -> dict[str, SizeVar]:
    """The run-time sizes a switch may phase (:class:`SizeVar`), by name: the top's
    scalar arguments (``kernel.params`` that are no fresh size) bounded, of an
    unsigned type (so that the emitted ``offset / P``, read back, is a floor to the
    scheduling rule's check as it is to C: an ``int`` that only the arrays bound
    reads back as a truncation of any sign), that no statement of its text assigns
    or steps."""
    unsigned = {d.name for d in kernel.source.func.params if d.ctype is not None
                and d.ctype.integer is not None and not d.ctype.integer.signed}
    targets = [n.lvalue if isinstance(n, N.Assignment) else n.expr
               for n in N.walk(kernel.source.func.body) if isinstance(n, N.Assignment)
               or (isinstance(n, N.UnaryOp) and n.op in S.INCREMENT_STEPS)]
    written = {t.name for t in targets if isinstance(t, N.Id)}
    return {p.name: SizeVar(p.name, p.low, p.high) for p in kernel.params
            if p.name in unsigned and p.name not in written and p.low is not None
            and p.high is not None and p.low >= 0}


def _moving(sizes: dict[str, SizeVar], found) -> tuple[SizeVar, ...]:
    """The sizes of ``sizes`` that some index of ``found`` holds, sorted by name."""
    named = {v for f in found for e in f.access.index if e is not None
             for v in E.variables(e)}
    return tuple(sizes[v] for v in sorted(named & sizes.keys()))


def _env(context, loops) -> dict:
    """The reference's intervals (:meth:`.ranges.RefContext.env`) and those of the
    sizes among ``loops``."""
    env = context.env()
    env.update({lp.var: (lp.low, lp.high) for lp in loops if isinstance(lp, SizeVar)})
    return env


def _common_strides(found, contexts) -> dict:
    """The strides (:attr:`.ranges.RefContext.strides`) every access of ``found``
    has: the stepped iterators around the loop, with their origins."""
    common = None
    for f in found:
        strides = dict(contexts[f.access.ref_id].strides)
        common = strides if common is None else {
            v: o for v, o in common.items() if strides.get(v) == o}
    return common or {}


def _phasable_array(sol: ArraySolution) -> bool:
    return (sol.array.pragma_only and not sol.multi_port_rom and sol.banking.copies == 1
            and sol.banking.scheme.kind == "per_dim")


def _periods(loops: tuple[Loop | SizeVar, ...], mine, scheme: Scheme, contexts
             ) -> tuple[list[int], dict[tuple[Coord, int, int], int]] | None:
    """(P per loop of ``loops``, the coefficient of ``loops[k]``'s iterator per
    (reference, dimension, k)); None when a bank depends on one of them other than
    periodically, one may be negative, or an unrolled loop around a reference has
    bounds that are not constants."""
    periods, coefficients = [1] * len(loops), {}
    for f in mine:
        env = _env(contexts[f.access.ref_id], loops)
        if not f.access.regular or not all(constant_loop(lp) for lp in f.loops):
            return None
        for d, (e, part) in enumerate(zip(f.access.index, scheme.dims)):
            form = E.affine_form(e)
            if form is None:
                return None
            for k, lp in enumerate(loops):
                a = form[0].get(lp.var, 0)
                if not a or part.type == "none":
                    continue
                interval = env.get(lp.var)
                if part.type != "cyclic" or interval is None or interval[0] < 0:
                    return None
                periods[k] = lcm(periods[k], part.factor // gcd(a * lp.step, part.factor))
                coefficients[(f.access.coord, d, k)] = a
    return [p * abs(lp.step) if p > 1 else 1 for p, lp in zip(periods, loops)], coefficients


def _constant_banks(phased: PhasedLoop, mine, scheme: Scheme, contexts) -> bool:
    """Every lane's bank, with the subscripts rewritten for each phase, reduces to a
    constant (what the scheduling rule asks of the emitted references)."""
    bank = scheme.bank_expr()
    quotients = [E.var(f"{_PHASE_QUOTIENT}{k}") for k in range(len(phased.loops))]
    for f in mine:
        context = contexts[f.access.ref_id]
        env = _env(context, phased.loops)
        for k, (lp, period) in enumerate(zip(phased.loops, phased.periods)):
            env[quotients[k].name] = (0, env[lp.var][1] // period)
        for case in phased.cases:
            residues = phased.phase(case)
            mapping = {}
            for d, e in enumerate(f.access.index):
                terms = [e]
                for k, (lp, period) in enumerate(zip(phased.loops, phased.periods)):
                    a = E.affine_form(e)[0].get(lp.var, 0)
                    terms += [E.scale(a * period, quotients[k]), E.const(a * residues[k]),
                              E.scale(-a, E.var(lp.var))]
                mapping[index_var(d)] = E.simplify(E.add(*terms))
            at_ref = E.substitute(bank, mapping)
            for lane in range(f.lanes):
                value = ranges.reduce(E.substitute(at_ref, lane_env(f.loops, lane)), env,
                                      dict(context.strides))
                if not isinstance(value, E.Const):
                    return False
    return True


def _iterator_name(node: N.For) -> str | None:
    """The name the loop's text gives its iterator."""
    init = node.init
    if isinstance(init, N.DeclList) and len(init.decls) == 1:
        return init.decls[0].name
    if isinstance(init, N.Assignment) and isinstance(init.lvalue, N.Id):
        return init.lvalue.name
    return None


def _statements(node: N.For, phased: PhasedLoop) -> list[N.Node]:
    """The statements of the loop body (:func:`.cnodes.body_items`) that hold a
    reference of a phased array."""
    return [item for item in N.body_items(node.stmt) if any(
        ref.coord in phased.places for ref in N.outer_array_refs(item))]


def _covered(statements: list[N.Node], phased: PhasedLoop) -> bool:
    """Every access of a phased array is a subscripted reference that can be
    rewritten (not ``*(p + j)``, whose bank would go on rotating in every case)."""
    written = {ref.coord for st in statements for ref in N.outer_array_refs(st)}
    return phased.places <= written


def _qualifies(statement: N.Node, phased: PhasedLoop, called: set[str],
               data: bytes) -> bool:
    if statement.start < 0 or isinstance(statement, N.Pragma) or (
            isinstance(statement, (N.DeclList, N.Decl))
            and _split_declaration(statement, data) is None):
        return False
    labelled = statement
    while isinstance(labelled, N.Label):
        labelled = labelled.stmt
    if labelled is not statement and isinstance(labelled, (N.DeclList, N.Decl)):
        return False  # C++'s 'here: int v = e;' declares v for the statements after
    if N.leaves(statement):
        return False
    for n in N.walk(statement):
        if isinstance(n, N.Unsupported) and n.keyword == "goto":
            return False
        if isinstance(n, (N.Return, N.Case)) or (isinstance(n, N.Decl) and n.static):
            return False
        if isinstance(n, N.FuncCall) and n.key in called:
            return False
        if isinstance(n, N.Label) and data[n.start:n.start + len(n.name)] != n.name.encode():
            return False
    refs = N.outer_array_refs(statement)
    phased_refs = [ref for ref in refs if ref.coord in phased.places]
    # a subscript that changes state (w++): its phased text is constant only to a tool
    # that proves the counter's value
    return all(not ref.in_macro and _spelled_out(ref) and S.side_effect(ref) is None
               for ref in phased_refs) and not any(
        other is not ref and other.start <= ref.start < other.end
        for ref in phased_refs for other in refs)


def _spelled_out(ref: N.ArrayRef) -> bool:
    """``ref``'s base and subscripts lie in its own text: a reference written as a
    macro's argument has its span, but clang may place its parts in the expansion
    (their text was pasted as empty: ``ADD3([3*(i / 3) + (() - i)], ...)``)."""
    node: N.Node = ref
    while isinstance(node, N.ArrayRef):
        sub = node.subscript
        if not ref.start <= sub.start < sub.end <= ref.end:
            return False
        node = node.name
    return ref.start <= node.start < node.end <= ref.end


def _split_declaration(statement: N.Node, data: bytes) -> tuple[int, int] | None:
    """For a declaration ``T v = e;`` of one scalar (arithmetic or ``ap_`` number, not
    const, no reference), (the end of ``T v``, the offset of ``v``): its switch declares
    ``T v;`` before it and assigns ``v = e;`` in each case, so ``v`` outlives the
    cases.  None for any other declaration."""
    decls = statement.decls if isinstance(statement, N.DeclList) else (statement,)
    if len(decls) != 1:
        return None
    decl = decls[0]
    ctype = decl.ctype
    if (decl.static or decl.dims or decl.init is None or isinstance(decl.init, N.InitList)
            or decl.name_at < statement.start or ctype is None or ctype.const
            or ctype.referent is not None
            or not (ctype.ap_number or ctype.canonical_kind in SCALAR_KINDS)):
        return None
    name_end = decl.name_at + len(decl.name)
    after = data[name_end:statement.end].lstrip()  # an ap_ number's init starts at v
    if not after.startswith(b"=") or after.startswith(b"==") or any(
            word in data[statement.start:decl.name_at].split()
            for word in (b"auto", b"constexpr", b"static")):
        return None
    return name_end, decl.name_at


def _edited(statement: N.Node, others: list[Edit], data: bytes) -> bool:
    """Whether one of the edits ``others`` touches (or borders) the text that the
    statement's switch replaces."""
    start, end = _span(data, statement)
    return any(e.start <= end and start <= e.end for e in others)


def _span(data: bytes, statement: N.Node) -> tuple[int, int]:
    """The text a phase switch replaces: the statement past its ``;``, from its line's
    start when only blanks precede it."""
    end = statement_end(data, statement.end)
    start = data.rfind(b"\n", 0, statement.start) + 1
    if data[start:statement.start].strip():
        start = statement.start
    return start, end


def _phase_switch(data: bytes, statement: N.Node, phased: PhasedLoop,
                  iterators: tuple[str, ...], taken: set[str]) -> Edit:
    """The edit that replaces ``statement`` (from its line's start when only blanks
    precede it) by its switch over the phases."""
    start, end = _span(data, statement)
    indent = data[start:statement.start].decode(errors=KEEP_BYTES)
    split = _split_declaration(statement, data) if isinstance(
        statement, (N.DeclList, N.Decl)) else None
    labels = [n for n in N.walk(statement) if isinstance(n, N.Label)]
    periods = ", ".join(str(p) for p in phased.periods)
    comment = (f"arraypart: the banks of {', '.join(phased.arrays)} rotate with "
               f"{', '.join(iterators)} (period{'s' if len(iterators) > 1 else ''} "
               f"{periods}): one case per phase, each bank index a compile-time value")
    lines = [f"{indent}// {line}" for line in
             textwrap.wrap(comment, MAX_LINE - len(indent) - 3, break_on_hyphens=False)]
    if split is not None:
        lines.append(f"{indent}{data[statement.start:split[0]].decode(errors=KEEP_BYTES)};")
    lines.append(f"{indent}switch ({_case_expression(iterators, phased.periods)}) {{")
    for n, case in enumerate(phased.cases):
        renamed = {label.name: fresh(f"{label.name}_p{case}", taken) for label in labels
                   } if n else {}
        text = _phase_text(data, statement, (start, end) if split is None else (
            split[1], end), phased, iterators, phased.phase(case), renamed, indent)
        lines += [f"{indent}case {case}: {{", text if split is None else indent + text,
                  f"{_pad(indent)}{indent}break;", f"{indent}}}"]
    lines.append(f"{indent}}}")
    return Edit(start, end, "\n".join(lines), False)


def _case_expression(iterators: tuple[str, ...], periods: tuple[int, ...]) -> str:
    """``(..(i_1 % P_1) * P_2 + i_2 % P_2)..) * P_n + i_n % P_n``: the case number."""
    text = f"{iterators[0]} % {periods[0]}"
    for name, period in zip(iterators[1:], periods[1:]):
        text = f"({text}) * {period} + {name} % {period}"
    return text


def _subscript(written: str, terms: list[tuple[str, int, int, int]]) -> str:
    """A subscript ``written`` in one phase, ``terms`` (iterator, a, P, residue) for
    each phased iterator it holds: ``a*P*(i/P) + a*residue + ... + ((written) - a*i -
    ...)`` (module doc; ``written`` in parentheses, whatever its operators)."""
    parts = []
    for name, a, period, residue in terms:
        shift = a * residue
        parts.append(f"{a * period}*({name} / {period})" + (
            f" {'+' if shift > 0 else '-'} {abs(shift)}" if shift else ""))
    minus = "".join(f" {'-' if a > 0 else '+'} {'' if abs(a) == 1 else f'{abs(a)}*'}{name}"
                    for name, a, _, _ in terms)
    return " + ".join(parts) + f" + (({written}){minus})"


def _pad(indent: str) -> str:
    """One more level of ``indent``: a tab where the text indents with tabs."""
    return "\t" if "\t" in indent else _PAD


def _phase_text(data: bytes, statement: N.Node, span: tuple[int, int],
                phased: PhasedLoop, iterators: tuple[str, ...], residues: tuple[int, ...],
                renamed: dict[str, str], indent: str) -> str:
    """The text ``data[span]`` (``statement`` and the blanks before it, or the
    assignment ``v = e;`` of a split declaration) in the phase where the iterators
    leave ``residues``, one level deeper than ``indent`` (but preprocessor lines):
    phased references' subscripts rewritten (long lines broken inside them), labels
    renamed."""
    start, end = span
    lines = data[start:end].split(b"\n")
    pad = _pad(indent).encode(errors=KEEP_BYTES)
    pads = [b"" if line.startswith(b"#") else pad for line in lines]
    line_starts = [start]
    for line in lines[:-1]:
        line_starts.append(line_starts[-1] + len(line) + 1)

    def at(offset: int) -> int:  # an offset of data in the indented chunk
        row = bisect.bisect_right(line_starts, offset) - 1
        return offset - start + sum(len(pad) for pad in pads[:row + 1])

    edits = []
    for ref in N.outer_array_refs(statement):
        base, subscripts = N.ref_base_and_subscripts(ref)
        texts = []
        for d, sub in enumerate(subscripts):
            written = data[sub.start:sub.end].decode(errors=KEEP_BYTES)
            terms = [(name, phased.coefficient(ref.coord, d, k), period, residue)
                     for k, (name, period, residue)
                     in enumerate(zip(iterators, phased.periods, residues))]
            terms = [t for t in terms if t[1]]
            texts.append(_subscript(written, terms) if terms else written)
        if ref.coord not in phased.places:
            continue  # copied as written (a reference inside it may be phased)
        head = data[ref.start:base.end].decode(errors=KEEP_BYTES)
        edits.append(Edit(at(ref.start), at(ref.end),
                          head + "".join(f"[{t}]" for t in texts)))
    for label in N.walk(statement):
        if isinstance(label, N.Label) and label.name in renamed:
            edits.append(Edit(at(label.start), at(label.start + len(label.name)),
                              renamed[label.name], False))
    indented = b"\n".join(pad + line for pad, line in zip(pads, lines))
    text = apply(indented.decode(errors=KEEP_BYTES), edits)
    return "\n".join(line if line.strip() else "" for line in text.split("\n"))
