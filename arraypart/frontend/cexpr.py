"""C expressions -> integers, quasi-affine expressions and affine conditions.

``quasi_affine`` maps an expression (:mod:`.cnodes`) over loop iterators and integer constants
to an :mod:`arraypart.expr` tree, or None when it is not quasi-affine:

    e + e, e - e, -e, ~e = -e - 1, k*e, e << k = 2^k * e, e >> k = floor(e / 2^k),
    e & (2^k - 1) = e mod 2^k                                  (k >= 0)
    e / c = floor(e / c),        e % c = e mod c               (c > 0, e >= 0)
    e / c = -floor(-e / c),      e % c = e + c*floor(-e / c)   (c > 0, e <= 0)

C's ``/`` and ``%`` truncate toward zero (C99 6.5.5), so the floor forms are used
only where they are that: when the dividend's sign is the same at every iteration,
proven by interval arithmetic over the enclosing loops' bounds (:func:`interval`;
``Scope.ranges``).  A dividend that may take both signs gives None: the index is
irregular (DESIGN §1), never a silent floor.  ``>>`` of a negative value is
arithmetic in g++ and Vitis (a floor) and ``&`` works on two's complement, so those
need no proof.  An unsigned result, and an ``ap_[u]int`` operator's (whose ``<<``
and ``~`` keep the operand's width), is reduced to its type (:func:`converted`),
except in an unsigned type of 64 bits or more, whose negative values stand for
2^w more: ``/ % >>`` of one that may be negative are irregular (``% 2^k`` apart),
and comparisons split on the operands' signs (:func:`_wide_comparison`).
Over constants every operator keeps its C meaning, so ``N - 1`` or
``(N / 2) * 2`` fold exactly as a C compiler folds them.

Integers are those of C's widest types: a literal above 2^64 - 1, a constant or a
coefficient outside [-2^63, 2^64 - 1], a shift count outside 0..63 and a division by
zero are located errors (C leaves them undefined), which also keeps every folded
value small: no input can make the front end compute with huge integers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Mapping

from .. import expr as E
from ..errors import KernelError
from ..ir import Conjunction, Constraint
from . import cnodes as N

MIN_NAMES = ("min", "MIN")
MAX_NAMES = ("max", "MAX")
INCREMENT_STEPS = {"p++": 1, "++": 1, "p--": -1, "--": -1}
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
NOT_MODULAR = ("/", "%", ">>") + COMPARISONS  # differ on values congruent modulo 2^w
NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
INTEGER_SUFFIX_CHARS = "uUlL"
INT64_MIN = -(2 ** 63)  # the range of C's widest integer types, long long and
UINT64_MAX = 2 ** 64 - 1  # unsigned long long
SHIFT_WIDTH = 64  # a shift count must be below the width of the widest type
NUMBER_FIELDS = {E.Const: "value", E.Scale: "factor", E.FloorDiv: "divisor",
                 E.Mod: "modulus"}


Bound = tuple[int | None, int | None]  # an integer interval [low, high]; None: unbounded
Dnf = tuple[Conjunction, ...]  # a disjunction of conjunctions: () is false, ((),) true


@dataclass(frozen=True, slots=True)
class Truth:
    """The condition a scalar holds as C's 0 or 1 (``bool on = i >= 4 && i < n``):
    ``holds`` is where it is 1, ``fails`` where it is 0, each over the iterators and
    sizes as they were when it was set (:func:`.scalars.condition_holders`)."""

    holds: Dnf
    fails: Dnf


@dataclass(frozen=True, slots=True)
class Scope:
    """What an identifier may stand for in an index: a loop iterator (a variable of the
    expression), a scalar with an affine value at this point (its expression over
    iterators: :mod:`.scalars`), or a named integer constant (folded).  ``ranges``
    bounds iterators (from their loops' bounds; an iterator without one is unbounded).
    ``narrow``: the scalars whose type wraps below ``long`` (narrower than ``int``,
    ``unsigned int``, ``ap_[u]int``: :func:`.scalars.narrow`);
    a temporary's value is the one its writes compute without wrapping, and reading
    such a scalar converts it to its type (:func:`converted`): ``+ - *`` commute with
    the reduction modulo 2^w, so the reductions C makes at each ``k += 3`` or ``k++``
    are one reduction at the read.
    ``increments``: the temporaries that the expression being read steps once, in
    sequence (:func:`.scalars.sequenced_increments`): ``w++`` there is the value
    before the step, ``++w`` the value after it.
    ``conditions``: the scalars that hold a condition here (:class:`Truth`); as the
    condition of an ``if``, a ``?:``, ``!`` or ``&&`` they stand for it.  They have no
    value as an integer (their 0 or 1 is no affine expression)."""

    iterators: frozenset[str] = frozenset()
    constants: Mapping[str, int] = field(default_factory=dict)
    ranges: Mapping[str, Bound] = field(default_factory=dict)
    temporaries: Mapping[str, E.Expr] = field(default_factory=dict)
    narrow: Mapping[str, N.IntType] = field(default_factory=dict)
    increments: frozenset[str] = frozenset()
    conditions: Mapping[str, Truth] = field(default_factory=dict)
    chosen: Mapping[int, bool] = field(default_factory=dict)

    def constant(self, name: str) -> int | None:
        return self.constants.get(name)


EMPTY_SCOPE = Scope()


# ---------------------------------------------------------------- constants


def int_literal(node: N.Constant) -> int | None:
    """Value of an integer or character literal as clang read it (``0x40``, ``010``,
    ``64u``, ``'a'``); None for other literals (clang rejects one above 2^64 - 1)."""
    return node.value


def int_text(text: str) -> int | None:
    """The value of the C integer literal ``text`` (decimal, ``0x``/``0b`` hex or
    binary, ``0`` octal, ``uUlL`` suffixes), or None when it is not one."""
    digits = text.rstrip(INTEGER_SUFFIX_CHARS)
    if not digits.isascii() or not digits.isalnum():
        return None  # rejects what int() would also take: '_', blanks, signs
    try:
        if digits[:2] in ("0x", "0X", "0b", "0B"):
            return int(digits, 0)
        if len(digits) > 1 and digits[0] == "0":
            return int(digits, 8)
        return int(digits, 10)
    except ValueError:
        return None


def fold(node: N.Node, scope: Scope = EMPTY_SCOPE) -> int | None:
    """The value of an integer constant expression, or None."""
    e = quasi_affine(node, Scope(frozenset(), scope.constants))
    return e.value if isinstance(e, E.Const) else None


def _c_binary(op: str, a: int, b: int, node: N.BinaryOp) -> int | None:
    """``a op b`` with C's integer semantics (None: an operator C constants lack)."""
    if op in ("/", "%"):
        if b == 0:
            raise KernelError(node.coord, f"division by zero ('{op} 0')")
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return quotient if op == "/" else a - b * quotient
    if op in ("<<", ">>"):
        _check_shift(b, node)
    table = {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
        "<<": lambda: a << b, ">>": lambda: a >> b,
        "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
        "<": lambda: int(a < b), "<=": lambda: int(a <= b), ">": lambda: int(a > b),
        ">=": lambda: int(a >= b), "==": lambda: int(a == b), "!=": lambda: int(a != b),
        "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
    }
    return table[op]() if op in table else None


def _check_shift(count: int, node: N.BinaryOp) -> None:
    if not 0 <= count < SHIFT_WIDTH:
        raise KernelError(node.coord, f"shift count {count} is out of range "
                                            f"(0..{SHIFT_WIDTH - 1})")


def _checked(e: E.Expr, node: N.Node) -> E.Expr:
    """``e`` when its constants and coefficients fit in 64 bits, else an error."""
    stack = [e]
    while stack:
        t = stack.pop()
        number = NUMBER_FIELDS.get(type(t))
        if number is not None and not INT64_MIN <= getattr(t, number) <= UINT64_MAX:
            raise KernelError(node.coord, "integer constant expression overflows "
                                                "64 bits")
        stack.extend(t.terms if isinstance(t, E.Add) else
                     (t.arg,) if isinstance(t, (E.Scale, E.FloorDiv, E.Mod)) else ())
    return e


def _c_unary(op: str, a: int) -> int | None:
    table = {"+": a, "-": -a, "~": ~a, "!": int(not a)}
    return table.get(op)


# ---------------------------------------------------------------- quasi-affine


def quasi_affine(node: N.Node, scope: Scope) -> E.Expr | None:
    """The quasi-affine expression ``node`` computes, or None (see the module doc)."""
    if isinstance(node, N.Constant):
        value = int_literal(node)
        return None if value is None else E.const(value)
    if isinstance(node, N.Id):
        if node.name in scope.temporaries:
            value = scope.temporaries[node.name]
            narrow = scope.narrow.get(node.name)
            return value if narrow is None else converted(value, narrow, None, scope)
        if node.name in scope.iterators:
            return E.var(node.name)
        value = scope.constant(node.name)
        return None if value is None else E.const(value)
    if isinstance(node, N.Cast):
        if (node.to is not None and isinstance(node.expr, N.FuncCall)
                and _math_function(node.expr) is not None):
            return _truncated_math(node.expr, node.to, scope)
        inner = None if node.to is None else quasi_affine(node.expr, scope)
        return None if inner is None else converted(inner, node.to, node.source, scope)
    if isinstance(node, N.UnaryOp):
        return _unary(node, scope)
    if isinstance(node, N.BinaryOp):
        return _binary(node, scope)
    if isinstance(node, N.TernaryOp):
        cond = quasi_affine(node.cond, scope)
        held = scope.chosen.get(id(node), cond.value if isinstance(cond, E.Const) else None)
        if held is None:
            return None
        return quasi_affine(node.iftrue if held else node.iffalse, scope)
    if isinstance(node, N.FuncCall):
        if node.method:
            return _ap_reader(node.name, node.args, scope)
        return _constant_min_max(node, scope)
    if isinstance(node, N.Other) and node.what in ("call of operator()", "call of operator[]"):
        return _ap_reader(node.what[len("call of "):], node.parts, scope)
    return None


# ap_[u]int members that read bits of their object: (hi, lo) selects, single bits, and
# conversions to C integers (by their result type).
_BIT_RANGES = ("range", "operator()")
_SINGLE_BITS = ("bit", "get_bit", "test", "operator[]")
_TO_C = {"to_int": N.IntType(32, True), "to_uint": N.IntType(32, False),
         "to_long": N.IntType(64, True), "to_ulong": N.IntType(64, False),
         "to_int64": N.IntType(64, True), "to_uint64": N.IntType(64, False)}
# Every member that only reads its object (``length``: its width).
AP_READERS = frozenset(_BIT_RANGES + _SINGLE_BITS + tuple(_TO_C) + ("length",))


def _ap_reader(name: str | None, args, scope: Scope) -> E.Expr | None:
    """The value an ``ap_[u]int`` member reads from its object ``args[0]`` (value v, its
    two's complement bits those of v at any width):

        v.range(h, l), v(h, l)  =  floor(v / 2^l) mod 2^(h - l + 1)    (h >= l >= 0)
        v[k], v.bit(k)          =  floor(v / 2^k) mod 2
        v.to_int() ...          =  v converted to the C type

    None for any other call, or bounds that are not constants."""
    values = [quasi_affine(a, scope) for a in args]
    if not values or any(v is None for v in values):
        return None
    value, bounds = values[0], values[1:]
    if not all(isinstance(b, E.Const) for b in bounds):
        return None
    bits = [b.value for b in bounds]
    if name in _BIT_RANGES and len(bits) == 2 and bits[0] >= bits[1] >= 0:
        high, low = bits
        return E.mod(E.floordiv(value, 1 << low), 1 << (high - low + 1))
    if name in _SINGLE_BITS and len(bits) == 1 and bits[0] >= 0:
        return E.mod(E.floordiv(value, 1 << bits[0]), 2)
    if name in _TO_C and not bits:
        return converted(value, _TO_C[name], None, scope)
    return None


def _unary(node: N.UnaryOp, scope: Scope) -> E.Expr | None:
    if node.op == "sizeof":
        return None if node.size is None else E.const(node.size)
    if node.op in INCREMENT_STEPS:
        return _stepped(node, scope)
    inner = quasi_affine(node.expr, scope)
    if inner is None:
        return None
    result = None
    if isinstance(inner, E.Const):
        value = _c_unary(node.op, inner.value)
        result = None if value is None else _checked(E.const(value), node)
    elif node.op == "+":
        result = inner
    elif node.op == "-":
        result = _checked(E.scale(-1, inner), node)
    elif node.op == "~":  # two's complement: ~e = -e - 1
        result = _checked(E.add(E.scale(-1, inner), E.const(-1)), node)
    if result is None or node.wraps is None:
        return result
    return converted(result, node.wraps, None, scope)  # unsigned arithmetic wraps


def _stepped(node: N.UnaryOp, scope: Scope) -> E.Expr | None:
    """The value of ``w++``/``w--`` (w's value before the step) or ``++w``/``--w`` (after
    it, converted to w's type when that wraps), for w in ``scope.increments``."""
    if (not isinstance(node.expr, N.Id) or node.expr.name not in scope.increments
            or node.expr.name not in scope.temporaries):
        return None
    if node.op.startswith("p"):
        return quasi_affine(node.expr, scope)
    name = node.expr.name
    value = E.add(scope.temporaries[name], E.const(INCREMENT_STEPS[node.op]))
    narrow = scope.narrow.get(name)
    return value if narrow is None else converted(value, narrow, None, scope)


def _binary(node: N.BinaryOp, scope: Scope) -> E.Expr | None:
    left = quasi_affine(node.left, scope)
    right = quasi_affine(node.right, scope)
    if left is None or right is None:
        return None
    if node.wide is not None and node.op in NOT_MODULAR:
        operands = _wide_operands(node.wide, (left, right), scope)
        if operands is None:
            return _wide_remainder(node, left, right)
        left, right = operands
    if isinstance(left, E.Const) and isinstance(right, E.Const):
        value = _c_binary(node.op, left.value, right.value, node)
        result = None if value is None else _checked(E.const(value), node)
    else:
        result = _symbolic(node, left, right, scope)
        result = None if result is None else _checked(result, node)
    if result is None or node.wraps is None:
        return result
    return converted(result, node.wraps, None, scope)  # unsigned arithmetic wraps


def _wide_operands(wide: N.IntType, operands: tuple[E.Expr, ...],
                   scope: Scope) -> tuple[E.Expr, ...] | None:
    """``operands`` as C's operation in the unsigned type ``wide`` (w >= 64 bits) sees
    them, or None.  The front end keeps such values unreduced (:func:`converted`): a
    negative e stands for e + 2^w, which ``+ - * &`` and the conversions to narrower
    types reduce alike, but ``/ % >>`` and the comparisons (``NOT_MODULAR``) do not.
    So a constant becomes c mod 2^w, and a non-constant operand that may be negative
    (by its interval) gives None: e + 2^w lies beyond the front end's integers."""
    seen = []
    for e in operands:
        if isinstance(e, E.Const):
            seen.append(E.const(e.value % (1 << wide.width)))
        elif (low := interval(e, scope.ranges)[0]) is not None and low < 0:
            return None
        else:
            seen.append(e)
    return tuple(seen)


def _wide_remainder(node: N.BinaryOp, left: E.Expr, right: E.Expr) -> E.Expr | None:
    """``e % 2^k`` in a wide unsigned type (see :func:`_wide_operands`) where 2^k
    divides 2^w: e mod 2^k, which e + 2^w has too; None for another operation."""
    k = right.value % (1 << node.wide.width) if isinstance(right, E.Const) else 0
    if node.op != "%" or k <= 0 or k & (k - 1):
        return None
    return E.mod(left, k)


def interval(e: E.Expr, ranges: Mapping[str, Bound]) -> Bound:
    """An interval holding every value of ``e`` when each variable lies in its range
    (interval arithmetic: sound, not always tight)."""
    if isinstance(e, E.Const):
        return e.value, e.value
    if isinstance(e, E.Var):
        return ranges.get(e.name, (None, None))
    if isinstance(e, E.Add):
        parts = [interval(t, ranges) for t in e.terms]
        low = None if any(p[0] is None for p in parts) else sum(p[0] for p in parts)
        high = None if any(p[1] is None for p in parts) else sum(p[1] for p in parts)
        return low, high
    if isinstance(e, E.Scale):
        low, high = interval(e.arg, ranges)
        if e.factor < 0:
            low, high = high, low
        return (None if low is None else low * e.factor,
                None if high is None else high * e.factor)
    if isinstance(e, E.FloorDiv):
        low, high = interval(e.arg, ranges)
        return (None if low is None else low // e.divisor,
                None if high is None else high // e.divisor)
    if isinstance(e, E.Mod):
        return 0, e.modulus - 1
    raise TypeError(f"not an expression: {e!r}")


def constant_values(node: N.Node, scope: Scope) -> tuple[int, ...] | None:
    """The constants ``node`` may compute, ascending, when it computes one of a few
    whatever the data: a constant, or ``c ? a : b`` with arms that are (``flag ? 2 :
    1`` gives (1, 2) for any c), a conversion applied to each; None otherwise."""
    if isinstance(node, N.TernaryOp):
        arms = [constant_values(arm, scope) for arm in (node.iftrue, node.iffalse)]
        return None if None in arms else tuple(sorted(set(arms[0]) | set(arms[1])))
    if isinstance(node, N.Cast) and node.to is not None:
        inner = constant_values(node.expr, scope)
        if inner is None:
            return None
        found = [converted(E.const(v), node.to, node.source, scope) for v in inner]
        if not all(isinstance(value, E.Const) for value in found):
            return None
        return tuple(sorted({value.value for value in found}))
    value = quasi_affine(node, scope)
    return (value.value,) if isinstance(value, E.Const) else None


def converted(e: E.Expr, to: N.IntType, source: N.IntType | None,
              scope: Scope) -> E.Expr | None:
    """The value ``e`` converted to the integer type ``to`` of width w, as C converts
    (C11 6.3.1.3; for a signed ``to``, the modular rule that g++ and Vitis follow where C
    leaves it to the implementation):

        e                              where ``to`` holds e's type or e's interval
        e mod 2^w                      unsigned ``to``
        ((e + 2^(w-1)) mod 2^w) - 2^(w-1)   signed ``to``

    and, for ``bool`` (e != 0), None where e may lie outside [0, 1].  A 64-bit ``to``
    keeps e: the front end's values lie within 64 bits (:func:`_checked`), so only a
    negative e can wrap there, and any index it forms is out of bounds either way (the
    operators that tell e from e + 2^w see to it: :func:`_wide_operands`).  So
    does a 32-bit ``to`` where e's interval is unknown (a size the data chose, ``int j
    = s`` with ``unsigned s = P[r]``: :meth:`.cnodes.IntType.keeps`)."""
    if (source is not None and to.holds(source)) or to.keeps(*interval(e, scope.ranges)):
        return e
    if to.boolean:
        return None
    if to.width >= 64:
        return e
    if not to.signed:
        return E.mod(e, 1 << to.width)
    half = 1 << (to.width - 1)
    return E.add(E.mod(E.add(e, E.const(half)), 1 << to.width), E.const(-half))


def _c_division(op: str, left: E.Expr, k: int, scope: Scope) -> E.Expr | None:
    """``left / k`` or ``left % k`` (k > 0) truncating toward zero as C does, as a
    floor form where the dividend's sign is fixed (see the module doc), else None."""
    low, high = interval(left, scope.ranges)
    if low is not None and low >= 0:
        return E.floordiv(left, k) if op == "/" else E.mod(left, k)
    if high is not None and high <= 0:
        quotient = E.floordiv(E.scale(-1, left), k)  # trunc(e/k) = -floor(-e/k)
        return (E.scale(-1, quotient) if op == "/"
                else E.add(left, E.scale(k, quotient)))
    return None


def _symbolic(node: N.BinaryOp, left: E.Expr, right: E.Expr,
              scope: Scope) -> E.Expr | None:
    op = node.op
    k = right.value if isinstance(right, E.Const) else None
    if op in ("/", "%") and k == 0:
        raise KernelError(node.coord, f"division by zero ('{op} 0')")
    if op in ("<<", ">>") and k is not None:
        _check_shift(k, node)
    if op == "+":
        return E.add(left, right)
    if op == "-":
        return E.add(left, E.scale(-1, right))
    if op == "*":
        if isinstance(left, E.Const):
            return E.scale(left.value, right)
        return None if k is None else E.scale(k, left)
    if op == "&":
        return _mask(left, right)
    if k is None:
        return None
    if op in ("/", "%") and k > 0:
        return _c_division(op, left, k, scope)
    if op == ">>" and k >= 0:
        return E.floordiv(left, 2 ** k)
    if op == "<<" and k >= 0:
        return E.scale(2 ** k, left)
    return None


def _mask(left: E.Expr, right: E.Expr) -> E.Expr | None:
    """``e & (2^k - 1)`` = ``e mod 2^k`` (either operand may be the mask)."""
    for e, m in ((left, right), (right, left)):
        if isinstance(m, E.Const) and m.value >= 0 and (m.value + 1) & m.value == 0:
            return E.mod(e, m.value + 1)
    return None


def _constant_min_max(node: N.FuncCall, scope: Scope) -> E.Expr | None:
    name = node.name
    if name not in MIN_NAMES + MAX_NAMES:
        return None
    values = [quasi_affine(a, scope) for a in node.args]
    if not values or not all(isinstance(v, E.Const) for v in values):
        return None
    pick = min if name in MIN_NAMES else max
    return E.const(pick(v.value for v in values))


# The <cmath> functions folded over constants: ``int(log2(M))`` with ``#define M 1024``
# is 10, as g++ and Vitis fold it (``>> int(log2(M))`` in Spector's matrix_mul).
_MATH = {"log2": math.log2, "log10": math.log10, "sqrt": math.sqrt, "ceil": math.ceil,
         "floor": math.floor, "trunc": math.trunc, "exp2": lambda x: 2.0 ** x,
         "pow": math.pow, "fabs": math.fabs}
#: A double this close to an integer, but not one, may round to either side in
#: another libm: such a value is not folded.
_LIBM_ULPS = 1e-12


def _truncated_math(call: N.FuncCall, to: N.IntType, scope: Scope) -> E.Expr | None:
    """``(T)f(c1, ..)`` for a <cmath> function f of :data:`_MATH` over constants:
    trunc(f(c)) (C converts a double to an integer toward zero), reduced to T;
    None for other calls, a result that is no finite number, or one within
    :data:`_LIBM_ULPS` (relative) of an integer it is not."""
    value = _math_value(call, scope)
    if value is None or not math.isfinite(value):
        return None
    nearest = round(value)
    if value != nearest and abs(value - nearest) <= _LIBM_ULPS * max(1.0, abs(value)):
        return None
    return converted(E.const(math.trunc(value)), to, None, scope)


def _math_function(call: N.FuncCall):
    """The :data:`_MATH` function ``call`` names (``log2``, ``std::log2``), or None.
    By name, as ``min``/``max`` are (:func:`_constant_min_max`): a kernel's own
    ``double log2(double)`` beside <cmath>'s would not compile."""
    return None if call.method else _MATH.get((call.name or "").rsplit("::", 1)[-1])


def _math_value(node: N.Node, scope: Scope) -> float | None:
    """The double a constant argument or a nested :data:`_MATH` call computes."""
    if isinstance(node, N.FuncCall):
        function = _math_function(node)
        args = [_math_value(a, scope) for a in node.args]
        if function is None or not args or any(a is None for a in args):
            return None
        try:
            return float(function(*args))
        except (ValueError, OverflowError, TypeError):
            return None
    if isinstance(node, N.Cast) and node.to is None:
        return _math_value(node.expr, scope)  # an integer converted to double
    value = quasi_affine(node, scope)
    return float(value.value) if isinstance(value, E.Const) else None


# ---------------------------------------------------------------- min / max bounds


def min_max_terms(node: N.Node, kind: str, scope: Scope) -> tuple[E.Expr, ...] | None:
    """The terms t1..tn with ``node == kind(t1, ..., tn)`` (kind ``min`` or ``max``),
    reading through ``min``/``max`` calls and the ternaries ``a < b ? a : b`` that
    min/max macros expand to, nested; a plain quasi-affine ``node`` is one term."""
    single = quasi_affine(node, scope)
    if single is not None:
        return (single,)
    if isinstance(node, N.FuncCall):
        names = MIN_NAMES if kind == "min" else MAX_NAMES
        if node.name in names and node.args:
            return _concat(min_max_terms(a, kind, scope) for a in node.args)
    if isinstance(node, N.TernaryOp):
        pattern = _ternary_min_max(node)
        if pattern is not None and pattern[0] == kind:
            return _concat(min_max_terms(a, kind, scope) for a in pattern[1:])
    return None


def _concat(parts) -> tuple[E.Expr, ...] | None:
    terms: list[E.Expr] = []
    for part in parts:
        if part is None:
            return None
        terms.extend(t for t in part if t not in terms)
    return tuple(terms)


def _ternary_min_max(node: N.TernaryOp):
    """``('min', a, b)`` for ``a < b ? a : b`` (and the other three spellings)."""
    cond = node.cond
    if not isinstance(cond, N.BinaryOp) or cond.op not in ("<", "<=", ">", ">="):
        return None
    less = cond.op in ("<", "<=")
    if same_tree(node.iftrue, cond.left) and same_tree(node.iffalse, cond.right):
        return ("min" if less else "max", cond.left, cond.right)
    if same_tree(node.iftrue, cond.right) and same_tree(node.iffalse, cond.left):
        return ("max" if less else "min", cond.left, cond.right)
    return None


def same_tree(a: N.Node | None, b: N.Node | None) -> bool:
    """Structural equality of two expression trees (positions ignored)."""
    return tree_key(a) == tree_key(b)


def tree_key(node: N.Node | None) -> tuple | None:
    """An expression tree as nested tuples of its node types and fields, positions
    ignored: equal for trees that read alike (hashable where the fields are)."""
    if node is None:
        return None
    parts: list = [type(node).__name__]
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, N.Node):
            parts.append(tree_key(value))
        elif isinstance(value, tuple) and value and isinstance(value[0], N.Node):
            parts.append(tuple(tree_key(v) for v in value))
        elif f.name not in ("coord", "start", "end", "in_macro"):
            parts.append(value)
    return tuple(parts)


# ---------------------------------------------------------------- conditions


def condition_dnf(node: N.Node, scope: Scope,
                  negate: bool = False) -> tuple[Conjunction, ...] | None:
    """``node`` (negated if asked) as a disjunction of conjunctions of affine
    constraints, or None when it is not affine.  ``()`` is false, ``((),)`` true."""
    node = _tested(node, scope)
    if isinstance(node, N.UnaryOp) and node.op == "!":
        return condition_dnf(node.expr, scope, not negate)
    op = _logical(node, scope)
    if op is not None:
        left = condition_dnf(node.left, scope, negate)
        right = condition_dnf(node.right, scope, negate)
        if left is None or right is None:
            return None
        return _connect(op, negate, left, right)
    return _atom_dnf(node, scope, negate)


def _logical(node: N.Node, scope: Scope) -> str | None:
    """``&&`` or ``||`` when ``node`` is one, or a bitwise ``&`` or ``|`` of two
    operands that are 0 or 1 (:func:`_zero_or_one`: ``(row >= 1) & (col >= 1)``, in
    Vitis' median filter tutorial), which has the same value (both operands are
    evaluated, which only the accesses in them tell apart: :mod:`.accesses`)."""
    if not isinstance(node, N.BinaryOp):
        return None
    if node.op in ("&&", "||"):
        return node.op
    if node.op in ("&", "|") and _zero_or_one(node.left, scope) and _zero_or_one(
            node.right, scope):
        return node.op * 2
    return None


def condition_superset(node: N.Node, scope: Scope,
                       negate: bool = False) -> tuple[Conjunction, ...]:
    """A disjunction of conjunctions that holds wherever ``node`` (negated if asked)
    may hold: :func:`condition_dnf` where that is affine, and each comparison or value
    that is not taken as true (so ``i < n && x[i] > 0`` gives ``i < n``; pushing the
    negation to the leaves first keeps this a superset for either branch)."""
    node = _tested(node, scope)
    if isinstance(node, N.UnaryOp) and node.op == "!":
        return condition_superset(node.expr, scope, not negate)
    op = _logical(node, scope)
    if op is not None:
        return _connect(op, negate, condition_superset(node.left, scope, negate),
                        condition_superset(node.right, scope, negate))
    exact = _atom_dnf(node, scope, negate)
    return ((),) if exact is None else exact


def held_truth(node: N.Node, scope: Scope, boolean: bool) -> Truth | None:
    """The condition a scalar that ``node`` initializes holds: for a ``bool``
    (``boolean``) ``node != 0`` (C11 6.3.1.2); for another integer type only where
    ``node`` is 0 or 1 (:func:`_zero_or_one`), which every integer type keeps zero or
    nonzero (1, or -1 in a signed 1-bit ``ap_int``).  None when that is not affine."""
    if not boolean and not _zero_or_one(node, scope):
        return None
    holds = condition_dnf(node, scope)
    fails = condition_dnf(node, scope, negate=True)
    return None if holds is None or fails is None else Truth(holds, fails)


def _zero_or_one(node: N.Node, scope: Scope) -> bool:
    """Whether ``node``'s value is 0 or 1 whatever it reads: a comparison, ``!``,
    ``&&``, ``||`` (C11 6.5.3.3, 6.5.8, 6.5.9, 6.5.13, 6.5.14), a conversion to
    ``bool``, a scalar holding a condition, an integer conversion of one of them, or
    ``&`` or ``|`` of two of them."""
    if isinstance(node, N.Cast) and node.to is not None:
        return node.to.boolean or _zero_or_one(node.expr, scope)
    if isinstance(node, N.BinaryOp) and node.op in ("&", "|"):
        return _zero_or_one(node.left, scope) and _zero_or_one(node.right, scope)
    if isinstance(node, N.BinaryOp):
        return node.op in COMPARISONS or node.op in ("&&", "||")
    if isinstance(node, N.UnaryOp):
        return node.op == "!"
    return isinstance(node, N.Id) and node.name in scope.conditions


def _tested(node: N.Node, scope: Scope) -> N.Node:
    """What testing ``node`` against 0 tests: the operand of a conversion to ``bool``
    (``(bool)e`` is ``e != 0``), or of an integer conversion of a value that is 0 or
    1 (:func:`_zero_or_one`; an ``int`` compared in C++, ``(char)(i < n)``)."""
    while isinstance(node, N.Cast) and node.to is not None and (
            node.to.boolean or _zero_or_one(node.expr, scope)):
        node = node.expr
    return node


def _connect(op: str, negate: bool, left: tuple[Conjunction, ...],
             right: tuple[Conjunction, ...]) -> tuple[Conjunction, ...]:
    """``left op right`` (De Morgan's dual when ``negate``: the operands are negated)."""
    if (op == "&&") != negate:
        return tuple(a + b for a in left for b in right)
    return left + right


def _atom_dnf(node: N.Node, scope: Scope, negate: bool) -> tuple[Conjunction, ...] | None:
    """A comparison, a scalar holding a condition, or a value taken as ``!= 0``, as
    DNF; None when not affine."""
    if isinstance(node, N.Id) and node.name in scope.conditions:
        truth = scope.conditions[node.name]
        return truth.fails if negate else truth.holds
    if isinstance(node, N.BinaryOp) and node.op in COMPARISONS:
        left = quasi_affine(node.left, scope)
        right = quasi_affine(node.right, scope)
        if left is None or right is None:
            return None
        op = NEGATED[node.op] if negate else node.op
        if node.wide is not None:
            return _wide_comparison(op, left, right, node.wide, scope)
        return _comparison(op, left, right)
    value = quasi_affine(node, scope)
    if value is None:
        return None
    return _comparison("==" if negate else "!=", value, E.const(0))


def _wide_comparison(op: str, left: E.Expr, right: E.Expr, wide: N.IntType,
                     scope: Scope) -> Dnf | None:
    """``left op right`` in the unsigned type ``wide`` (w >= 64 bits), as DNF.  The
    front end holds such a value v as its signed representative, v - 2^w for
    v >= 2^(w-1) (a negative e stands for e + 2^w: :func:`_wide_operands`), so a
    constant c >= 2^(w-1) becomes c - 2^w, and the comparison splits on the signs the
    representatives may take: of two of one sign, C's order is theirs; a negative one
    is the greater (C's value is 2^(w-1) or more).  None where an operand's interval
    leaves the representatives' range [-2^(w-1), 2^(w-1))."""
    half = 1 << (wide.width - 1)
    left, right = (E.const((e.value + half) % (2 * half) - half)
                   if isinstance(e, E.Const) else e for e in (left, right))
    for e in (left, right):
        low, high = interval(e, scope.ranges)
        if (low is not None and low < -half) or (high is not None and high >= half):
            return None
    pieces: list[Conjunction] = []
    for left_sign, left_where in _signs(left, scope):
        for right_sign, right_where in _signs(right, scope):
            piece = (_comparison(op, left, right) if left_sign == right_sign
                     else _comparison(op, E.const(left_sign), E.const(right_sign)))
            where = _connect("&&", False, left_where, right_where)
            pieces.extend(_connect("&&", False, where, piece))
    return tuple(pieces)


def _signs(e: E.Expr, scope: Scope) -> tuple[tuple[int, Dnf], ...]:
    """The signs ``e`` may take by its interval (1: negative, the greater in an
    unsigned comparison; 0: non-negative), each with where ``e`` takes it."""
    low, high = interval(e, scope.ranges)
    if high is not None and high < 0:
        return ((1, ((),)),)
    if low is not None and low >= 0:
        return ((0, ((),)),)
    return ((0, _comparison(">=", e, E.const(0))), (1, _comparison("<", e, E.const(0))))


def _comparison(op: str, left: E.Expr, right: E.Expr) -> tuple[Conjunction, ...]:
    """``left op right`` as DNF: ``a < b`` is ``b - a - 1 >= 0``, ``a != b`` is
    ``a - b - 1 >= 0 or b - a - 1 >= 0``."""
    diff = E.add(left, E.scale(-1, right))
    neg = E.scale(-1, diff)
    forms = {
        "<": [[(E.add(neg, E.const(-1)), ">=")]],
        "<=": [[(neg, ">=")]],
        ">": [[(E.add(diff, E.const(-1)), ">=")]],
        ">=": [[(diff, ">=")]],
        "==": [[(diff, "==")]],
        "!=": [[(E.add(diff, E.const(-1)), ">=")], [(E.add(neg, E.const(-1)), ">=")]],
    }
    result = []
    for conj in forms[op]:
        kept = _conjunction(conj)
        if kept is not None:
            result.append(kept)
    return tuple(result)


def _conjunction(parts) -> Conjunction | None:
    """Drop constant-true constraints; None when one is constant-false."""
    kept = []
    for e, op in parts:
        if isinstance(e, E.Const):
            holds = e.value >= 0 if op == ">=" else e.value == 0
            if not holds:
                return None
            continue
        kept.append(Constraint(e, op))
    return tuple(kept)
