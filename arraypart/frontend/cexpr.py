"""C expressions -> integers, quasi-affine expressions and affine conditions.

``quasi_affine`` maps a pycparser expression over loop iterators and integer constants
to an :mod:`arraypart.expr` tree, or None when it is not quasi-affine:

    e + e, e - e, -e, k*e, e << k = 2^k * e,
    e / c = floor(e / c), e % c = e mod c, e >> k = floor(e / 2^k),
    e & (2^k - 1) = e mod 2^k                                  (c > 0, k >= 0)

Over constants the operators keep their C meaning (``/`` and ``%`` truncate toward
zero), so ``N - 1`` or ``(N / 2) * 2`` fold exactly as a C compiler folds them.  The
floor readings above assume a non-negative dividend, which holds for in-bounds indices.

Integers are those of C's widest types: a literal above 2^64 - 1, a constant or a
coefficient outside [-2^63, 2^64 - 1], a shift count outside 0..63 and a division by
zero are located errors (C leaves them undefined), which also keeps every folded
value small: no input can make the front end compute with huge integers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from pycparser import c_ast

from .. import expr as E
from ..errors import KernelError
from ..ir import Conjunction, Constraint
from .cparse import node_coord

MIN_NAMES = ("min", "MIN")
MAX_NAMES = ("max", "MAX")
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
INTEGER_SUFFIX_CHARS = "uUlL"
INT64_MIN = -(2 ** 63)  # the range of C's widest integer types, long long and
UINT64_MAX = 2 ** 64 - 1  # unsigned long long
SHIFT_WIDTH = 64  # a shift count must be below the width of the widest type
NUMBER_FIELDS = {E.Const: "value", E.Scale: "factor", E.FloorDiv: "divisor",
                 E.Mod: "modulus"}
INTEGER_TYPE_WORDS = frozenset(
    "char short int long signed unsigned _Bool bool size_t "
    "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t".split())


@dataclass(frozen=True, slots=True)
class Scope:
    """What an identifier may stand for in an index: a loop iterator (a variable of the
    expression), a const affine temporary (its expression over iterators), or a named
    integer constant (folded)."""

    iterators: frozenset[str] = frozenset()
    constants: Mapping[str, int] = field(default_factory=dict)
    temporaries: Mapping[str, E.Expr] = field(default_factory=dict)

    def constant(self, name: str) -> int | None:
        return self.constants.get(name)


EMPTY_SCOPE = Scope()


# ---------------------------------------------------------------- constants


def int_literal(node: c_ast.Constant) -> int | None:
    """Value of an integer or character literal (``0x40``, ``010``, ``64u``, ``'a'``);
    None for other literals.  A literal above 2^64 - 1 is an error."""
    text = node.value
    if node.type == "char" and len(text) == 3 and text[0] == text[2] == "'":
        return ord(text[1])
    value = int_text(text)
    if value is not None and value > UINT64_MAX:
        raise KernelError(node_coord(node), f"integer constant {text} does not fit in "
                                            "64 bits")
    return value


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


def fold(node: c_ast.Node, scope: Scope = EMPTY_SCOPE) -> int | None:
    """The value of an integer constant expression, or None."""
    e = quasi_affine(node, Scope(frozenset(), scope.constants))
    return e.value if isinstance(e, E.Const) else None


def _c_binary(op: str, a: int, b: int, node: c_ast.BinaryOp) -> int | None:
    """``a op b`` with C's integer semantics (None: an operator C constants lack)."""
    if op in ("/", "%"):
        if b == 0:
            raise KernelError(node_coord(node), f"division by zero ('{op} 0')")
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


def _check_shift(count: int, node: c_ast.BinaryOp) -> None:
    if not 0 <= count < SHIFT_WIDTH:
        raise KernelError(node_coord(node), f"shift count {count} is out of range "
                                            f"(0..{SHIFT_WIDTH - 1})")


def _checked(e: E.Expr, node: c_ast.Node) -> E.Expr:
    """``e`` when its constants and coefficients fit in 64 bits, else an error."""
    stack = [e]
    while stack:
        t = stack.pop()
        number = NUMBER_FIELDS.get(type(t))
        if number is not None and not INT64_MIN <= getattr(t, number) <= UINT64_MAX:
            raise KernelError(node_coord(node), "integer constant expression overflows "
                                                "64 bits")
        stack.extend(t.terms if isinstance(t, E.Add) else
                     (t.arg,) if isinstance(t, (E.Scale, E.FloorDiv, E.Mod)) else ())
    return e


def _c_unary(op: str, a: int) -> int | None:
    table = {"+": a, "-": -a, "~": ~a, "!": int(not a)}
    return table.get(op)


# ---------------------------------------------------------------- quasi-affine


def quasi_affine(node: c_ast.Node, scope: Scope) -> E.Expr | None:
    """The quasi-affine expression ``node`` computes, or None (see the module doc)."""
    if isinstance(node, c_ast.Constant):
        value = int_literal(node)
        return None if value is None else E.const(value)
    if isinstance(node, c_ast.ID):
        if node.name in scope.temporaries:
            return scope.temporaries[node.name]
        if node.name in scope.iterators:
            return E.var(node.name)
        value = scope.constant(node.name)
        return None if value is None else E.const(value)
    if isinstance(node, c_ast.Cast):
        return quasi_affine(node.expr, scope) if _is_integer_type(node.to_type) else None
    if isinstance(node, c_ast.UnaryOp):
        return _unary(node, scope)
    if isinstance(node, c_ast.BinaryOp):
        return _binary(node, scope)
    if isinstance(node, c_ast.TernaryOp):
        cond = quasi_affine(node.cond, scope)
        if not isinstance(cond, E.Const):
            return None
        return quasi_affine(node.iftrue if cond.value else node.iffalse, scope)
    if isinstance(node, c_ast.FuncCall):
        return _constant_min_max(node, scope)
    return None


def _is_integer_type(type_name: c_ast.Node) -> bool:
    decl = getattr(type_name, "type", None)
    if not isinstance(decl, c_ast.TypeDecl) or not isinstance(decl.type, c_ast.IdentifierType):
        return False
    return all(word in INTEGER_TYPE_WORDS for word in decl.type.names)


def _unary(node: c_ast.UnaryOp, scope: Scope) -> E.Expr | None:
    inner = quasi_affine(node.expr, scope)
    if inner is None:
        return None
    if isinstance(inner, E.Const):
        value = _c_unary(node.op, inner.value)
        return None if value is None else _checked(E.const(value), node)
    if node.op == "+":
        return inner
    if node.op == "-":
        return _checked(E.scale(-1, inner), node)
    return None


def _binary(node: c_ast.BinaryOp, scope: Scope) -> E.Expr | None:
    left = quasi_affine(node.left, scope)
    right = quasi_affine(node.right, scope)
    if left is None or right is None:
        return None
    if isinstance(left, E.Const) and isinstance(right, E.Const):
        value = _c_binary(node.op, left.value, right.value, node)
        return None if value is None else _checked(E.const(value), node)
    result = _symbolic(node, left, right)
    return None if result is None else _checked(result, node)


def _symbolic(node: c_ast.BinaryOp, left: E.Expr, right: E.Expr) -> E.Expr | None:
    op = node.op
    k = right.value if isinstance(right, E.Const) else None
    if op in ("/", "%") and k == 0:
        raise KernelError(node_coord(node), f"division by zero ('{op} 0')")
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
    if op == "/" and k > 0:
        return E.floordiv(left, k)
    if op == "%" and k > 0:
        return E.mod(left, k)
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


def _constant_min_max(node: c_ast.FuncCall, scope: Scope) -> E.Expr | None:
    name = node.name.name if isinstance(node.name, c_ast.ID) else None
    if name not in MIN_NAMES + MAX_NAMES or node.args is None:
        return None
    values = [quasi_affine(a, scope) for a in node.args.exprs]
    if not values or not all(isinstance(v, E.Const) for v in values):
        return None
    pick = min if name in MIN_NAMES else max
    return E.const(pick(v.value for v in values))


# ---------------------------------------------------------------- min / max bounds


def min_max_terms(node: c_ast.Node, kind: str, scope: Scope) -> tuple[E.Expr, ...] | None:
    """The terms t1..tn with ``node == kind(t1, ..., tn)`` (kind ``min`` or ``max``),
    reading through ``min``/``max`` calls and the ternaries ``a < b ? a : b`` that
    min/max macros expand to, nested; a plain quasi-affine ``node`` is one term."""
    single = quasi_affine(node, scope)
    if single is not None:
        return (single,)
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
        names = MIN_NAMES if kind == "min" else MAX_NAMES
        if node.name.name in names and node.args is not None:
            return _concat(min_max_terms(a, kind, scope) for a in node.args.exprs)
    if isinstance(node, c_ast.TernaryOp):
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


def _ternary_min_max(node: c_ast.TernaryOp):
    """``('min', a, b)`` for ``a < b ? a : b`` (and the other three spellings)."""
    cond = node.cond
    if not isinstance(cond, c_ast.BinaryOp) or cond.op not in ("<", "<=", ">", ">="):
        return None
    less = cond.op in ("<", "<=")
    if same_tree(node.iftrue, cond.left) and same_tree(node.iffalse, cond.right):
        return ("min" if less else "max", cond.left, cond.right)
    if same_tree(node.iftrue, cond.right) and same_tree(node.iffalse, cond.left):
        return ("max" if less else "min", cond.left, cond.right)
    return None


def same_tree(a: c_ast.Node, b: c_ast.Node) -> bool:
    """Structural equality of two expression trees (coordinates ignored)."""
    if type(a) is not type(b):
        return False
    if any(getattr(a, n) != getattr(b, n) for n in a.attr_names):
        return False
    ca, cb = a.children(), b.children()
    return len(ca) == len(cb) and all(
        na == nb and same_tree(x, y) for (na, x), (nb, y) in zip(ca, cb))


# ---------------------------------------------------------------- conditions


def condition_dnf(node: c_ast.Node, scope: Scope,
                  negate: bool = False) -> tuple[Conjunction, ...] | None:
    """``node`` (negated if asked) as a disjunction of conjunctions of affine
    constraints, or None when it is not affine.  ``()`` is false, ``((),)`` true."""
    if isinstance(node, c_ast.UnaryOp) and node.op == "!":
        return condition_dnf(node.expr, scope, not negate)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        left = condition_dnf(node.left, scope, negate)
        right = condition_dnf(node.right, scope, negate)
        if left is None or right is None:
            return None
        if (node.op == "&&") != negate:
            return tuple(a + b for a in left for b in right)
        return left + right
    if isinstance(node, c_ast.BinaryOp) and node.op in COMPARISONS:
        left = quasi_affine(node.left, scope)
        right = quasi_affine(node.right, scope)
        if left is None or right is None:
            return None
        return _comparison(NEGATED[node.op] if negate else node.op, left, right)
    value = quasi_affine(node, scope)
    if value is None:
        return None
    return _comparison("==" if negate else "!=", value, E.const(0))


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
