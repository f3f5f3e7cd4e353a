"""Loop bounds, trip counts and wrap-around.

From a header's start, limit and step: the inclusive bound (``i < UB`` is ``UB - 1``),
the trip count, and the checks that the iterator never wraps its type (an unsigned
``i >= 0`` never fails) and that the condition holds at the start.  Part of
:class:`.loops.LoopLowering`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Mapping

from .. import expr as E
from ..errors import KernelError
from ..ir import GUARD_SOURCE
from .cexpr import Bound, Scope, fold, interval, min_max_terms, quasi_affine
from . import cnodes as N
from . import fresh as F
from . import interfaces as I
from .loopheaders import _compared, _converts_to_unsigned, _limit, _Uncountable


UNIT_STEPS = (1, -1)



class TripLowering:
    """A loop's bounds, trip count and wrap-around checks (a :class:`.loops.LoopLowering` part)."""


    def _counted_down_start(self, node: N.For, var: str, stop: int
                            ) -> tuple[str, N.Node, bool]:
        """``(iterator, its first value, declared in the header)`` of a loop that
        counts down in its condition (:func:`_counted_down`): the first iteration sees
        the start less one, or the start itself when the condition follows the body
        (``do { ... } while (--m)``: m = start, ..., stop).  C ends it only when the start
        is at least ``stop`` (else it counts down past zero), which must follow from the
        bounds."""
        if node.init is None:
            start, declared = N.Id(node.cond.coord, -1, -1, var), False
        else:
            chosen, start, declared = self._loop_init(node.init, node.cond)
            if chosen != var:
                raise _Uncountable(node.cond.coord, "the condition counts down another "
                                                    "variable than the header sets")
        value = quasi_affine(start, self._scope())
        low = None if value is None else interval(value, self._ranges)[0]
        if low is None or low < stop:
            raise _Uncountable(node.cond.coord, f"'{var}' may start below {stop}, where "
                                                "the loop would count down past zero")
        if node.post_test:
            return var, start, declared
        first = N.BinaryOp(start.coord, -1, -1, "-", start, N.Constant(start.coord, -1, -1, 1))
        return var, first, declared

    def _check_wraps(self, var: str, var_type: N.IntType | None, init: tuple[E.Expr, ...],
                     step: int, trip: E.Expr | None, cond: N.Node) -> None:
        """After its last iteration the iterator steps to ``init + step * trip``, the
        value that ends the loop; where its type cannot hold that value it wraps to a
        value the condition may accept, and in C the loop goes on (``for (uint8_t i =
        0; i < 300; i++)`` and ``for (unsigned i = 9; i >= 0; i--)`` never end): a
        located error rather than a trip count that C does not run.  An unsigned
        iterator wraps modulo 2^w (C11 6.2.5p9); where the condition fails at the
        wrapped value, the loop ends there after the iterations modelled
        (``for (size_t i = 15; i != (size_t)-1; --i)``: 0 - 1 is SIZE_MAX, 16 trips)."""
        if var_type is None or trip is None or len(init) != 1:
            return
        end = E.add(init[0], E.scale(step, trip))  # n - (n + 1) is -1 for every n
        if not isinstance(end, E.Const) or var_type.low <= end.value <= var_type.high:
            return
        if not var_type.signed and _holds_at(cond, var, end.value % (1 << var_type.width),
                                             self._scope()) is False:
            return
        kind = f"{'' if var_type.signed else 'un'}signed {var_type.width}-bit"
        raise KernelError(cond.coord, (
            f"loop iterator '{var}' ({kind}) cannot take the value that would end this "
            f"loop, {end.value} (outside {var_type.low}..{var_type.high}): it wraps around "
            f"instead, and in C the loop goes on (it may never end); give '{var}' a wider "
            "type or change the bound"))

    def _record_trips(self, node: N.For, name: str, most: int | None) -> None:
        """The fresh trip count ``name`` of a data-dependent loop is one size for
        every run of the loop, while each run (in each iteration of the loops around
        it) takes a count of its own: bounded by the arrays it indexes it took the
        least of those (an insertion sort's inner loop 1 trip, not 15), and the model
        lost the iterations of the other runs.  Its range is the ``most`` trips in
        which any run may access an element (:meth:`_guarded_trips`,
        :meth:`_guarded_accesses`), over every lowering of its text; one lowering
        without a bound (None) gives the range back to the arrays, as before any
        guard."""
        if name not in self._condition_trips:  # the range and source before any guard
            self._condition_trips[name] = (0, self._ranges[name],
                                           self._size_sources.get(name))
        seen, (low, known), source = self._condition_trips[name]
        most = None if None in (most, seen) else max(most, seen)
        self._condition_trips[name] = (most, (low, known), source)
        if most is None:  # some run is unguarded: as before any guard
            self._ranges[name] = (low, known)
            if source is None:
                self._size_sources.pop(name, None)
            else:
                self._size_sources[name] = source
        elif (source or "").startswith("LOOP_TRIP"):
            self._ranges[name] = (low, min(most, known))
        else:
            self._ranges[name] = (low, most)
            self._size_sources[name] = (f"{GUARD_SOURCE}the loop's condition at "
                                        f"{node.cond.coord} and the elements its "
                                        "iterations access")

    def _trips(self, node: N.For) -> E.Expr:
        """A fresh size for the number of iterations of a loop whose condition
        depends on data (:mod:`.fresh`): LOOP_TRIPCOUNT bounds it, else it stays
        unbounded where no on-chip access depends on it (:mod:`arraypart.poly.sizes`).
        ``do { ... } while (0)`` makes one pass, which a ``break`` only cuts short."""
        kind = "do" if node.post_test else "loop"
        name = f"trips of {kind}{F.NAME_MARK}{node.coord.line}:{node.coord.col}"
        if name not in self._sizes:
            self._sizes[name] = node.coord
            if node.post_test and fold(node.cond, self._scope()) == 0:
                self._ranges[name] = (1, 1)
                self._size_sources[name] = "its condition, false after the first pass"
            else:
                self._ranges[name] = (1 if node.post_test else 0, None)
        return E.var(name)

    def _bound_sizes(self, init: tuple[E.Expr, ...], bound: tuple[E.Expr, ...], step: int,
                     header: list[N.Node]) -> None:
        """A ``LOOP_TRIPCOUNT max=M`` bounds each size the loop's span depends on
        (:func:`.interfaces.tripcount_bound`), above or below: the user's word that
        the loop runs at most M times, taken alike where the span is affine in the
        size (``i < 20 - n``: n >= 12) and where it is a fresh size of its own (``i <
        m`` with ``m = n * n``: m <= M)."""
        found = I.tripcount(self._pragmas, header)
        if found is None or len(init) != 1 or len(bound) != 1:
            return
        trips, pragma = found
        span = E.add(bound[0], E.scale(-1, init[0]))
        if step < 0:
            span = E.scale(-1, span)
        for name in sorted(E.variables(span) & set(self._sizes)):
            others = {k: v for k, v in self._ranges.items() if k != name}
            claimed = I.tripcount_bound(span, name, step, trips, others)
            if claimed is None:
                continue
            known = self._ranges[name]
            narrowed = (I.extreme(max, claimed[0], known[0]),
                        I.extreme(min, claimed[1], known[1]))
            if narrowed != known:
                self._ranges[name] = narrowed
                self._size_sources[name] = (f"LOOP_TRIPCOUNT max={trips} at "
                                            f"{self._pragmas.coord(pragma)}")


    def _iterator_range(self, init: tuple[E.Expr, ...], bound: tuple[E.Expr, ...],
                        step: int, ranges: Mapping[str, Bound] | None = None) -> Bound:
        """An interval holding the iterator's values: counting up it is at least every
        start and at most every (inclusive) bound, counting down the reverse (the
        variables in ``ranges``, by default those known here)."""
        ranges = self._ranges if ranges is None else ranges
        starts = [interval(t, ranges) for t in init]
        limits = [interval(t, ranges) for t in bound]
        below, above = (starts, limits) if step > 0 else (limits, starts)
        lows = [b[0] for b in below if b[0] is not None]
        highs = [b[1] for b in above if b[1] is not None]
        return (max(lows) if lows else None, min(highs) if highs else None)

    def _loop_bounds(self, op, start, limit, step, cond, body, var, var_type):
        """(init terms, inclusive bound terms): a max of starts and a min of limits
        when the loop counts up, a min of starts and a max of limits when it counts down;
        a start or limit that is none of these, a fresh size (:meth:`_fresh_size`).
        ``body``: the loop's statements and header steps.  An unsigned iterator
        (``var`` of ``var_type``) counting down under ``<`` or ``<=`` runs down to 0 and ends
        where it wraps around (:meth:`_wrapped_down`)."""
        increasing = step > 0
        different = op == "!="
        if different:
            if step not in UNIT_STEPS:
                raise KernelError(cond.coord, "a '!=' loop condition needs a step "
                                                    "of +1 or -1")
            op = "<" if increasing else ">"
        wraps = not increasing and op in ("<", "<=")
        if not wraps and op not in (("<", "<=") if increasing else (">", ">=")):
            raise KernelError(cond.coord, f"loop condition '{op}' does not match "
                                                f"the loop's step {step:+d}")
        scope = self._scope()
        init = min_max_terms(start, "max" if increasing else "min", scope)
        if wraps:
            if init is not None and not all(isinstance(e, E.Const) for e in init):
                init = min_max_terms(N.unconverted(start), "min", scope)  # S, not S mod 2^w
            self._wrapped_down(op, init, step, cond, var, var_type)
            return init, (E.const(var_type.low),)
        if init is None:
            init = self._fresh_size(start, "start", body, upper=not increasing)
        bound = min_max_terms(limit, "min" if increasing else "max", scope)
        if different and not increasing and bound is not None:
            bound = _below_zero(bound, var_type)
        if bound is None and increasing:
            bound = self._product_size(limit)
        if bound is None:
            bound = self._fresh_size(limit, "bound", body, upper=increasing)
        if step not in UNIT_STEPS and len(init) != 1:
            raise KernelError(start.coord, "a strided loop needs a single start")
        if different:
            _check_reaches(init, bound, increasing, cond)
        shift = {"<": -1, ">": 1}.get(op, 0)
        return init, tuple(E.add(b, E.const(shift)) for b in bound)

    def _wrapped_down(self, op: str, init: tuple[E.Expr, ...] | None, step: int,
                      cond: N.Node, var: str, var_type: N.IntType | None) -> None:
        """Accept ``for (unsigned i = S; i < B; i -= k)``, whose condition holds at
        every value from its start down to 0, where C ends it as the iterator wraps
        around (C11 6.2.5p9): the iterator unsigned, the condition true at the start
        ``S`` (a start that fails it runs no iteration) and false at ``S mod k - k``
        wrapped, the value the step after the last iteration leaves (``for (unsigned
        i = 15; i < 16; i--)``: i = 15 .. 0, then UINT_MAX fails it).  A start that is
        no constant steps by 1 and passes the test wherever it is at least 0, and fails
        it where it wraps (:func:`_start_refusal`): there the model from ``S < 0`` runs
        no iteration either.  The loop is then ``i >= 0`` stepping from S; any other is
        a located error."""
        scope = self._scope()
        first = init[0] if init is not None and len(init) == 1 else None
        if var_type is None or var_type.signed:
            why = "its iterator is not unsigned, so it does not wrap around"
        elif (refusal := _start_refusal(cond, var, first, step, var_type, scope)):
            why = refusal
        elif _holds_at(cond, var, (first.value % -step if isinstance(first, E.Const) else 0)
                       + step + (1 << var_type.width), scope) is not False:
            why = (f"the condition still holds where '{var}' wraps around below 0, so "
                   "in C the loop goes on (it may never end)")
        else:
            return
        raise KernelError(cond.coord, f"loop condition '{op}' does not match the "
                                      f"loop's step {step:+d}: {why}")



def _implied_affine(e: E.Expr) -> tuple[dict[str, int], int] | None:
    """An affine ``a`` (integer coefficients) with ``e >= 0`` implying ``a >= 0``: an
    affine upper bound of ``e``, scaled to integers (``floor(x / q) <= x / q``,
    ``floor(x / q) >= (x - q + 1) / q``, ``0 <= x mod q <= q - 1``), so that
    ``i + floor(k / 2) <= n - 1`` bounds ``k``.  None where a term has no such
    bound."""
    bound = _upper_bound(e, Fraction(1))
    if bound is None:
        return None
    coeffs, const = bound
    scale = math.lcm(*(f.denominator for f in list(coeffs.values()) + [const]))
    return ({v: int(k * scale) for v, k in coeffs.items() if k},
            math.floor(const * scale))


def _upper_bound(e: E.Expr, factor: Fraction
                 ) -> tuple[dict[str, Fraction], Fraction] | None:
    """An affine upper bound of ``factor * e`` (rational coefficients)."""
    if isinstance(e, E.Const):
        return {}, factor * e.value
    if isinstance(e, E.Var):
        return {e.name: factor}, Fraction(0)
    if isinstance(e, E.Scale):
        return _upper_bound(e.arg, factor * e.factor)
    if isinstance(e, E.Add):
        coeffs: dict[str, Fraction] = {}
        const = Fraction(0)
        for term in e.terms:
            bound = _upper_bound(term, factor)
            if bound is None:
                return None
            for v, k in bound[0].items():
                coeffs[v] = coeffs.get(v, Fraction(0)) + k
            const += bound[1]
        return coeffs, const
    if isinstance(e, E.FloorDiv):
        bound = _upper_bound(e.arg, factor / e.divisor)
        if bound is None:
            return None
        slack = -factor * (e.divisor - 1) / e.divisor if factor < 0 else Fraction(0)
        return bound[0], bound[1] + slack
    if isinstance(e, E.Mod):
        return {}, factor * (e.modulus - 1) if factor > 0 else Fraction(0)
    return None


def _check_reaches(init: tuple[E.Expr, ...], bound: tuple[E.Expr, ...], increasing: bool,
                   cond: N.Node) -> None:
    """A ``!=`` loop whose constant start lies past its constant bound in the direction
    of its step (``for (uint8_t j = 255; j != 0; j++)``) reaches the bound only when
    the iterator wraps around (or never): a located error, not the ``<`` loop of no
    trip it would be read as."""
    if len(init) != 1 or len(bound) != 1 or not all(
            isinstance(e, E.Const) for e in (init[0], bound[0])):
        return
    start, stop = init[0].value, bound[0].value
    if (start > stop) if increasing else (start < stop):
        raise KernelError(cond.coord, (
            f"this '!=' loop starts at {start}, past {stop} in the direction of its step: "
            "the iterator reaches it only by wrapping around its type (or never), which "
            "arraypart does not model; write the loop over the values it runs"))


def _below_zero(bound: tuple[E.Expr, ...], var_type: N.IntType | None
                ) -> tuple[E.Expr, ...]:
    """The limit of a ``!=`` loop that counts an unsigned iterator down: its type's
    largest value (``SIZE_MAX``, ``UINT_MAX``, ``~0u``) is where the step after 0
    leaves it, so it stands for -1 (``i > -1``: i runs down to 0); any other limit as
    it is.  :meth:`LoopLowering._check_wraps` checks that the condition fails there."""
    if var_type is None or var_type.signed or len(bound) != 1 or not isinstance(
            bound[0], E.Const) or bound[0].value != var_type.high:
        return bound
    return (E.const(-1),)


def _holds_at(cond: N.Node, var: str, value: int, scope: Scope) -> bool | None:
    """Whether the loop condition ``cond`` holds with its iterator ``var`` at
    ``value`` (a value of its type) for every value of the sizes: folded with C's
    conversions and comparisons, or, where it compares ``var`` with a limit that is
    no constant, at both ends of the limit's interval (:func:`_limit`); None where
    neither tells."""
    at = Scope(scope.iterators - {var}, scope.constants, scope.ranges,
               {**scope.temporaries, var: E.const(value)})
    folded = quasi_affine(cond, at)
    if isinstance(folded, E.Const):
        return bool(folded.value)
    found = _limit(cond, var, scope)
    if found is None:
        return None
    op, (low, high) = found[0], interval(found[1], scope.ranges)
    low, high = -math.inf if low is None else low, math.inf if high is None else high
    if op in ("==", "!="):
        if low == high == value:
            return op == "=="
        return op == "!=" if not low <= value <= high else None
    ends = {_compare(op, value, low), _compare(op, value, high)}
    return ends.pop() if len(ends) == 1 else None


# Why a count-down to the wrap whose start may fail its test is refused.
UNKNOWN_START = ("the condition is not known to hold at its start (a start that fails it "
                 "runs no iteration)")


def _start_refusal(cond: N.Node, var: str, start: E.Expr | None, step: int,
                   var_type: N.IntType, scope: Scope) -> str | None:
    """Why the model ``start`` down to 0 of the unsigned ``var`` (w bits) is not the
    loop C runs, or None when it is.  A constant start: the test holds there.  Else
    the step is -1, the test ``var < L`` (``<=``) and ``d = S - L`` at most -1 (0), so
    it holds at every start ``S >= 0``; a start ``S < 0`` begins C's loop at ``S mod
    2^w >= 0``, which fails the test where ``L <= 0`` (``L < 0``), as the model runs no
    iteration: so where ``S >= -1`` (-1 wraps to the type's largest value, which the
    wrap's own test judges) or ``d`` is at least -1 (0) everywhere (``uint8_t i = n -
    1; i < n``, compared in int: n <= 0 runs nothing).  A test that converts a signed
    ``L`` to an unsigned type (``unsigned i = n - 1; i < n`` with an int n) makes a
    negative ``L`` 2^w or more larger, which the wrapped start passes: C then runs
    from there past every array, a refusal that names the value."""
    if isinstance(start, E.Const):
        return None if _holds_at(cond, var, start.value, scope) else UNKNOWN_START
    found = _compared(cond, var)
    limit = None if found is None else quasi_affine(N.unconverted(found[1]), scope)
    if step != -1 or start is None or limit is None or found[0] not in ("<", "<="):
        return UNKNOWN_START
    strict = found[0] == "<"
    least, most = interval(E.add(start, E.scale(-1, limit)), scope.ranges)
    if most is None or most > (-1 if strict else 0):
        return UNKNOWN_START
    lowest = interval(start, scope.ranges)[0]
    if lowest is not None and lowest >= -1:
        return None
    converts = _converts_to_unsigned(found[1])
    if least is not None and least >= (-1 if strict else 0) and not converts:
        return None
    if not converts:
        return UNKNOWN_START
    return _negative_limit(found[1], limit, start, var, var_type, scope) or UNKNOWN_START


def _negative_limit(limit_node: N.Cast, limit: E.Expr, start: E.Expr, var: str,
                    var_type: N.IntType, scope: Scope) -> str | None:
    """The refusal of a test that converts ``limit`` to the unsigned type of
    ``limit_node`` where ``limit`` may be -1: at the size value that makes it -1, the
    wrapped start and the converted limit; None where ``limit`` is no size plus a
    constant, or its range keeps it from -1."""
    form = E.affine_form(limit)
    if form is None or len(form[0]) != 1 or list(form[0].values()) != [1]:
        return None
    (name,) = form[0]
    value = -1 - form[1]
    low, high = scope.ranges.get(name, (None, None))
    if (low is not None and value < low) or (high is not None and value > high):
        return None
    first = E.simplify(E.substitute(start, {name: E.const(value)}))
    if not isinstance(first, E.Const):
        return None
    width = limit_node.to.width
    return (f"at {name} = {value} '{var}' starts at {first.value % (1 << var_type.width)} "
            f"(the start wrapped to {var_type.width} bits) and the test compares it with "
            f"{(1 << width) - 1} ({name} converted to unsigned {width}-bit), which it "
            f"passes: C runs the loop from there down to 0, past every array; bound "
            f"'{name}' below (assert({name} >= 0), an if that returns, or an unsigned type)")


def _compare(op: str, a: int, b: int) -> bool:
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
