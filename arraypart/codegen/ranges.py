"""Static simplification of bank and offset formulas at one reference.

Once an index ``x_d`` is replaced by the reference's affine subscript over loop
iterators, much of a bank formula is constant: under cyclic 4 the bank of
``A[4*i + k]`` is ``(4*i + k) mod 4 = k mod 4``, and with ``0 <= k < 4`` it is ``k``,
a constant in each lane HLS unrolls.  Two exact rules do this, for integer ``t`` and
an iterator interval that bounds ``r``:

    (p*t + r) mod p          = r mod p        (mod (p*t + r, p) drops multiples of p)
    floor((p*N*t + r)/p) mod N = floor(r/p) mod N
    floor((p*t + r)/p)       = t + floor(r/p)
    (a mod k*p) mod p        = a mod p
    r mod p = r - p*q  and  floor(r/p) = q   when lo(r) and hi(r) share q = floor(./p)

Iterator intervals come from the loop bounds (interval arithmetic, a superset of the
real values, so every rule stays exact).  A loop ``for (v = o; ...; v += s)`` with
|s| > 1 also gives v's stride: ``v = o + s*t``, so in a ``mod p`` (or a ``floor(./B)
mod N``, p = B*N) a term ``k*v`` with ``p | k*s`` may be replaced by ``k*o`` (the two
differ by a multiple of p): under cyclic 4 the bank of ``A[i + ii]`` in a loop
``i += 4`` is ``ii``.  A reduced ``mod``/``floor`` argument is kept
only when its interval is non-negative, the precondition of C's ``%`` and ``/`` in
:func:`arraypart.expr.to_c`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Mapping

from .. import expr as E
from ..ir import Access, If, Loop, Node, Stmt

Interval = tuple[int, int]


@dataclass(frozen=True, slots=True)
class RefContext:
    """The IR facts about one reference: its accesses and the enclosing iterators'
    intervals (None: unbounded)."""

    accesses: tuple[Access, ...]
    intervals: tuple[tuple[str, Interval | None], ...]
    strides: tuple[tuple[str, tuple[E.Expr, int]], ...] = ()

    @property
    def index(self) -> tuple[E.Expr | None, ...]:
        """The subscripts of every access made through the reference; None in a
        dimension where they differ, as where the frontend evaluated a non-affine term
        per unrolled lane (``A[i*i + r]``: lane i reads ``A[i*i + r]`` with i a
        constant), so the subscript's own text must be used there."""
        first = self.accesses[0].index
        return tuple(e if all(a.index[d] == e for a in self.accesses) else None
                     for d, e in enumerate(first))

    def env(self) -> dict[str, Interval | None]:
        return dict(self.intervals)

    def reduce(self, e: E.Expr) -> E.Expr:
        """:func:`reduce` with this reference's intervals and strides."""
        return reduce(e, self.env(), dict(self.strides))

    def interval(self, e: E.Expr) -> Interval | None:
        """:func:`interval` with this reference's intervals."""
        return interval(e, self.env())


def ref_contexts(body: tuple[Node, ...]) -> dict[int, RefContext]:
    """``ref_id`` -> its :class:`RefContext`, for every access of the kernel body.  A
    reference the IR holds in several places (a loop with a geometric step is lowered
    once per iterator value) gets what holds in all: each iterator's interval is the
    hull of its intervals there, its stride kept only where it is the same."""
    found: dict[int, tuple[list[Access], dict, dict]] = {}
    for access, env, strides in _accesses(body, {}, {}):
        if access.ref_id not in found:
            found[access.ref_id] = ([access], dict(env), dict(strides))
            continue
        accesses, known, stepped = found[access.ref_id]
        accesses.append(access)
        for var in list(known):
            known[var] = _hull(known[var], env.get(var)) if var in env else None
        for var in list(stepped):
            if strides.get(var) != stepped[var]:
                del stepped[var]
    return {rid: RefContext(tuple(acc), tuple(sorted(env.items())),
                            tuple(sorted(strides.items())))
            for rid, (acc, env, strides) in found.items()}


def _hull(a: Interval | None, b: Interval | None) -> Interval | None:
    return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))


def _accesses(nodes: tuple[Node, ...], env: dict,
              strides: dict) -> Iterator[tuple[Access, dict, dict]]:
    for node in nodes:
        if isinstance(node, Stmt):
            for a in node.accesses:
                yield a, env, strides
        elif isinstance(node, If):
            for a in node.cond_accesses:
                yield a, env, strides
            yield from _accesses(node.then, env, strides)
            yield from _accesses(node.orelse, env, strides)
        elif isinstance(node, Loop):
            inner = {**env, node.var: loop_interval(node, env)}
            inner_strides = {k: v for k, v in strides.items() if k != node.var}
            if abs(node.step) > 1 and len(node.init) == 1:
                inner_strides[node.var] = (node.init[0], node.step)
            yield from _accesses(node.body, inner, inner_strides)


def loop_interval(loop: Loop, env: Mapping[str, Interval | None]) -> Interval | None:
    """var >= max(init) and var <= min(bound) (step > 0), mirrored for step < 0."""
    low_exprs, high_exprs = (loop.init, loop.bound) if loop.step > 0 else (
        loop.bound, loop.init)
    lows = [interval(e, env) for e in low_exprs]
    highs = [interval(e, env) for e in high_exprs]
    known_lows = [r[0] for r in lows if r is not None]
    known_highs = [r[1] for r in highs if r is not None]
    if not known_lows or not known_highs:
        return None
    lo, hi = max(known_lows), min(known_highs)
    return (lo, hi) if lo <= hi else None


def interval(e: E.Expr, env: Mapping[str, Interval | None]) -> Interval | None:
    """Bounds of ``e`` when its variables range over ``env`` (None: unknown)."""
    if isinstance(e, E.Const):
        return e.value, e.value
    if isinstance(e, E.Var):
        return env.get(e.name)
    if isinstance(e, E.Add):
        parts = [interval(t, env) for t in e.terms]
        if any(p is None for p in parts):
            return None
        return sum(p[0] for p in parts), sum(p[1] for p in parts)
    inner = interval(e.arg, env)
    if inner is None:
        return None
    lo, hi = inner
    if isinstance(e, E.Scale):
        a, b = e.factor * lo, e.factor * hi
        return min(a, b), max(a, b)
    if isinstance(e, E.FloorDiv):
        return lo // e.divisor, hi // e.divisor
    if lo // e.modulus == hi // e.modulus:
        return lo % e.modulus, hi % e.modulus
    return 0, e.modulus - 1


Strides = Mapping[str, tuple[E.Expr, int]]  # v -> (origin o, step s): v = o + s*t


def reduce(e: E.Expr, env: Mapping[str, Interval | None],
           strides: Strides | None = None) -> E.Expr:
    """``e`` simplified by the rules of the module doc (equal for every value in env
    that keeps the strides)."""
    strides = strides or {}
    if isinstance(e, (E.Const, E.Var)):
        return e
    if isinstance(e, E.Add):
        return E.add(*(reduce(t, env, strides) for t in e.terms))
    if isinstance(e, E.Scale):
        return E.scale(e.factor, reduce(e.arg, env, strides))
    if isinstance(e, E.FloorDiv):
        return _reduce_floordiv(reduce(e.arg, env, strides), e.divisor, env)
    return _reduce_mod(reduce(e.arg, env, strides), e.modulus, env, strides)


def _split(arg: E.Expr, period: int) -> tuple[E.Expr, E.Expr] | None:
    """affine ``arg`` = period*t + r with every coefficient of t's part divisible by
    ``period`` -> (t, r); None when ``arg`` is not affine."""
    form = E.affine_form(arg)
    if form is None:
        return None
    coeffs, constant = form
    whole = {v: k // period for v, k in coeffs.items() if k % period == 0}
    rest = {v: k for v, k in coeffs.items() if k % period != 0}
    return E.affine(whole), E.affine(rest, constant)


def _residue(arg: E.Expr, period: int, strides: Strides) -> E.Expr | None:
    """affine ``arg`` = period*t + r -> r, where t collects the terms k*v with ``period
    | k`` and, for v = o + s*t' (``strides``), the part k*(v - o) of the terms with
    ``period | k*s`` (their k*o stays in r); None when ``arg`` is not affine."""
    form = E.affine_form(arg)
    if form is None:
        return None
    coeffs, constant = form
    rest: dict[str, int] = {}
    origins = []
    for v, k in coeffs.items():
        if k % period == 0:
            continue
        if v in strides and (k * strides[v][1]) % period == 0:
            origins.append(E.scale(k, strides[v][0]))
        else:
            rest[v] = k
    return E.add(E.affine(rest, constant), *origins)


def _same_window(r: E.Expr, period: int, env) -> int | None:
    """q when every value of r lies in [q*period, (q+1)*period)."""
    bounds = interval(r, env)
    if bounds is None or bounds[0] // period != bounds[1] // period:
        return None
    return bounds[0] // period


def non_negative(e: E.Expr, env: Mapping[str, Interval | None]) -> bool:
    """Whether every value of ``e`` over ``env`` is >= 0, by :func:`interval`."""
    bounds = interval(e, env)
    return bounds is not None and bounds[0] >= 0


def _reduce_floordiv(arg: E.Expr, d: int, env) -> E.Expr:
    parts = _split(arg, d)
    if parts is not None:
        t, r = parts
        q = _same_window(r, d, env)
        if q is not None:
            return E.add(t, E.const(q))
    return E.floordiv(arg, d)


def _reduce_mod(arg: E.Expr, m: int, env, strides: Strides) -> E.Expr:
    if isinstance(arg, E.Mod) and arg.modulus % m == 0:
        return _reduce_mod(arg.arg, m, env, strides)  # (a mod k*m) mod m = a mod m
    if isinstance(arg, E.FloorDiv):
        return _reduce_mod_of_floordiv(arg, m, env, strides)
    r = _residue(arg, m, strides)
    if r is None:
        return E.mod(arg, m)
    q = _same_window(r, m, env)
    if q is not None:
        return E.add(r, E.const(-q * m))
    return E.mod(r if non_negative(r, env) else arg, m)


def _reduce_mod_of_floordiv(arg: E.FloorDiv, n: int, env, strides: Strides) -> E.Expr:
    """floor(a/B) mod N: multiples of B*N in a vanish."""
    r = _residue(arg.arg, arg.divisor * n, strides)
    if r is None or not non_negative(r, env):
        return E.mod(arg, n)
    quotient = _reduce_floordiv(r, arg.divisor, env)
    if isinstance(quotient, E.FloorDiv):
        return E.mod(quotient, n)
    return _reduce_mod(quotient, n, env, strides)
