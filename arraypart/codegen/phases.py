"""Phase switches: compile-time banks for arrays whose text must stay.

A pragma-only array (an interface, an array that a sub-function's text touches, a
header's table) keeps its references as written, so where its banks rotate in a
pipelined loop it cannot get bank-centric code (:mod:`.bankcentric`).  Under
``cyclic B`` on dimension ``d`` the bank of a subscript ``x_d = a*i + r`` (``i`` the
pipelined loop's iterator, ``r`` free of ``i``) is ``(a*i + r) mod B``: it rotates
with ``i`` with period ``P_d = B / gcd(a, B)``.  With ``P = lcm_d P_d`` and ``i >= 0``
(C's ``/`` and ``%`` are floor there)::

    a*i = a*P*(i/P) + a*(i % P)        and        a*P = 0 (mod B)

so in the iterations with ``i % P == p`` the subscript

    a*P*(i/P) + a*p + (x_d - a*i)

names the same element, and its bank ``(a*p + r) mod B`` no longer depends on ``i``:
a compile-time value in each unrolled lane (checked with :mod:`.ranges`, as the
scheduling rule sees it).  The statement of the loop body that holds the references
is emitted once per phase, ``switch (i % P) { case p: { S_p } break; ... }``; the
rewrite is an identity on every element, whatever the banking, so shared text stays
right for every call.  Loop labels in the copies get a ``_p<k>`` suffix (a label is
unique in its function).

A statement qualifies when all its array references are to the phased arrays of the
loop (other arrays would get one site per phase), it calls none of the file's
functions, is no declaration (its names would not outlive the case), declares no
``static`` (each copy would be its own), and holds no ``break``, ``continue``,
``goto`` or ``return`` (a ``switch`` would capture or change them).
"""

from __future__ import annotations

import bisect
import textwrap
from dataclasses import dataclass
from math import gcd, lcm

from .. import expr as E
from ..banking.solution import ArraySolution, Solution
from ..errors import Coord
from ..frontend import cnodes as N
from ..ir import Kernel, Loop
from ..scheme import Scheme, index_var
from . import ranges
from .bankcentric import (constant_loop, found_accesses, fresh, lane_env,
                          needs_routing, pipelined_loops)
from .textedit import MAX_LINE, Edit, apply, statement_end

#: Most cases in one phase switch (each is a copy of the statement).
MAX_PERIOD = 16
#: Most (lane, phase) pairs whose bank is reduced to prove a loop's phases constant.
MAX_LANE_PHASES = 1 << 12
_ESCAPES = ("break", "continue", "goto")
_PHASE_QUOTIENT = "__phase_q"  # the new loop-free variable i/P in the constness check
_PAD = "    "  # a case's statements are one level deeper than the switch


@dataclass(frozen=True, slots=True)
class PhasedLoop:
    """A pipelined loop whose references to ``arrays`` are emitted per phase ``i % P``."""

    loop: Loop
    arrays: tuple[str, ...]
    period: int
    coefficients: tuple  # ((ref coord, dim), a): the iterator's coefficient there

    @property
    def places(self) -> frozenset[Coord]:
        """The coordinates of the phased references."""
        return frozenset(coord for (coord, _), _ in self.coefficients)

    def coefficient(self, coord: Coord, dim: int) -> int:
        """The iterator's coefficient in dimension ``dim`` of the reference at
        ``coord`` (0: none there)."""
        return dict(self.coefficients).get((coord, dim), 0)


def phase_edits(kernel: Kernel, solution: Solution, contexts, taken: set[str]
                ) -> list[Edit]:
    """The edits that emit each phased statement once per phase (module doc)."""
    source = kernel.source
    data = source.text.encode()
    functions = (source.func,) + tuple(source.callees)
    for_nodes = {n.coord: n for f in functions for n in N.walk(f.body)
                 if isinstance(n, N.For)}
    called = {f.key for f in functions}
    chosen: dict[int, tuple] = {}  # id(statement) -> (statement, phased, iterator)
    disputed: set[int] = set()
    for phased in phased_loops(kernel, solution, contexts):
        node = for_nodes.get(phased.loop.coord)
        iterator = None if node is None or node.start < 0 else _iterator_name(node)
        if iterator is None:
            continue
        statements = _statements(node, phased)
        if not _covered(statements, phased):
            continue
        for statement in statements:
            if not _qualifies(statement, phased, called, data):
                continue
            key = (phased.arrays, phased.period, phased.coefficients)
            earlier = chosen.setdefault(id(statement), (statement, phased, iterator, key))
            if earlier[3] != key:
                disputed.add(id(statement))  # two calls of the text phase it apart
    return [_phase_switch(data, statement, phased, iterator, taken)
            for k, (statement, phased, iterator, _) in chosen.items() if k not in disputed]


def phased_loops(kernel: Kernel, solution: Solution, contexts) -> list[PhasedLoop]:
    """Every pipelined loop with pragma-only arrays whose banks rotate with its
    iterator and stop rotating once split by phase."""
    solved = {s.array.name: s for s in solution.arrays}
    out = []
    for loop in pipelined_loops(kernel.body):
        if loop.unroll is not None:
            continue
        found = list(found_accesses(loop.body, (), (), iter(range(1 << 62))))
        chosen, period, coefficients = {}, 1, {}  # chosen: array -> its accesses
        for name in dict.fromkeys(f.access.array for f in found):
            sol = solved.get(name)
            if sol is None or not _phasable_array(sol) or not needs_routing(
                    loop, found, name, solved, contexts):
                continue
            mine = [f for f in found if f.access.array == name]
            phase = _period(loop, mine, sol.banking.scheme, contexts)
            if phase is None:
                continue
            chosen[name] = mine
            period = lcm(period, phase[0])
            coefficients.update(phase[1])
        lanes = sum(f.lanes for mine in chosen.values() for f in mine)
        if chosen and 1 < period <= MAX_PERIOD and period * lanes <= MAX_LANE_PHASES and all(
                _constant_banks(loop, mine, solved[name].banking.scheme, period, contexts)
                for name, mine in chosen.items()):
            out.append(PhasedLoop(loop, tuple(chosen), period,
                                  tuple(sorted(coefficients.items(), key=str))))
    return out


def _phasable_array(sol: ArraySolution) -> bool:
    return (sol.array.pragma_only and not sol.multi_port_rom and sol.banking.copies == 1
            and sol.banking.scheme.kind == "per_dim")


def _period(loop: Loop, mine, scheme: Scheme, contexts
            ) -> tuple[int, dict[tuple[Coord, int], int]] | None:
    """(P, the iterator's coefficient per (reference, dimension)); None when a bank
    depends on the iterator other than periodically, ``i`` may be negative, or an
    unrolled loop around a reference has bounds that are not constants."""
    period, coefficients = 1, {}
    for f in mine:
        interval = contexts[f.access.ref_id].env().get(loop.var)
        if (not f.access.regular or interval is None or interval[0] < 0
                or not all(constant_loop(lp) for lp in f.loops)):
            return None
        for d, (e, part) in enumerate(zip(f.access.index, scheme.dims)):
            form = E.affine_form(e)
            if form is None:
                return None
            a = form[0].get(loop.var, 0)
            if a and part.type == "cyclic":
                period = lcm(period, part.factor // gcd(a, part.factor))
            elif a and part.type != "none":
                return None
            coefficients[(f.access.coord, d)] = a
    return period, coefficients


def _constant_banks(loop: Loop, mine, scheme: Scheme, period: int, contexts) -> bool:
    """Every lane's bank, with the subscripts rewritten for each phase, reduces to a
    constant (what the scheduling rule asks of the emitted references)."""
    bank = scheme.bank_expr()
    q = E.var(_PHASE_QUOTIENT)
    for f in mine:
        context = contexts[f.access.ref_id]
        env = context.env()
        env[_PHASE_QUOTIENT] = (0, env[loop.var][1] // period)
        i = E.var(loop.var)
        for p in range(period):
            mapping = {}
            for d, e in enumerate(f.access.index):
                a = E.affine_form(e)[0].get(loop.var, 0)
                mapping[index_var(d)] = E.simplify(E.add(
                    E.scale(a * period, q), E.const(a * p), e, E.scale(-a, i)))
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
    """The statements of the loop body that hold a reference of a phased array."""
    body = node.stmt
    items = body.items if isinstance(body, N.Compound) else (body,)
    return [item for item in items if any(
        ref.coord in phased.places for ref in N.outer_array_refs(item))]


def _covered(statements: list[N.Node], phased: PhasedLoop) -> bool:
    """Every access of a phased array is a subscripted reference that can be
    rewritten (not ``*(p + j)``, whose bank would go on rotating in every case)."""
    written = {ref.coord for st in statements for ref in N.outer_array_refs(st)}
    return phased.places <= written


def _qualifies(statement: N.Node, phased: PhasedLoop, called: set[str],
               data: bytes) -> bool:
    if statement.start < 0 or isinstance(statement, (N.DeclList, N.Decl, N.Pragma)):
        return False
    for n in N.walk(statement):
        if isinstance(n, N.Unsupported) and n.keyword in _ESCAPES:
            return False
        if isinstance(n, (N.Return, N.Case)) or (isinstance(n, N.Decl) and n.static):
            return False
        if isinstance(n, N.FuncCall) and n.key in called:
            return False
        if isinstance(n, N.Label) and data[n.start:n.start + len(n.name)] != n.name.encode():
            return False
    refs = N.outer_array_refs(statement)
    return all(ref.coord in phased.places and not ref.in_macro and ref.start >= 0
               for ref in refs)


def _phase_switch(data: bytes, statement: N.Node, phased: PhasedLoop, iterator: str,
                  taken: set[str]) -> Edit:
    """The edit that replaces ``statement`` (from its line's start when only blanks
    precede it) by its switch over the phases."""
    end = statement_end(data, statement.end)
    start = data.rfind(b"\n", 0, statement.start) + 1
    indent = data[start:statement.start].decode()
    if indent.strip():
        start, indent = statement.start, ""
    labels = [n for n in N.walk(statement) if isinstance(n, N.Label)]
    period = phased.period
    comment = (f"arraypart: the banks of {', '.join(phased.arrays)} rotate with "
               f"{iterator} (period {period}): one case per phase, each bank index a "
               "compile-time value")
    lines = [f"{indent}// {line}" for line in
             textwrap.wrap(comment, MAX_LINE - len(indent) - 3, break_on_hyphens=False)]
    lines.append(f"{indent}switch ({iterator} % {period}) {{")
    for p in range(period):
        renamed = {label.name: fresh(f"{label.name}_p{p}", taken) for label in labels
                   } if p else {}
        lines += [f"{indent}case {p}: {{",
                  _phase_text(data, statement, (start, end), phased, iterator, p, renamed),
                  f"{indent}{_PAD}break;", f"{indent}}}"]
    lines.append(f"{indent}}}")
    return Edit(start, end, "\n".join(lines), False)


def _phase_text(data: bytes, statement: N.Node, span: tuple[int, int],
                phased: PhasedLoop, iterator: str, p: int, renamed: dict[str, str]) -> str:
    """The text ``data[span]`` (``statement`` and the blanks before it) in phase ``p``,
    one level deeper (but preprocessor lines): phased references' subscripts rewritten
    (long lines broken inside them), labels renamed."""
    start, end = span
    lines = data[start:end].split(b"\n")
    pads = [b"" if line.startswith(b"#") else _PAD.encode() for line in lines]
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
            a = phased.coefficient(ref.coord, d)
            written = data[sub.start:sub.end].decode()
            phase = f" + {a * p}" if p else ""
            texts.append(written if not a else
                         f"{a * phased.period}*({iterator} / {phased.period}){phase} + "
                         f"({written} - {'' if a == 1 else f'{a}*'}{iterator})")
        head = data[ref.start:base.end].decode()
        edits.append(Edit(at(ref.start), at(ref.end),
                          head + "".join(f"[{t}]" for t in texts)))
    for label in N.walk(statement):
        if isinstance(label, N.Label) and label.name in renamed:
            edits.append(Edit(at(label.start), at(label.start + len(label.name)),
                              renamed[label.name], False))
    indented = b"\n".join(pad + line for pad, line in zip(pads, lines))
    text = apply(indented.decode(), edits)
    return "\n".join(line if line.strip() else "" for line in text.split("\n"))
