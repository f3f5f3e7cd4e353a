"""Differential fuzzing of the stand-in ap_int / ap_fixed arithmetic (arraypart/include).

One C++ program with a few hundred random operations on random ap_int, ap_uint,
ap_fixed, ap_ufixed and C integer values (widths 1 to 200, extreme operands) is built
once with g++ against the stand-in headers and run; every printed result (its type's
width, integer bits, signedness and raw bits) must equal what a Python model of Vitis'
documented semantics computes with Python integers:

* integer results widen (UG1399 "Arbitrary Precision Integer Types"): a + b and a - b
  have max(Wa, Wb) + 1 bits (one more for the unsigned operand of a mixed pair), a * b
  Wa + Wb, a / b Wa + Sb, a % b min(Wa, Wb + (Sa and not Sb)), & | ^ max(Wa, Wb) (same
  rule); the result is signed if an operand is (always for -, a % b as the dividend);
  division truncates toward zero; shifts keep the left operand's type;
* fixed-point results keep full precision: + - align the binary points, with one more
  integer bit; * has Wa + Wb bits and Ia + Ib integer bits; / divides the raw values,
  the dividend's shifted left by the divisor's fraction bits, truncating toward zero;
* assignment quantizes (AP_TRN, AP_TRN_ZERO, AP_RND, AP_RND_ZERO, AP_RND_MIN_INF,
  AP_RND_INF, AP_RND_CONV) and then handles overflow (AP_WRAP, AP_SAT, AP_SAT_ZERO,
  AP_SAT_SYM); an integer destination truncates toward zero and wraps.

The default run (a fixed seed, ``CASES`` cases) takes a few seconds; set
``ARRAYPART_EXAMPLES=<n>`` for n random cases from a fresh seed (printed on failure)."""

import os
import random
import subprocess
from dataclasses import dataclass
from fractions import Fraction

from conftest import ROOT, needs_gxx

INCLUDE = ROOT / "arraypart" / "include"
CASES = 60
WIDTHS = (1, 2, 7, 8, 12, 16, 31, 32, 33, 63, 64, 65, 100, 200)
QUANTIZATION = ("AP_TRN", "AP_TRN_ZERO", "AP_RND", "AP_RND_ZERO", "AP_RND_MIN_INF",
                "AP_RND_INF", "AP_RND_CONV")
OVERFLOW = ("AP_WRAP", "AP_SAT", "AP_SAT_ZERO", "AP_SAT_SYM")  # AP_WRAP_SM: taken as AP_WRAP
C_INTS = {"int": (32, True), "unsigned": (32, False), "long long": (64, True)}


# --- The model -------------------------------------------------------------------------

@dataclass(frozen=True)
class Fmt:
    """A number format: W bits, I of them integer bits (I = W for an integer), signed or
    not; fixed-point formats carry their quantization and overflow modes."""
    w: int
    i: int
    s: bool
    fixed: bool = False
    q: str = "AP_TRN"
    o: str = "AP_WRAP"
    c_type: str = ""  # a C integer type, when the value is one

    @property
    def f(self) -> int:
        return self.w - self.i


def lsb(fmt: Fmt) -> Fraction:
    """The value of fmt's least significant bit, 2^-F."""
    return Fraction(2) ** -fmt.f


def wrap(v: int, w: int, s: bool) -> int:
    """v modulo 2^w, read as a w-bit two's complement (s) or unsigned integer."""
    v &= (1 << w) - 1
    return v - (1 << w) if s and v >> (w - 1) else v


def trunc_div(a: int, b: int) -> int:
    """a / b truncated toward zero (C)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def quantize(x: Fraction, q: str) -> int:
    """The integer that quantization mode q makes of x (x is in units of the LSB)."""
    fl = x.numerator // x.denominator
    frac = x - fl
    half, above = frac == Fraction(1, 2), frac > Fraction(1, 2)
    up = {"AP_TRN": False,
          "AP_TRN_ZERO": x < 0 and frac != 0,
          "AP_RND": frac >= Fraction(1, 2),
          "AP_RND_MIN_INF": above,
          "AP_RND_ZERO": above or (half and x < 0),
          "AP_RND_INF": above or (half and x > 0),
          "AP_RND_CONV": above or (half and fl % 2 == 1)}[q]
    return fl + up


def overflow(r: int, fmt: Fmt) -> int:
    """The raw integer r brought into fmt's range by its overflow mode."""
    lo, hi = (-(1 << (fmt.w - 1)), (1 << (fmt.w - 1)) - 1) if fmt.s else (0, (1 << fmt.w) - 1)
    if lo <= r <= hi or fmt.o == "AP_WRAP":
        return wrap(r, fmt.w, fmt.s)
    if fmt.o == "AP_SAT_ZERO":
        return 0
    if r > hi:
        return hi
    return -hi if fmt.o == "AP_SAT_SYM" and fmt.s else lo


def assign(value: Fraction, fmt: Fmt) -> int:
    """The raw bits of fmt that an assignment of value gives: quantization and overflow
    for a fixed-point destination; truncation toward zero and wrapping for an integer."""
    if not fmt.fixed:
        return wrap(trunc_div(value.numerator, value.denominator), fmt.w, fmt.s)
    return overflow(quantize(value / lsb(fmt), fmt.q), fmt)


def int_result(op: str, a: Fmt, b: Fmt) -> Fmt:
    """The type of a op b for two integers (Vitis' widening rules)."""
    logic_w = max(a.w + (b.s and not a.s), b.w + (a.s and not b.s))
    s = a.s or b.s
    w, s = {"+": (logic_w + 1, s), "-": (logic_w + 1, True), "*": (a.w + b.w, s),
            "/": (a.w + b.s, s), "%": (min(a.w, b.w + (a.s and not b.s)), a.s),
            "&": (logic_w, s), "|": (logic_w, s), "^": (logic_w, s)}[op]
    return Fmt(w, w, s)


def fixed_result(op: str, a: Fmt, b: Fmt) -> Fmt:
    """The full-precision type of a op b with a fixed-point operand."""
    s = a.s or b.s
    if op in "+-":
        i = max(a.i + (b.s and not a.s), b.i + (a.s and not b.s)) + 1
        return Fmt(i + max(a.f, b.f), i, s or op == "-", fixed=True)
    if op == "*":
        return Fmt(a.w + b.w, a.i + b.i, s, fixed=True)
    return Fmt(a.w + max(b.f, 0) + b.s, a.i + b.f + b.s, s, fixed=True)


def binary(op: str, a: Fmt, va: int, b: Fmt, vb: int) -> tuple[Fmt, int]:
    """The type and raw bits of a op b (raw operands va, vb)."""
    fixed = a.fixed or b.fixed
    r = fixed_result(op, a, b) if fixed else int_result(op, a, b)
    if op == "/" and fixed:
        return r, wrap(trunc_div(va << max(b.f, 0), vb), r.w, r.s)
    x, y = va * lsb(a), vb * lsb(b)
    exact = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
             "/": lambda: Fraction(trunc_div(va, vb)),
             "%": lambda: Fraction(va - vb * trunc_div(va, vb)),
             "&": lambda: Fraction(va & vb), "|": lambda: Fraction(va | vb),
             "^": lambda: Fraction(va ^ vb)}[op]()
    return r, wrap(int(exact / lsb(r)), r.w, r.s)


def shifted(op: str, a: Fmt, va: int, n: int) -> int:
    """The raw bits of a << n or a >> n: the type stays a's."""
    return wrap(va << n, a.w, a.s) if op == "<<" else va >> n


# --- Random cases ------------------------------------------------------------------------

def random_fmt(rng: random.Random, kind: str) -> Fmt:
    """A random format of the kind "int" (ap_[u]int), "fixed" (ap_[u]fixed) or "c"."""
    if kind == "c":
        name = rng.choice(sorted(C_INTS))
        w, s = C_INTS[name]
        return Fmt(w, w, s, c_type=name)
    w, s = rng.choice(WIDTHS), rng.random() < 0.6
    if kind == "int":
        return Fmt(w, w, s)
    i = rng.choice((0, 1, w // 2, w - 1, w, w + 3, -2, rng.randint(-4, w + 4)))
    return Fmt(w, i, s, fixed=True, q=rng.choice(QUANTIZATION), o=rng.choice(OVERFLOW))


def random_raw(rng: random.Random, fmt: Fmt) -> int:
    """Random raw bits of fmt, often an extreme: 0, +-1, the ends of the range."""
    lo, hi = (-(1 << (fmt.w - 1)), (1 << (fmt.w - 1)) - 1) if fmt.s else (0, (1 << fmt.w) - 1)
    pick = rng.choice((0, 1, -1, lo, hi, lo + 1, hi - 1, None, None, None))
    v = rng.randint(lo, hi) if pick is None else pick
    return wrap(v, fmt.w, fmt.s)


def type_name(fmt: Fmt) -> str:
    if fmt.c_type:
        return fmt.c_type
    if fmt.fixed:
        return f"ap_{'' if fmt.s else 'u'}fixed<{fmt.w}, {fmt.i}, {fmt.q}, {fmt.o}>"
    return f"ap_{'' if fmt.s else 'u'}int<{fmt.w}>"


def declare(name: str, fmt: Fmt, raw: int) -> str:
    """C++ declaring variable name of type fmt with raw bits raw."""
    if fmt.c_type:
        literal = f"({raw + 1}LL - 1)" if raw < 0 else f"{raw}LL"  # -2^63 has no literal
        return f"{fmt.c_type} {name} = ({fmt.c_type}){literal};"
    hexa = format(raw & ((1 << fmt.w) - 1), "x")
    return f'{type_name(fmt)} {name}; {name}.range({fmt.w - 1}, 0) = "0x{hexa}";'


@dataclass
class Case:
    """One operation: its C++ statements and the lines it must print."""
    code: str
    expected: list


def show(fmt: Fmt, raw: int) -> str:
    """The line the program's show() prints for a value of type fmt."""
    return f"{'f' if fmt.fixed else 'i'} {fmt.w} {fmt.i if fmt.fixed else fmt.w} {int(fmt.s)} " \
           f"{raw & ((1 << fmt.w) - 1):x}"


def operands(rng: random.Random, ops: str):
    """Two random operands (at least one an ap type) and a random operator among ops
    that applies to them; a divisor is never zero."""
    kinds = rng.choice((("int", "int"), ("int", "c"), ("c", "int"), ("fixed", "fixed"),
                        ("fixed", "int"), ("int", "fixed"), ("fixed", "c"), ("c", "fixed")))
    a, b = (random_fmt(rng, k) for k in kinds)
    fixed = a.fixed or b.fixed
    op = rng.choice([o for o in ops if not (fixed and o in "%&|^")])
    va, vb = random_raw(rng, a), random_raw(rng, b)
    while op in "/%" and vb == 0:
        vb = random_raw(rng, b)
    return a, va, op, b, vb


def binary_case(rng: random.Random) -> Case:
    """r = a op b: the result's type and bits, and its assignment to a random type."""
    a, va, op, b, vb = operands(rng, "+-*/%&|^")
    r, vr = binary(op, a, va, b, vb)
    d = random_fmt(rng, rng.choice(("int", "fixed", "fixed")))
    value = vr * lsb(r)
    code = (f"{{ {declare('a', a, va)} {declare('b', b, vb)} show(a {op} b); "
            f"{type_name(d)} d = a {op} b; show(d); }}")
    return Case(code, [show(r, vr), show(d, assign(value, d))])


def compare_case(rng: random.Random) -> Case:
    """a cmp b for every comparison."""
    a, va, _, b, vb = operands(rng, "+")
    x, y = va * lsb(a), vb * lsb(b)
    results = [x == y, x != y, x < y, x <= y, x > y, x >= y]
    code = (f"{{ {declare('a', a, va)} {declare('b', b, vb)} "
            'printf("c %d %d %d %d %d %d\\n", a == b, a != b, a < b, a <= b, a > b, a >= b); }')
    return Case(code, ["c " + " ".join(str(int(c)) for c in results)])


def shift_case(rng: random.Random) -> Case:
    """a << n and a >> n keep a's type."""
    a = random_fmt(rng, rng.choice(("int", "fixed")))
    va, n = random_raw(rng, a), rng.choice((0, 1, 3, a.w - 1, a.w, a.w + 1, rng.randint(0, a.w)))
    n = max(n, 0)
    code = f"{{ {declare('a', a, va)} show(a << {n}); show(a >> {n}); }}"
    return Case(code, [show(a, shifted("<<", a, va, n)), show(a, shifted(">>", a, va, n))])


def convert_case(rng: random.Random) -> Case:
    """An assignment (d = a), a compound assignment (a op= b) and an increment."""
    a = random_fmt(rng, rng.choice(("int", "fixed", "fixed")))
    b = random_fmt(rng, "fixed" if a.fixed else rng.choice(("int", "c")))
    d = random_fmt(rng, rng.choice(("int", "fixed", "fixed")))
    va, vb = random_raw(rng, a), random_raw(rng, b)
    op = rng.choice("+-*/")
    while op == "/" and vb == 0:
        vb = random_raw(rng, b)
    r, vr = binary(op, a, va, b, vb)
    one_more = binary("+", a, va, Fmt(32, 32, True, c_type="int"), 1)
    code = (f"{{ {declare('a', a, va)} {declare('b', b, vb)} {type_name(d)} d = a; show(d); "
            f"{type_name(a)} e = a; e {op}= b; show(e); ++a; show(a); }}")
    return Case(code, [show(d, assign(va * lsb(a), d)),
                       show(a, assign(vr * lsb(r), a)),
                       show(a, assign(one_more[1] * lsb(one_more[0]), a))])


def unary_case(rng: random.Random) -> Case:
    """-a (one bit wider, signed) and ~a (a's type) of an integer; a fixed-point value's
    to_int64() (truncated toward zero, wrapped to 64 bits) and negation (one more
    integer bit, signed); a double (exact, of 53
    significant bits at most) assigned to a fixed-point type."""
    a, f = random_fmt(rng, "int"), random_fmt(rng, "fixed")
    va, vf = random_raw(rng, a), random_raw(rng, f)
    mantissa, exponent = rng.choice((0, 1, 3, rng.getrandbits(53))), rng.randint(-70, 40)
    mantissa *= rng.choice((1, -1))
    d = random_fmt(rng, "fixed")
    x = vf * lsb(f)
    code = (f"{{ {declare('a', a, va)} {declare('f', f, vf)} show(-a); show(~a); "
            f'printf("n %lld\\n", f.to_int64()); show(-f); '
            f"{type_name(d)} d = std::ldexp({mantissa}.0, {exponent}); show(d); }}")
    minus = Fmt(a.w + 1, a.w + 1, True)
    return Case(code, [show(minus, wrap(-va, minus.w, True)), show(a, wrap(~va, a.w, a.s)),
                       f"n {wrap(trunc_div(x.numerator, x.denominator), 64, True)}",
                       show(Fmt(f.w + 1, f.i + 1, True, fixed=True), -vf),
                       show(d, assign(Fraction(mantissa) * Fraction(2) ** exponent, d))])


def random_cases(rng: random.Random, n: int) -> list:
    makers = (binary_case, binary_case, binary_case, compare_case, shift_case, convert_case,
              unary_case)
    return [rng.choice(makers)(rng) for _ in range(n)]


PRELUDE = r"""#include <cmath>
#include <cstdio>
#include <string>
#include "ap_fixed.h"
#include "ap_int.h"
template <int W, bool S> void show(const ap_int_base<W, S>& v) {
  std::printf("i %d %d %d %s\n", W, W, (int)S, ap_int_base<W, false>(v).to_string(16).c_str() + 2);
}
template <int W, int I, bool S, ap_q_mode Q, ap_o_mode O, int N>
void show(const ap_fixed_base<W, I, S, Q, O, N>& v) {
  std::printf("f %d %d %d %s\n", W, I, (int)S, v.range().to_string(16).c_str() + 2);
}
"""


def program(cases: list) -> str:
    """The C++ program: one function per 50 cases (g++ handles small functions faster)."""
    chunks = [cases[k:k + 50] for k in range(0, len(cases), 50)]
    body = "".join(f"static void part{k}() {{\n" + "".join(f"  {c.code}\n" for c in chunk) + "}\n"
                   for k, chunk in enumerate(chunks))
    calls = "".join(f"  part{k}();\n" for k in range(len(chunks)))
    return PRELUDE + body + "int main() {\n" + calls + "}\n"


@needs_gxx
def test_standin_arithmetic_matches_the_documented_semantics(tmp_path):
    count = int(os.environ.get("ARRAYPART_EXAMPLES", "0"))
    seed = int.from_bytes(os.urandom(4), "little") if count else 20240532
    cases = random_cases(random.Random(seed), count or CASES)
    source, binary_path = tmp_path / "fuzz.cpp", tmp_path / "fuzz"
    source.write_text(program(cases))
    built = subprocess.run(["g++", "-std=c++14", "-O0", f"-I{INCLUDE}", str(source), "-o",
                            str(binary_path)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    ran = subprocess.run([str(binary_path)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    lines = iter(ran.stdout.splitlines())
    mismatches = []
    for case in cases:
        got = [next(lines, "<missing>") for _ in case.expected]
        if got != case.expected:
            mismatches.append(f"{case.code}\n  got      {got}\n  expected {case.expected}")
    assert not mismatches, (f"seed {seed}: {len(mismatches)} of {len(cases)} cases differ\n"
                            + "\n".join(mismatches[:15]))


#: UG1399's examples ("Quantization Modes", "Overflow Modes"): W, I, signed, Q, O, the
#: value assigned, the value it yields.  They check the model itself, without g++.
DOCUMENTED = [
    (3, 2, True, "AP_RND", "AP_SAT", "1.25", "1.5"), (3, 2, True, "AP_RND", "AP_SAT", "-1.25", "-1"),
    (3, 2, True, "AP_RND_ZERO", "AP_SAT", "1.25", "1"),
    (3, 2, True, "AP_RND_ZERO", "AP_SAT", "-1.25", "-1"),
    (3, 2, True, "AP_RND_MIN_INF", "AP_SAT", "1.25", "1"),
    (3, 2, True, "AP_RND_MIN_INF", "AP_SAT", "-1.25", "-1.5"),
    (3, 2, True, "AP_RND_INF", "AP_SAT", "1.25", "1.5"),
    (3, 2, True, "AP_RND_INF", "AP_SAT", "-1.25", "-1.5"),
    (3, 2, True, "AP_RND_CONV", "AP_SAT", "0.75", "1"),
    (3, 2, True, "AP_RND_CONV", "AP_SAT", "-1.25", "-1"),
    (3, 2, True, "AP_TRN", "AP_SAT", "-1.25", "-1.5"),
    (3, 2, True, "AP_TRN_ZERO", "AP_SAT", "-1.25", "-1"),
    (4, 4, True, "AP_RND", "AP_SAT", "19", "7"), (4, 4, True, "AP_RND", "AP_SAT", "-19", "-8"),
    (4, 4, False, "AP_RND", "AP_SAT", "19", "15"), (4, 4, False, "AP_RND", "AP_SAT", "-19", "0"),
    (4, 4, True, "AP_RND", "AP_SAT_ZERO", "19", "0"), (4, 4, False, "AP_RND", "AP_SAT_ZERO", "-19", "0"),
    (4, 4, True, "AP_RND", "AP_SAT_SYM", "19", "7"), (4, 4, True, "AP_RND", "AP_SAT_SYM", "-19", "-7"),
    (4, 4, False, "AP_RND", "AP_SAT_SYM", "19", "15"), (4, 4, False, "AP_RND", "AP_SAT_SYM", "-19", "0"),
    (4, 4, True, "AP_RND", "AP_WRAP", "31", "-1"), (4, 4, True, "AP_RND", "AP_WRAP", "-19", "-3"),
    (4, 4, False, "AP_RND", "AP_WRAP", "19", "3"), (4, 4, False, "AP_RND", "AP_WRAP", "-19", "13"),
]


def test_the_model_yields_the_documented_examples():
    for w, i, s, q, o, value, expected in DOCUMENTED:
        fmt = Fmt(w, i, s, fixed=True, q=q, o=o)
        assert assign(Fraction(value), fmt) * lsb(fmt) == Fraction(expected), (w, i, s, q, o, value)
