"""Quasi-affine integer expressions: the one formula language of arraypart.

Grammar (all values are integers)::

    e ::= c | v | e + e + ... | k * e | floor(e / d) | e mod d        (k != 0, d > 0)

``floor`` rounds toward minus infinity and ``mod`` is the non-negative remainder, as in
isl: ``e == d * floor(e / d) + (e mod d)`` with ``0 <= e mod d < d``.

Array indices (``A[2*i + 1]``, ``A[k & 127]`` = ``A[k mod 128]``) and the bank and offset
formulas of every banking scheme are such trees.  Each is written once and rendered
four ways: :func:`to_isl` (proofs), :func:`evaluate` (numpy: maps and the checker),
:func:`to_c` (code generation) and :func:`to_verilog` (the RTL model of a banked memory).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Union

import numpy as np


@dataclass(frozen=True, slots=True)
class Const:
    value: int


@dataclass(frozen=True, slots=True)
class Var:
    name: str


@dataclass(frozen=True, slots=True)
class Add:
    terms: tuple["Expr", ...]


@dataclass(frozen=True, slots=True)
class Scale:
    factor: int
    arg: "Expr"


@dataclass(frozen=True, slots=True)
class FloorDiv:
    arg: "Expr"
    divisor: int

    def __post_init__(self):
        if self.divisor <= 0:
            raise ValueError(f"floor division by non-positive {self.divisor}")


@dataclass(frozen=True, slots=True)
class Mod:
    arg: "Expr"
    modulus: int

    def __post_init__(self):
        if self.modulus <= 0:
            raise ValueError(f"mod by non-positive {self.modulus}")


Expr = Union[Const, Var, Add, Scale, FloorDiv, Mod]


# ---------------------------------------------------------------- construction


def const(value: int) -> Expr:
    return Const(int(value))


def var(name: str) -> Expr:
    return Var(name)


def affine(coeffs: Mapping[str, int], constant: int = 0) -> Expr:
    """The affine expression ``sum(coeffs[v] * v) + constant`` in canonical form."""
    terms: list[Expr] = []
    for name in sorted(coeffs):
        k = int(coeffs[name])
        if k == 1:
            terms.append(Var(name))
        elif k != 0:
            terms.append(Scale(k, Var(name)))
    if constant or not terms:
        terms.append(Const(int(constant)))
    return terms[0] if len(terms) == 1 else Add(tuple(terms))


def add(*exprs: Expr) -> Expr:
    """Sum, with affine parts folded into canonical form."""
    return simplify(Add(tuple(exprs)))


def scale(factor: int, e: Expr) -> Expr:
    return simplify(Scale(int(factor), e))


def floordiv(e: Expr, divisor: int) -> Expr:
    return simplify(FloorDiv(e, int(divisor)))


def mod(e: Expr, modulus: int) -> Expr:
    return simplify(Mod(e, int(modulus)))


# ---------------------------------------------------------------- analysis


def affine_form(e: Expr) -> tuple[dict[str, int], int] | None:
    """``(coeffs, constant)`` when ``e`` is affine (no floor or mod), else None."""
    if isinstance(e, Const):
        return {}, e.value
    if isinstance(e, Var):
        return {e.name: 1}, 0
    if isinstance(e, Scale):
        inner = affine_form(e.arg)
        if inner is None:
            return None
        return {v: e.factor * k for v, k in inner[0].items()}, e.factor * inner[1]
    if isinstance(e, Add):
        coeffs: dict[str, int] = {}
        constant = 0
        for t in e.terms:
            inner = affine_form(t)
            if inner is None:
                return None
            for v, k in inner[0].items():
                coeffs[v] = coeffs.get(v, 0) + k
            constant += inner[1]
        return {v: k for v, k in coeffs.items() if k}, constant
    return None


def form_key(e: Expr) -> tuple:
    """A value equal for two expressions exactly when they have one affine form
    (quasi-affine ones: one simplified tree)."""
    form = affine_form(e)
    if form is None:
        return ("tree", simplify(e))
    coeffs, constant = form
    return ("affine", tuple(sorted((v, k) for v, k in coeffs.items() if k)), constant)


def difference(e: Expr, name: str, step: int) -> int | None:
    """``e(name + step) - e(name)`` when it is one integer at every point, else None.

    Exact by structure: sums and scalings carry the difference through;
    ``floor((a + q*d) / d) = floor(a / d) + q`` and ``(a + q*d) mod d = a mod d``, so a
    floor or mod whose argument moves by a multiple q*d of its divisor moves by q or
    0; any other move of a floor or mod depends on the point (None).  A mod reads its
    argument without the terms ``k*t``, ``d | k`` (:func:`_without_multiples`):
    ``(4*floor(x/4) + m) mod 4`` does not move with ``x``."""
    if isinstance(e, Const):
        return 0
    if isinstance(e, Var):
        return step if e.name == name else 0
    if isinstance(e, Add):
        moves = [difference(t, name, step) for t in e.terms]
        return None if None in moves else sum(moves)
    inner = difference(_without_multiples(e.arg, e.modulus) if isinstance(e, Mod)
                       else e.arg, name, step)
    if inner is None:
        return None
    if isinstance(e, Scale):
        return e.factor * inner
    if isinstance(e, FloorDiv):
        return inner // e.divisor if inner % e.divisor == 0 else None
    return 0 if inner % e.modulus == 0 else None


def _without_multiples(e: Expr, modulus: int) -> Expr:
    """``e`` less the terms ``k*t`` of its sums with ``modulus | k`` (``t``, like every
    expression here, an integer): the same value modulo ``modulus``."""
    if isinstance(e, Add):
        return Add(tuple(_without_multiples(t, modulus) for t in e.terms))
    if isinstance(e, Scale) and e.factor % modulus == 0:
        return Const(0)
    return e


def period(e: Expr, name: str) -> int | None:
    """A ``P > 0`` with ``e(name + P) = e(name)`` at every point (1 when ``e`` does not
    use ``name``), or None when ``e`` moves with ``name``.

    Built from the shift ``e(name + P) = e(name) + delta`` of each part: a sum shifts by
    the sum of its terms' shifts over the lcm of their P; ``floor(a / d)`` and
    ``a mod d`` take ``k = d / gcd(d, delta_a)`` of ``a``'s shifts, after which ``a``
    has moved by a multiple of ``d`` (:func:`difference`), so they move by
    ``k * delta_a / d`` and 0."""
    step, move = _shift(e, name)
    return step if move == 0 else None


def _shift(e: Expr, name: str) -> tuple[int, int]:
    """``(P, delta)`` with ``e(name + P) = e(name) + delta`` everywhere (see :func:`period`)."""
    if isinstance(e, Const):
        return 1, 0
    if isinstance(e, Var):
        return 1, int(e.name == name)
    if isinstance(e, Add):
        shifts = [_shift(t, name) for t in e.terms]
        step = math.lcm(*(s for s, _ in shifts))
        return step, sum(move * (step // s) for s, move in shifts)
    step, move = _shift(e.arg, name)
    if isinstance(e, Scale):
        return step, e.factor * move
    divisor = e.divisor if isinstance(e, FloorDiv) else e.modulus
    times = divisor // math.gcd(divisor, move)
    return step * times, (times * move // divisor if isinstance(e, FloorDiv) else 0)


def variables(e: Expr) -> frozenset[str]:
    if isinstance(e, Var):
        return frozenset((e.name,))
    if isinstance(e, Const):
        return frozenset()
    if isinstance(e, Add):
        return frozenset().union(*(variables(t) for t in e.terms))
    return variables(e.arg)


def simplify(e: Expr) -> Expr:
    """Canonical form: affine subtrees as sorted sums; ``floor(c/d)``, ``c mod d``,
    ``floor(e/1)`` and ``e mod 1`` folded."""
    form = affine_form(e)
    if form is not None:
        return affine(*form)
    if isinstance(e, Add):
        affine_terms, other = [], []
        for t in (simplify(t) for t in e.terms):
            (affine_terms if affine_form(t) is not None else other).append(t)
        parts = list(other)
        if affine_terms:
            folded = affine(*affine_form(Add(tuple(affine_terms))))
            if folded != Const(0):
                parts.append(folded)
        return parts[0] if len(parts) == 1 else Add(tuple(parts))
    if isinstance(e, Scale):
        return Scale(e.factor, simplify(e.arg)) if e.factor not in (0, 1) else (
            Const(0) if e.factor == 0 else simplify(e.arg))
    if isinstance(e, FloorDiv):
        arg = simplify(e.arg)
        if e.divisor == 1:
            return arg
        if isinstance(arg, Const):
            return Const(arg.value // e.divisor)
        form = _divisible(arg, e.divisor)
        if form is not None:  # floor((k*q + c) / k) = q + floor(c / k)
            coeffs, constant = form
            return affine({v: c // e.divisor for v, c in coeffs.items()},
                          constant // e.divisor)
        return FloorDiv(arg, e.divisor)
    if isinstance(e, Mod):
        arg = simplify(e.arg)
        if e.modulus == 1:
            return Const(0)
        if isinstance(arg, Const):
            return Const(arg.value % e.modulus)
        form = _divisible(arg, e.modulus)
        if form is not None:  # (k*q + c) mod k = c mod k
            return Const(form[1] % e.modulus)
        return Mod(arg, e.modulus)
    return e


def _divisible(e: Expr, k: int) -> tuple[dict[str, int], int] | None:
    """The affine form of ``e`` when k divides each of its variables' coefficients
    (``e = k*q + c``), else None; the floor and the modulo of such an ``e`` by k are
    affine and constant, exactly, so no division is left to render."""
    form = affine_form(e)
    if form is None or any(c % k for c in form[0].values()):
        return None
    return form


def substitute(e: Expr, mapping: Mapping[str, Expr]) -> Expr:
    """``e`` with every variable in ``mapping`` replaced by its expression."""
    if isinstance(e, Var):
        return mapping.get(e.name, e)
    if isinstance(e, Const):
        return e
    if isinstance(e, Add):
        return simplify(Add(tuple(substitute(t, mapping) for t in e.terms)))
    if isinstance(e, Scale):
        return simplify(Scale(e.factor, substitute(e.arg, mapping)))
    if isinstance(e, FloorDiv):
        return simplify(FloorDiv(substitute(e.arg, mapping), e.divisor))
    return simplify(Mod(substitute(e.arg, mapping), e.modulus))


# ---------------------------------------------------------------- renderings


def to_isl(e: Expr) -> str:
    """isl quasi-affine syntax, e.g. ``floor((i + 3*j)/2) mod 4``."""
    if isinstance(e, Const):
        return str(e.value)
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Add):
        return "(" + " + ".join(to_isl(t) for t in e.terms) + ")"
    if isinstance(e, Scale):
        return f"({e.factor}*{to_isl(e.arg)})"  # isl rejects "(-3)*x"
    if isinstance(e, FloorDiv):
        return f"floor(({to_isl(e.arg)})/{e.divisor})"
    return f"(({to_isl(e.arg)}) mod {e.modulus})"


def evaluate(e: Expr, env: Mapping[str, "np.ndarray | int"]) -> np.ndarray:
    """Value of ``e`` on numpy int64 arrays (floor division and non-negative mod, which
    is what numpy's ``//`` and ``%`` do for a positive divisor)."""
    if isinstance(e, Const):
        return np.int64(e.value)
    if isinstance(e, Var):
        return np.asarray(env[e.name], dtype=np.int64)
    if isinstance(e, Add):
        total = np.int64(0)
        for t in e.terms:
            total = total + evaluate(t, env)
        return total
    if isinstance(e, Scale):
        return np.int64(e.factor) * evaluate(e.arg, env)
    if isinstance(e, FloorDiv):
        return evaluate(e.arg, env) // np.int64(e.divisor)
    return evaluate(e.arg, env) % np.int64(e.modulus)


Interval = tuple[int, int]

INT32 = (-(2 ** 31), 2 ** 31 - 1)
UINT32_MAX = 2 ** 32 - 1


def to_c(e: Expr, name_of: Callable[[str], str], *,
         interval: Callable[[Expr], "Interval | None"]) -> str:
    """C text of ``e``; variables are printed by ``name_of``.

    A ``floor`` or ``mod`` whose argument ``interval`` shows non-negative (bank and
    offset formulas over in-bounds indices) is C's truncating ``/`` or ``%`` on an
    ``unsigned`` operand: a power-of-two divisor is then a bit slice in hardware, where
    a signed one needs sign-correction logic.  Any other (a subscript's own ``>>`` or
    ``&`` of a value that may be negative) is the exact signed form, for ``a = (int)arg``:

        floor(a/d) = a >= 0 ? a / d : ~(~a / d)     (~a = -1 - a >= 0 when a < 0)
        a mod d    = (a % d + d) % d

    The operand is 32-bit only where that is exact: when its interval fits 32 bits, or,
    with no interval known, when every constant of it does; otherwise it is computed
    in ``long long`` (each variable widened before any arithmetic) and the division is
    64-bit, so a value such as ``i + 2**40`` is never truncated.
    """
    def text(sub: Expr) -> str:
        return to_c(sub, name_of, interval=interval)

    if isinstance(e, Const):
        return str(e.value) if e.value >= 0 else f"({e.value})"
    if isinstance(e, Var):
        return name_of(e.name)
    if isinstance(e, Add):
        out = text(e.terms[0])
        for t in e.terms[1:]:
            if isinstance(t, Const) and t.value < 0:
                out += f" - {-t.value}"
            elif isinstance(t, Scale) and t.factor < 0:
                out += f" - {_c_product(-t.factor, text(t.arg))}"
            else:
                out += f" + {text(t)}"
        return f"({out})"
    if isinstance(e, Scale):
        return _c_product(e.factor, text(e.arg))
    divisor = e.divisor if isinstance(e, FloorDiv) else e.modulus
    span = interval(e.arg)
    unsigned = span is not None and span[0] >= 0
    wide = not _fits_32_bits(e.arg, span, unsigned)
    operand = (to_c(e.arg, lambda v: f"(long long){name_of(v)}", interval=interval)
               if wide else text(e.arg))
    if unsigned:
        operator = "/" if isinstance(e, FloorDiv) else "%"
        kind, suffix = ("unsigned long long", "ull") if wide else ("unsigned", "u")
        return f"({_c_unsigned(e.arg, operand, kind)} {operator} {divisor}{suffix})"
    a = f"({'long long' if wide else 'int'}){_parenthesized(operand)}"
    if isinstance(e, FloorDiv):
        return f"({a} >= 0 ? {a} / {divisor} : ~(~{a} / {divisor}))"
    return f"(({a} % {divisor} + {divisor}) % {divisor})"


def _fits_32_bits(e: Expr, span: "Interval | None", unsigned: bool) -> bool:
    """Whether ``e``'s values (``span``, None: unknown) fit C's 32-bit ``unsigned``
    (``unsigned``) or ``int``; with no span, whether each constant and factor does."""
    if span is None:
        return all(INT32[0] <= k <= INT32[1] for k in constants(e))
    lo, hi = (0, UINT32_MAX) if unsigned else INT32
    return lo <= span[0] and span[1] <= hi


def constants(e: Expr) -> tuple[int, ...]:
    """Every constant, factor, divisor and modulus written in ``e``."""
    if isinstance(e, Const):
        return (e.value,)
    if isinstance(e, Var):
        return ()
    if isinstance(e, Add):
        return tuple(k for t in e.terms for k in constants(t))
    own = {Scale: "factor", FloorDiv: "divisor", Mod: "modulus"}[type(e)]
    return (getattr(e, own), *constants(e.arg))


def _parenthesized(text: str) -> str:
    return text if text.startswith("(") and text.endswith(")") else f"({text})"


def _c_unsigned(e: Expr, text: str, kind: str) -> str:
    """``e``'s C ``text`` as an unsigned ``kind`` operand (floor and mod results already
    are unsigned)."""
    if isinstance(e, (FloorDiv, Mod)):
        return text
    return f"({kind}){text}" if isinstance(e, Add) else f"({kind})({text})"


def _c_product(factor: int, text: str) -> str:
    return text if factor == 1 else f"{factor if factor > 0 else f'({factor})'}*{text}"


def pretty(e: Expr) -> str:
    """Human-readable formula for reports and comments (``floor``/``mod`` spelled out),
    e.g. ``floor((x0 + 3*x1)/2) mod 4``."""
    if isinstance(e, Const):
        return str(e.value)
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Add):
        return " + ".join(pretty(t) for t in e.terms).replace("+ -", "- ")
    if isinstance(e, Scale):
        return f"{e.factor}*{_pretty_atom(e.arg)}"
    if isinstance(e, FloorDiv):
        return f"floor({_pretty_atom(e.arg)}/{e.divisor})"
    return f"{_pretty_atom(e.arg)} mod {e.modulus}"


def _pretty_atom(e: Expr) -> str:
    """``pretty(e)``, parenthesized unless it is a variable, constant or floor."""
    text = pretty(e)
    return text if isinstance(e, (Var, Const, FloorDiv)) else f"({text})"


# ---------------------------------------------------------------- value ranges and Verilog


def bounds(e: Expr, ranges: Mapping[str, tuple[int, int]]) -> tuple[int, int]:
    """An interval ``(lo, hi)`` holding every value of ``e`` when each variable v lies in
    ``ranges[v]`` (interval arithmetic: exact for affine forms in independent variables,
    an over-approximation otherwise)."""
    if isinstance(e, Const):
        return e.value, e.value
    if isinstance(e, Var):
        return ranges[e.name]
    if isinstance(e, Add):
        parts = [bounds(t, ranges) for t in e.terms]
        return sum(p[0] for p in parts), sum(p[1] for p in parts)
    if isinstance(e, Scale):
        lo, hi = bounds(e.arg, ranges)
        return min(lo * e.factor, hi * e.factor), max(lo * e.factor, hi * e.factor)
    lo, hi = bounds(e.arg, ranges)
    if isinstance(e, FloorDiv):
        return lo // e.divisor, hi // e.divisor
    if lo // e.modulus == hi // e.modulus:
        return lo % e.modulus, hi % e.modulus
    return 0, e.modulus - 1


def range_bits(lo: int, hi: int) -> int:
    """Bits of a vector holding every integer of ``[lo, hi]`` (two's complement when
    ``lo < 0``)."""
    if lo >= 0:
        return max(1, hi.bit_length())
    return max(hi.bit_length(), (-lo - 1).bit_length()) + 1


@dataclass(frozen=True, slots=True)
class Verilog:
    """``e`` as Verilog: ``wires`` declare one net per operation (``wire [w-1:0] n = ...;``)
    and ``result`` names the value, ``width`` bits wide, two's complement when ``lo < 0``."""

    wires: tuple[str, ...]
    result: str
    width: int
    lo: int
    hi: int


def to_verilog(e: Expr, ranges: Mapping[str, tuple[int, int]],
               name_of: Callable[[str], str] = str, prefix: str = "e") -> Verilog:
    """Synthesizable Verilog of ``e``; variable v is the net ``name_of(v)`` of
    ``range_bits(*ranges[v])`` bits.

    Every net is as wide as its value's interval (:func:`bounds`), so sums and products
    are exact in modular arithmetic.  Precondition: every ``floor``
    and ``mod`` argument is non-negative wherever the variables take their values; the
    argument is then truncated to the bits of its upper bound.  Division by a power of
    two is a bit slice; by another constant d it is a multiplication by the reciprocal,
    ``floor(a/d) = floor(a*m / 2^s)`` with ``m = ceil(2^s/d)`` and the least s such that
    ``(m*d - 2^s) * max(a) < 2^s`` (exact for ``0 <= a <= max(a)``: Granlund and
    Montgomery, PLDI'94, Thm 4.2), as HLS tools lower an unsigned division by a constant.
    Constant products are shift-and-add sums (canonical signed digits), so the address
    logic maps to LUTs, not DSPs.
    """
    return _VerilogWriter(ranges, name_of, prefix).render(e)


class _VerilogWriter:
    """One rendering: the nets written so far (local to one :func:`to_verilog` call)."""

    def __init__(self, ranges, name_of, prefix):
        self.ranges, self.name_of, self.prefix = ranges, name_of, prefix
        self.wires: list[str] = []

    def render(self, e: Expr) -> Verilog:
        text, lo, hi = self.node(e)
        return Verilog(tuple(self.wires), text, range_bits(lo, hi), lo, hi)

    def net(self, text: str, lo: int, hi: int) -> tuple[str, int, int]:
        name = f"{self.prefix}{len(self.wires)}"
        self.wires.append(f"wire [{range_bits(lo, hi) - 1}:0] {name} = {text};")
        return name, lo, hi

    def node(self, e: Expr) -> tuple[str, int, int]:
        """``(net or literal, lo, hi)``."""
        if isinstance(e, Const):
            return _literal(e.value, range_bits(e.value, e.value)), e.value, e.value
        if isinstance(e, Var):
            lo, hi = self.ranges[e.name]
            return self.name_of(e.name), lo, hi
        if isinstance(e, Add):
            lo, hi = bounds(e, self.ranges)
            width = range_bits(lo, hi)
            parts = [self.node(t) for t in e.terms]
            return self.net(" + ".join(_extend(p, width) for p in parts), lo, hi)
        if isinstance(e, Scale):
            return self.product(self.node(e.arg), e.factor)
        arg = self.unsigned(self.node(e.arg))
        if isinstance(e, FloorDiv):
            return self.quotient(arg, e.divisor)
        return self.remainder(arg, e.modulus)

    def unsigned(self, part: tuple[str, int, int]) -> tuple[str, int, int]:
        """A floor/mod argument: non-negative by precondition, truncated to its bits."""
        text, lo, hi = part
        hi = max(hi, 0)
        width = range_bits(0, hi)
        if range_bits(lo, hi) == width:
            return text, max(lo, 0), hi
        return self.net(f"{text}[{width - 1}:0]", max(lo, 0), hi)

    def product(self, part: tuple[str, int, int], factor: int) -> tuple[str, int, int]:
        text, lo, hi = part
        plo, phi = min(lo * factor, hi * factor), max(lo * factor, hi * factor)
        width = range_bits(plo, phi)
        wide = _extend(part, width)
        terms = []
        for shift, sign in sorted(_signed_digits(factor), key=lambda t: -t[1]):
            shifted = wide if shift == 0 else f"{{{wide}, {shift}'d0}}"
            terms.append(("- " if sign < 0 else "+ ") + shifted)
        body = " ".join(terms)
        body = body[2:] if body.startswith("+ ") else f"{width}'d0 {body}"
        return self.net(body, plo, phi)

    def quotient(self, arg: tuple[str, int, int], d: int) -> tuple[str, int, int]:
        text, lo, hi = arg
        if hi < d:
            return "1'd0", 0, 0
        width = range_bits(0, hi)
        if d & (d - 1) == 0:
            shift = d.bit_length() - 1
            return self.net(f"{text}[{width - 1}:{shift}]", lo // d, hi // d)
        shift, m = _reciprocal(d, hi)
        product = self.product((text, 0, hi), m)
        return self.net(f"{product[0]}[{range_bits(0, product[2]) - 1}:{shift}]",
                        lo // d, hi // d)

    def remainder(self, arg: tuple[str, int, int], d: int) -> tuple[str, int, int]:
        text, lo, hi = arg
        if hi < d:
            return arg
        if d & (d - 1) == 0:
            return self.net(f"{text}[{d.bit_length() - 2}:0]", 0, d - 1)
        q = self.quotient(arg, d)
        qd = self.product(q, d)
        width = range_bits(0, hi)
        diff = self.net(f"{_extend(arg, width)} - {_extend(qd, width)}", 0, hi)
        return self.net(f"{diff[0]}[{range_bits(0, d - 1) - 1}:0]", 0, d - 1)


def _literal(value: int, width: int) -> str:
    return f"{width}'d{value}" if value >= 0 else f"{width}'d{value % (1 << width)}"


def _extend(part: tuple[str, int, int], width: int) -> str:
    """The net as ``width`` bits: sign-extended when it may be negative."""
    text, lo, hi = part
    own = range_bits(lo, hi)
    if lo == hi:
        return _literal(lo, width)
    if own >= width:
        return text if own == width else f"{text}[{width - 1}:0]"
    if lo >= 0:
        return f"{{{width - own}'d0, {text}}}"
    return f"{{{{{width - own}{{{text}[{own - 1}]}}}}, {text}}}"


def _signed_digits(k: int) -> list[tuple[int, int]]:
    """``k = sum(sign * 2**shift)`` in non-adjacent form: the fewest adders."""
    digits, shift = [], 0
    while k:
        if k & 1:
            sign = 2 - (k & 3)
            digits.append((shift, sign))
            k -= sign
        k >>= 1
        shift += 1
    return digits


def _reciprocal(d: int, largest: int) -> tuple[int, int]:
    """``(s, m)``: ``floor(a/d) == (a*m) >> s`` for ``0 <= a <= largest``."""
    s = 0
    while True:
        m = -(-(1 << s) // d)
        if (m * d - (1 << s)) * largest < (1 << s):
            return s, m
        s += 1
