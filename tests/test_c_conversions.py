"""C's integer conversions (C11 6.3.1.3): a value converted to a type that cannot hold it
wraps modulo 2^width (for a signed type, the modular rule of g++ and Vitis), and so does
unsigned arithmetic (C11 6.2.5p9: ``i - 1u`` at i = 0 is 2^32 - 1).  An
explicit cast, clang's implicit conversion (``uint8_t w = i + 250``) and a narrow
scalar stepped past its range (``k += 3`` on a ``uint8_t``) all wrap.

The oracle is independent of arraypart's expression trees: each index is evaluated
here with Python's integers by C's rules, iteration by iteration, and compared with
the model's index; where g++ exists, ``check --trace`` compares them with the compiled
original too."""

import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arraypart
from arraypart.errors import KernelError
from arraypart import expr as E

from conftest import HAVE_GXX, assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx

TRIPS = 200


def wrap(value: int, width: int, signed: bool) -> int:
    value %= 1 << width
    return value - (1 << width) if signed and value >= 1 << (width - 1) else value


# (declarations in the loop body, index of buf, C's value of that index at i)
CONVERSIONS = {
    "explicit_uint8": ("", "(uint8_t)(i + 192)", lambda i: wrap(i + 192, 8, False)),
    "implicit_uint8": ("uint8_t w = i + 250;", "w", lambda i: wrap(i + 250, 8, False)),
    "implicit_schar": ("signed char c = i;", "c + 128", lambda i: wrap(i, 8, True) + 128),
    "explicit_int8": ("", "(int8_t)(i * 3) + 128", lambda i: wrap(3 * i, 8, True) + 128),
    "uint16_then_rem": ("", "(uint16_t)(i * 400) % 256",
                        lambda i: wrap(400 * i, 16, False) % 256),
    "unsigned_rem": ("", "(unsigned)(i - 1) % 4u", lambda i: wrap(i - 1, 32, False) % 4),
    "in_range_cast": ("", "(uint8_t)i", lambda i: i),
    "unsigned_sub_rem": ("", "(i - 1u) % 4", lambda i: wrap(i - 1, 32, False) % 4),
    "unsigned_sub_shift": ("", "(i - 1u) >> 30", lambda i: wrap(i - 1, 32, False) >> 30),
    "narrow_then_halved": ("uint8_t m = 250; m = m + 10; m = m / 2;", "m + i",
                           lambda i: wrap(260, 8, False) // 2 + i),
    "unsigned_negation": ("", "-(unsigned)i % 8", lambda i: wrap(-i, 32, False) % 8),
    "unsigned_complement": ("", "~0u % 7 + i % 3", lambda i: (2 ** 32 - 1) % 7 + i % 3),
}


def kernel_source(declarations: str, index: str, step: str = "") -> str:
    return ("#include <stdint.h>\n"
            "void conv(int in[256], int out[200]) {\n  int buf[256];\n"
            "  for (int c = 0; c < 256; c++) { buf[c] = in[c]; }\n"
            "  uint8_t k = 0;\n"
            f"  for (int i = 0; i < {TRIPS}; i++) {{\n#pragma HLS pipeline II=1\n"
            f"    {declarations}\n    out[i] = buf[{index}];\n    {step}\n  }}\n}}\n")


def model_indices(compiled) -> np.ndarray:
    """The model's index of the loop's read of buf, at every i."""
    read = next(a for loop in compiled.report.kernel.body
                for s in getattr(loop, "body", ()) for a in getattr(s, "accesses", ())
                if a.array == "buf" and a.kind == "read")
    assert read.index[0] is not None, "the index became irregular"
    values = E.evaluate(read.index[0], {"i": np.arange(TRIPS)})
    return np.broadcast_to(values, (TRIPS,))


@pytest.mark.parametrize("case", sorted(CONVERSIONS))
def test_a_conversion_to_a_narrower_type_wraps_as_c_does(case, tmp_path):
    declarations, index, c_value = CONVERSIONS[case]
    path = tmp_path / "conv.c"
    path.write_text(kernel_source(declarations, index))
    compiled = arraypart.compile_kernel(path)
    assert list(model_indices(compiled)) == [c_value(i) for i in range(TRIPS)]


@pytest.mark.parametrize("step, delta", [("k += 3;", 3), ("k += 2;", 2), ("k -= 5;", -5),
                                         ("k = k + 3;", 3), ("k = 2 + k;", 2),
                                         ("k = k - 5;", -5)])
def test_a_narrow_scalar_stepped_past_its_range_wraps(step, delta, tmp_path):
    """uint8_t k stepped by a constant: C reduces it modulo 256 at every step; the model
    reduces the stepped value once, where it is read (the same value: + and - commute
    with the reduction)."""
    path = tmp_path / "conv.c"
    path.write_text(kernel_source("", "k", step))
    compiled = arraypart.compile_kernel(path)
    assert list(model_indices(compiled)) == [wrap(delta * i, 8, False)
                                             for i in range(TRIPS)]



UNSIGNED_STEPS = {
    "rem_down": ("k -= 3;", -3, "k % 256", lambda k: k % 256),
    "shift_down": ("k -= 5;", -5, "k >> 24", lambda k: k >> 24),
    "mask_down": ("k = k - 7;", -7, "k & 255", lambda k: k & 255),
    "divide_down": ("k--;", -1, "k / 16777216", lambda k: k // 16777216),
}


@pytest.mark.parametrize("case", sorted(UNSIGNED_STEPS))
def test_an_unsigned_scalar_stepped_below_zero_wraps(case, tmp_path):
    """unsigned k stepped down from 0 holds 2^32 - |step| * i in C, so ``k % 256`` and
    ``k >> 24`` index buf within bounds.  The model used to keep k = -|step| * i and
    refused the kernel ("at i = 0 the index is -3")."""
    step, delta, index, c_index = UNSIGNED_STEPS[case]
    path = tmp_path / "conv.c"
    path.write_text(kernel_source("", index, step).replace("uint8_t k = 0;",
                                                           "unsigned k = 0;"))
    compiled = arraypart.compile_kernel(path)
    assert list(model_indices(compiled)) == [c_index(wrap(delta * i, 32, False))
                                             for i in range(TRIPS)]


# ap_[u]int operators: Vitis widens + - * / so they never wrap, but << and ~ return the
# left operand's type (ap_uint<4>(5) << 2 is 4); and C's ~e is -e - 1.
AP_OPERATORS = {
    "ap_shift": ("((ap_uint<4>)i) << 2", lambda i: (wrap(i, 4, False) << 2) % 16),
    "ap_complement": ("~(ap_uint<4>)i", lambda i: 15 - wrap(i, 4, False)),
    "ap_signed_shift": ("(((ap_int<5>)i) << 1) + 32",
                        lambda i: wrap(2 * wrap(i, 5, True), 5, True) + 32),
    "ap_widened_sum": ("(ap_uint<4>)i + (ap_uint<4>)15", lambda i: wrap(i, 4, False) + 15),
    "c_complement": ("~i + 256", lambda i: 255 - i),
}


@pytest.mark.parametrize("case", sorted(AP_OPERATORS))
def test_ap_int_operators_keep_their_result_width(case, tmp_path):
    index, c_value = AP_OPERATORS[case]
    path = tmp_path / "conv.cpp"
    path.write_text("#include <ap_int.h>\n" + kernel_source("", index))
    compiled = arraypart.compile_kernel(path)
    assert list(model_indices(compiled)) == [c_value(i) for i in range(TRIPS)]



# ap_[u]int scalars: (type of k, declarations in the body, step of k, index, C's index
# at iteration i).  They were not followed at all, so every index they formed was
# irregular.
AP_SCALARS = {
    "initialized": ("uint8_t", "ap_uint<3> j = i;", "", "j", lambda i: i % 8),
    "signed_init": ("uint8_t", "ap_int<4> d = i;", "", "d + 8",
                    lambda i: wrap(i, 4, True) + 8),
    "stepped": ("ap_uint<4>", "", "k += 5;", "k", lambda i: wrap(5 * i, 4, False)),
    "incremented": ("ap_uint<5>", "", "k++;", "k + 100", lambda i: wrap(i, 5, False) + 100),
    "wide_down": ("ap_uint<40>", "", "k -= 3;", "k % 256",
                  lambda i: wrap(-3 * i, 40, False) % 256),
    "sum_of_two": ("ap_uint<4>", "ap_uint<5> s = k + (ap_uint<3>)i;", "k += 7;", "s",
                   lambda i: wrap(7 * i, 4, False) + i % 8),
}


@pytest.mark.parametrize("case", sorted(AP_SCALARS))
def test_an_ap_int_scalar_is_followed_and_wraps_at_its_width(case, tmp_path):
    k_type, declarations, step, index, c_value = AP_SCALARS[case]
    path = tmp_path / "conv.cpp"
    path.write_text("#include <ap_int.h>\n" + kernel_source(declarations, index, step)
                    .replace("uint8_t k = 0;", f"{k_type} k = 0;"))
    compiled = arraypart.compile_kernel(path)
    assert list(model_indices(compiled)) == [c_value(i) for i in range(TRIPS)]



def test_an_ap_int_scalar_written_through_a_member_is_opaque(tmp_path):
    """x.range(5, 4) = 3 changes x where the model cannot follow: the index is
    irregular, never x's old value."""
    path = tmp_path / "conv.cpp"
    path.write_text("#include <ap_int.h>\n" + kernel_source(
        "ap_uint<6> x = i % 16; x.range(5, 4) = 3;", "x"))
    compiled = arraypart.compile_kernel(path)
    read = next(a for loop in compiled.report.kernel.body
                for s in getattr(loop, "body", ()) for a in getattr(s, "accesses", ())
                if a.array == "buf" and a.kind == "read")
    assert read.index[0] is None

def test_a_wrapped_index_is_banked_on_the_element_it_reads(tmp_path):
    """buf[(uint8_t)(i + 192)] + buf[i] on one port: at i >= 64 the first read is
    buf[i - 64].  The model used to read buf[i + 192] there (the cast was dropped) and
    banked the two reads on a block partition whose banks C's addresses do not keep
    apart."""
    path = tmp_path / "conv.c"
    path.write_text(kernel_source("", "(uint8_t)(i + 192)] + buf[i")
                    .replace("int buf[256];",
                             "int buf[256];\n#pragma HLS bind_storage variable=buf "
                             "type=ram_1p"))
    compiled = arraypart.compile_kernel(path)
    buf = next(a for a in compiled.report.solution.arrays if a.array.name == "buf")
    assert buf.conflict_free
    bank_of = buf.banking.scheme.maps()[0]
    for i in range(TRIPS):
        first, second = wrap(i + 192, 8, False), i
        assert bank_of[first] != bank_of[second] or (buf.banking.copies > 1), i



# Kernels compiled with g++ and traced: (C++, declarations in the body, reads of buf,
# step of k, k's type).  Each reads buf twice per cycle on one port.
TRACED = {
    "implicit_schar": (False, "signed char c = i;", "c + 128] + buf[k", "k += 3;", "uint8_t"),
    "unsigned_negation": (False, "", "-(unsigned)i % 8] + buf[k", "k += 3;", "uint8_t"),
    # the model kept k = -3(i + 1) and refused the kernel
    "unsigned_counter": (False, "", "k % 256] + buf[(k + 1u) % 256", "k -= 3;", "unsigned"),
    # the model read ap_uint<4>(i) << 2 as 4i: the program read buf[0] at i = 4 where
    # the model predicted buf[16]
    "ap_shift": (True, "", "((ap_uint<4>)i) << 2] + buf[~(ap_uint<4>)i", "", "uint8_t"),
    "ap_scalars": (True, "ap_int<5> d = i * 3;", "k] + buf[d + 16", "k += 5;", "ap_uint<4>"),
}


def traced_kernel(cases: list[str]) -> str:
    """The TRACED ``cases`` in one kernel: each reads an array of its own,
    ``buf_<case>``, with a scalar of its own, ``k_<case>``."""
    def own(text: str, case: str) -> str:
        return re.sub(r"\bk\b", f"k_{case}", text).replace("buf[", f"buf_{case}[")
    return ("#include <stdint.h>\nvoid conv(int in[256], int out[200]) {\n"
            + "".join(f"  int buf_{c}[256];\n"
                      f"#pragma HLS bind_storage variable=buf_{c} type=ram_1p\n" for c in cases)
            + "  for (int c = 0; c < 256; c++) {\n"
            + "".join(f"    buf_{c}[c] = in[c];\n" for c in cases) + "  }\n"
            + "".join(f"  {TRACED[c][4]} k_{c} = 0;\n" for c in cases)
            + f"  for (int i = 0; i < {TRIPS}; i++) {{\n#pragma HLS pipeline II=1\n"
            + "".join(f"    {own(TRACED[c][1], c)}\n" for c in cases if TRACED[c][1])
            + "    out[i] = " + "\n        + ".join(own(f"buf[{TRACED[c][2]}]", c) for c in cases)
            + ";\n" + "".join(f"    {own(TRACED[c][3], c)}\n" for c in cases if TRACED[c][3])
            + "  }\n}\n")


@needs_gxx
@pytest.mark.parametrize("cxx", [False, True], ids=["c", "cxx"])
def test_the_compiled_original_reads_what_the_model_says(cxx, tmp_path):
    """The TRACED cases of one language in one kernel: each array takes two banks for
    its two reads a cycle, check --trace finds the program reading what the model
    says, and the emitted bank indices wrap as C's do (the testbench passes)."""
    cases = sorted(c for c in TRACED if TRACED[c][0] == cxx)
    path = tmp_path / ("conv.cpp" if cxx else "conv.c")
    path.write_text(("#include <ap_int.h>\n" if cxx else "") + traced_kernel(cases))
    compiled = arraypart.compile_kernel(path)
    for case in cases:
        buf = next(a for a in compiled.report.solution.arrays if a.array.name == f"buf_{case}")
        assert buf.conflict_free and buf.banking.scheme.banks * buf.banking.copies == 2, case
    assert_the_trace_agrees(compiled, tmp_path, ports=1)
    assert_the_testbench_passes(compiled, tmp_path)


def test_an_unsigned_difference_in_a_condition_wraps(tmp_path):
    """if (i - 1u < 10u): at i = 0 the difference is 2^32 - 1, so the access runs for
    i = 1..10 only (the model ran it at i = 0 too)."""
    path = tmp_path / "conv.c"
    path.write_text(kernel_source("", "i", "").replace(
        "out[i] = buf[i];", "if (i - 1u < 10u) out[i] = buf[i];"))
    compiled = arraypart.compile_kernel(path)
    branch = next(n for loop in compiled.report.kernel.body
                  for n in getattr(loop, "body", ()) if hasattr(n, "cond"))
    assert branch.cond is not None, "the condition became data dependent"
    runs = [i for i in range(TRIPS) if any(
        all(_holds(c, i) for c in conjunction) for conjunction in branch.cond)]
    assert runs == list(range(1, 11))


WIDE = """\
#include <stdint.h>
#include <ap_int.h>
void wide(int in[256], int out[200]) {
  int buf[256];
  for (int c = 0; c < 256; c++) { buf[c] = in[c]; }
  uint64_t k = 0;
  for (uint64_t i = 0; i < 200; i++) {
#pragma HLS pipeline II=1
    ap_uint<64> w = i - 2;
    int v = buf[k % 3] + buf[(i - 1) % 4] + buf[(int)(w >> 58)];
    if (i - 1 >= 150) v += buf[i];
    out[i] = v;
    k -= 3;
  }
}
"""


def test_a_wide_unsigned_value_below_zero_is_2_to_the_64_more(tmp_path):
    """uint64_t and ap_uint<64> values wrap at 2^64, beyond the front end's integers,
    which keep i - 1 at -1 (an index of it is out of bounds either way).  But / % >> and
    comparisons tell -1 from 2^64 - 1: k % 3 with k = -3i is 1 in C (the model said 0),
    w >> 58 is 63 at i < 2 (the model refused the kernel: index -1), i - 1 >= 150 holds
    at i = 0.  Those indices are irregular, % by a power of two stays exact, and the
    comparison is split on the difference's sign."""
    path = tmp_path / "wide.cpp"
    path.write_text(WIDE)
    compiled = arraypart.compile_kernel(path)
    loop = compiled.report.kernel.body[-1]
    reads = [a.index[0] for s in loop.body for a in getattr(s, "accesses", ())
             if a.array == "buf"]
    assert reads[0] is None and reads[2] is None
    assert list(E.evaluate(reads[1], {"i": np.arange(TRIPS)})) == [
        wrap(i - 1, 64, False) % 4 for i in range(TRIPS)]
    branch = next(n for n in loop.body if hasattr(n, "cond"))
    runs = [i for i in range(TRIPS) if any(
        all(_holds(c, i) for c in conjunction) for conjunction in branch.cond)]
    assert runs == [i for i in range(TRIPS) if wrap(i - 1, 64, False) >= 150]
    if HAVE_GXX:
        assert_the_trace_agrees(compiled, tmp_path, ports=2)


# A subscript whose sum exceeds 32 bits (2^40 + i) in a flat bank formula, and one that
# exceeds numpy's int64 (2^63 - 1 + i), where arraypart computes every subscript.
BEYOND_32_BITS = """\
void beyond(const int in[12], int out[12]) {
  int buf[12];
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int i = 0; i < 12; i++) buf[i] = in[i];
  for (%s i = 0; i < 12; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[(i + %s) %% 12] + buf[(i + 1) %% 12];
  }
}
"""


@needs_gxx
def test_a_bank_formula_beyond_32_bits_is_computed_in_64(tmp_path):
    """(i + 2^40) mod 12 is i + 4 mod 12; cast to 32 bits it would be i mod 12, and the
    banked kernel would read other elements than the original."""
    path = tmp_path / "beyond.cpp"
    path.write_text(BEYOND_32_BITS % ("int", "1099511627776LL"))
    compiled = arraypart.compile_kernel(path)
    assert_the_testbench_passes(compiled, tmp_path)


@pytest.mark.parametrize("constant, reach", [
    ("9223372036854775807ull", r"i \+ 9223372036854775807 reaches 9223372036854775818"),
    # past a C long: isl took no such constant, an internal error (probe 38b M7)
    ("18446744073709551615ull", r"i \+ 18446744073709551615 reaches 18446744073709551626")])
def test_a_subscript_beyond_64_bit_signed_is_a_located_error(tmp_path, constant, reach):
    path = tmp_path / "beyond.cpp"
    path.write_text(BEYOND_32_BITS % ("unsigned long long", constant))
    with pytest.raises(KernelError, match=rf"beyond.cpp:7:14: .*{reach}, a constant out of "
                       r"the range"):
        arraypart.compile_kernel(path)


def _holds(constraint, i: int) -> bool:
    value = int(E.evaluate(constraint.expr, {"i": np.int64(i)}))
    return value >= 0 if constraint.op == ">=" else value == 0


# Random conversions: (form, type, a, b, q) reads buf[form(a*i + b) + shift].  The ap
# forms: a cast to ap_[u]int, then << q % 4 or ~, which keep the type's width.
TYPES = {"uint8_t": (8, False), "int8_t": (8, True), "uint16_t": (16, False),
         "int16_t": (16, True), "ap_uint<5>": (5, False), "ap_int<6>": (6, True),
         "ap_uint<12>": (12, False), "ap_int<3>": (3, True)}
AP_FORMS = ("ap_cast", "ap_shift", "ap_not")
FUZZ_EXAMPLES = int(os.environ.get("ARRAYPART_EXAMPLES", "4"))


def _term_source(form: str, ctype: str, a: int, b: int, q: int) -> str:
    value = f"({a} * i + ({b}))"
    return {"cast": f"({ctype}){value}",
            "cast_rem": f"({ctype}){value} % {q}",
            "unsigned_rem": f"({value} + 0u) % {q}",
            "unsigned_shift": f"({value} + 0u) >> 28",
            "ap_cast": f"({ctype}){value}",
            "ap_shift": f"(({ctype}){value}) << {q % 4}",
            "ap_not": f"~({ctype}){value}"}[form]


def _term_value(form: str, ctype: str, a: int, b: int, q: int, i: int) -> int:
    width, signed = TYPES[ctype]
    if form in ("cast", "ap_cast"):
        return wrap(a * i + b, width, signed)
    if form == "ap_shift":
        return wrap(wrap(a * i + b, width, signed) << (q % 4), width, signed)
    if form == "ap_not":
        return wrap(-wrap(a * i + b, width, signed) - 1, width, signed)
    if form == "cast_rem":
        return wrap(a * i + b, width, False) % q  # only unsigned types draw this form
    unsigned = wrap(a * i + b, 32, False)
    return unsigned % q if form == "unsigned_rem" else unsigned >> 28


@st.composite
def conversion_kernels(draw):
    forms = ("cast", "cast_rem", "unsigned_rem", "unsigned_shift") + AP_FORMS
    term = st.tuples(st.sampled_from(forms), st.sampled_from(sorted(TYPES)),
                     st.sampled_from((-3, -1, 1, 2, 5)), st.integers(-300, 300),
                     st.integers(2, 9)).filter(
        lambda t: (t[0] in AP_FORMS) == t[1].startswith("ap_")
        and (t[0] != "cast_rem" or not TYPES[t[1]][1]))
    start = draw(st.integers(-4, 2))
    return start, draw(st.integers(2, 40)), tuple(draw(st.lists(term, min_size=1,
                                                                max_size=3)))


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(conversion_kernels())
def test_random_conversions_give_c_s_addresses(tmp_path_factory, kernel):
    start, trips, terms = kernel
    iterations = range(start, start + trips)
    values = [[_term_value(*t, i) for i in iterations] for t in terms]
    shifts = [-min(v) for v in values]
    size = max(max(v) + s for v, s in zip(values, shifts)) + 1
    reads = " + ".join(f"buf[({_term_source(*t)}) + {s}]" for t, s in zip(terms, shifts))
    path = tmp_path_factory.mktemp("cv") / "cv.cpp"
    path.write_text("#include <stdint.h>\n#include <ap_int.h>\n"
                    f"void cv(int in[{size}], int out[{trips}]) {{\n  int buf[{size}];\n"
                    f"  for (int c = 0; c < {size}; c++) {{ buf[c] = in[c]; }}\n"
                    f"  for (int i = {start}; i < {start + trips}; i++) {{\n"
                    f"#pragma HLS pipeline II=1\n    out[i - ({start})] = {reads};\n  }}\n}}\n")
    kernel = arraypart.analyze(path).kernel
    model = [a for loop in kernel.body
             for s in getattr(loop, "body", ()) for a in getattr(s, "accesses", ())
             if a.array == "buf" and a.kind == "read"]
    model.sort(key=lambda a: a.coord.col)
    for access, expected, shift in zip(model, values, shifts):
        if access.index[0] is None:
            continue  # irregular: may hit any element, never a wrong one
        got = np.broadcast_to(E.evaluate(access.index[0], {"i": np.arange(start, start
                                                                          + trips)}),
                              (trips,))
        assert list(got) == [v + shift for v in expected], path.read_text()


def test_an_iterator_stepped_through_a_conversion_keeps_its_constant_step(tmp_path):
    """for (ap_uint<16> j = 0; j < 64; j = j + 4) (Rosetta 3d-rendering's OUTPUT_FB_COL):
    the sum converts back to ap_uint<16>, and the loop's bounds keep j in range, so
    the step is 4 and a[j + 3] is regular."""
    path = tmp_path / "step.cpp"
    path.write_text('#include "ap_int.h"\n'
                    "void step(int a[64], int out[16]) {\n"
                    "  for (ap_uint<16> j = 0; j < 64; j = j + 4) {\n"
                    "#pragma HLS pipeline II=1\n"
                    "    out[j / 4] = a[j] + a[j + 3];\n  }\n}\n")
    report = arraypart.analyze(path)
    loop = next(n for n in report.kernel.body if hasattr(n, "var"))
    assert loop.step == 4
    assert not [w for w in report.warnings if "not affine" in w]


@pytest.mark.parametrize("header, end", [
    ("uint8_t i = 0; i < 300; i++", 300), ("uint8_t i = 0; i <= 255; i++", 256),
    ("unsigned i = 9; i >= 0; i--", -1), ("int8_t i = -128; i < 127; i += 2", 128)])
def test_an_iterator_that_wraps_before_its_loop_ends_is_a_located_error(header, end,
                                                                         tmp_path):
    """C's loop goes on where the iterator's type cannot hold the value that ends it;
    the model counted a trip count that C never runs."""
    path = tmp_path / "wraps.c"
    path.write_text("#include <stdint.h>\nvoid wraps(int a[512], int out[512]) {\n"
                    f"  for ({header}) {{\n#pragma HLS pipeline II=1\n"
                    "    out[i + 128] = a[i + 128];\n  }\n}\n")
    with pytest.raises(KernelError) as error:
        arraypart.analyze(path)
    assert error.value.coord.line == 3 and f"that would end this loop, {end} " in str(
        error.value)


@pytest.mark.parametrize("header, located", [
    ("uint8_t i = 255; i != 0; i++", True), ("int i = 3; i != -1; i--", False),
    ("int i = 2; i != 1; i--", False), ("uint8_t i = 0; i != 3; i--", True)])
def test_a_not_equal_loop_that_starts_past_its_bound_is_a_located_error(header, located,
                                                                        tmp_path):
    """``for (uint8_t i = 255; i != 0; i++)`` runs once, until i wraps to 0; it was
    read as ``i < 0``, no trip, and its pipeline's reads were never counted (check
    claimed II 1 where the recorded run needs II 4; probe 29b item 7)."""
    path = tmp_path / "ne.c"
    path.write_text("#include <stdint.h>\nvoid ne(int a[512], int out[512]) {\n"
                    f"  for ({header}) {{\n#pragma HLS pipeline II=1\n"
                    "    out[3 * i + 4] = a[i + 4] + a[i + 5];\n  }\n}\n")
    if not located:
        arraypart.analyze(path)
        return
    with pytest.raises(KernelError) as error:
        arraypart.analyze(path)
    assert error.value.coord.line == 3 and "wrapping around" in str(error.value)


def test_an_iterator_whose_type_holds_its_end_value_is_fine(tmp_path):
    path = tmp_path / "fits.c"
    path.write_text("#include <stdint.h>\nvoid fits(int a[512], int out[512]) {\n"
                    "  for (uint8_t i = 0; i < 255; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = a[i];\n  }\n}\n")
    assert arraypart.analyze(path).kernel.name == "fits"


# Issue 13, M6: an unsigned iterator counted down until it wraps around below 0.  The
# size is a size_t: an int n may be negative (no longer taken as at least 0), where
# size_t i = n - 1; i < n starts far past every array.
COUNTED_TO_THE_WRAP = """#include <limits.h>
#include <stddef.h>
#include <stdint.h>
void wrap(const int in[16], int out[16], size_t n) {{
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  for ({header}) {{
#pragma HLS pipeline II=1
    out[i] = buf[i] + buf[15 - i];
  }}
}}
"""


@pytest.mark.parametrize("header, trips", [
    ("size_t i = 15; i != (size_t)-1; --i", 16), ("size_t i = 15; i != SIZE_MAX; i--", 16),
    ("unsigned i = 15; i != UINT_MAX; --i", 16), ("uint8_t i = 15; i != 255; i--", 16),
    ("unsigned i = 15; i < 16; i--", 16), ("unsigned i = 15; i <= 15; i -= 4", 4),
    ("size_t i = n; i != SIZE_MAX; i--", 16), ("size_t i = n - 1; i < n; --i", 15),
    ("size_t i = n; i <= n; i--", 16), ("unsigned i = n - 1; i < n; i--", 15),
    ("unsigned i = 15; i < 16; i += 0xFFFFFFFFu", 16),
    ("uint8_t i = 15; i < 16; i += 255", 16), ("int i = 15; (unsigned)i < 16; i--", 16),
    ("size_t i = n; i-- > 0; ", 15)])
def test_an_unsigned_iterator_counted_down_to_its_wrap_ends_there(header, trips, tmp_path):
    """In C the loop ends where 0 - 1 wraps to the type's largest value, which fails
    the condition: i runs from its start down to 0.  ``!= (size_t)-1`` was refused (the
    end value -1 "wraps around"), ``i < 16`` counting down as a direction mismatch, and
    ``!= SIZE_MAX`` from a size ended the model at no trip (then an internal error).
    Probe 39b LOW-7: an unsigned step is taken modulo 2^w (``+= 0xFFFFFFFFu`` is -1,
    was "cannot take the value that would end this loop, 4294967310"); ``(unsigned)i``
    of an int i passes the test as an unsigned i would (was a fresh trip count nothing
    bounds); ``i-- > 0`` is ``i--`` (its subscripts were "any index").
    From ``n - 1`` under ``i < n``: at n = 0 C starts at SIZE_MAX, which fails it, and
    the model from -1 runs no iteration either."""
    path = tmp_path / "wrap.c"
    path.write_text(COUNTED_TO_THE_WRAP.format(header=header))
    report = arraypart.analyze(path, defines={"ARRAYPART_MAX_n": 15})
    loop = report.kernel.body[-1]
    assert (loop.bound, loop.step) == ((E.const(0),), -1 if "i -= 4" not in header else -4)
    assert [(l["trip_count"], l["achieved_ii"]) for l in report.to_json()["loops"]] == [
        (16, 1), (trips, 1)]
    assert all(a.conflict_free for a in report.solution.arrays)


@pytest.mark.parametrize("header, message", [
    ("unsigned i = 15; i >= 0; i--", "cannot take the value that would end this loop, -1"),
    ("unsigned i = n; i >= 0; i--", "cannot take the value that would end this loop, -1"),
    ("uint8_t i = n; i != -1; i--", "cannot take the value that would end this loop, -1"),
    ("unsigned char i = 15; i < 300; i--", "the condition still holds where 'i' wraps"),
    ("uint8_t i = 15; i < 255; i -= 3", "the condition still holds where 'i' wraps"),
    ("int i = 15; i < 16; i--", "its iterator is not unsigned"),
    ("unsigned i = 20; i < 16; i--", "the condition is not known to hold at its start"),
    ("unsigned i = 15; i < n; i--", "the condition is not known to hold at its start"),
    ("size_t i = n; i < n; i--", "the condition is not known to hold at its start")])
def test_a_count_down_that_the_wrap_does_not_end_is_a_located_error(header, message,
                                                                    tmp_path):
    """Where the wrapped iterator still passes the test (255 < 300 in int; a signed
    iterator, whose overflow C leaves undefined), or where the start may fail it (no
    iteration runs; ``unsigned i = n - 1`` is ``(n - 1) mod 2^32``, UINT_MAX at
    n = 0, but ``i < n`` compares it as a size_t: 0 trips, as the model's from -1),
    C's loop is not the one counted down to 0: a located error.  A
    count-down from a size was accepted at ``i >= 0`` (and ``uint8_t``'s ``!= -1``,
    compared in int), though it never ends."""
    path = tmp_path / "wrap.c"
    path.write_text(COUNTED_TO_THE_WRAP.format(header=header))
    with pytest.raises(KernelError) as error:
        arraypart.analyze(path, defines={"ARRAYPART_MAX_n": 15})
    assert error.value.coord.line == 7 and message in str(error.value)


# Probe 39b, MEDIUM-3: the same count-downs from an int n, bounded by -D or by a guard.
COUNTED_FROM_AN_INT = """#include <stddef.h>
#include <stdint.h>
void wrap(int n, const int in[16], int out[16]) {{
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  {guard}
  for ({header}) {{
#pragma HLS pipeline II=1
    out[i] = buf[i] + buf[15 - i];
  }}
}}
"""
GUARD = "if (n > 16 || n < 0) return;"


@pytest.mark.parametrize("header, guard, trips", [
    ("uint8_t i = n - 1; i < n; i--", "", 15), ("uint8_t i = n; i <= n; i--", "", 16),
    ("unsigned i = n - 1; i < n; i--", GUARD, 16),
    ("size_t i = n - 1; i < n; i--", GUARD, 16)])
def test_a_count_down_to_the_wrap_from_an_int_size_is_counted(header, guard, trips,
                                                              tmp_path):
    """``uint8_t i = n - 1; i < n`` compares in int: at n <= 0 the wrapped start (0 to
    255) fails ``i < n``, C runs nothing and so does the model from n - 1 < 0; a guard
    ``if (n > 16 || n < 0) return;`` keeps n in [0, 16] for the loop after it, where an
    unsigned or size_t start wraps only at n = 0 (to the type's largest value, which
    fails).  Each was refused ("the condition is not known to hold at its start")."""
    path = tmp_path / "wrap.c"
    path.write_text(COUNTED_FROM_AN_INT.format(header=header, guard=guard))
    report = arraypart.analyze(path, defines={} if guard else {"ARRAYPART_MAX_n": 15})
    assert [(l["trip_count"], l["achieved_ii"]) for l in report.to_json()["loops"]] == [
        (16, 1), (trips, 1)]
    # the least value where the accesses change: every smaller n runs nothing either
    assert report.kernel.params[0].low == (-1 if "<=" in header else 0)
    assert all(a.conflict_free for a in report.solution.arrays)


@pytest.mark.parametrize("header, start, limit", [
    ("unsigned i = n - 1; i < n; i--", 4294967294, 4294967295),
    ("size_t i = n - 1; i < n; i--", 2 ** 64 - 2, 2 ** 64 - 1)])
def test_a_count_down_from_an_int_that_may_be_negative_names_the_value(header, start,
                                                                       limit, tmp_path):
    """With only -D bounding n (above), n = -1 makes the start 2^w - 2 and the limit
    ``(unsigned)n`` 2^w - 1: C runs the loop from there, past buf; a located error
    that says so, not a count from n - 1."""
    path = tmp_path / "wrap.c"
    path.write_text(COUNTED_FROM_AN_INT.format(header=header, guard=""))
    with pytest.raises(KernelError) as error:
        arraypart.analyze(path, defines={"ARRAYPART_MAX_n": 16})
    assert error.value.coord.line == 7
    assert f"at n = -1 'i' starts at {start}" in str(error.value)
    assert f"compares it with {limit}" in str(error.value)


@needs_gxx
def test_a_guarded_count_down_from_an_int_computes_what_c_computes(tmp_path):
    """The guarded ``unsigned i = n - 1; i < n`` kernel, built with g++ against the
    original (n driven through its range) and traced."""
    path = tmp_path / "wrap.c"
    path.write_text(COUNTED_FROM_AN_INT.format(header="unsigned i = n - 1; i < n; i--",
                                               guard=GUARD))
    compiled = arraypart.compile_kernel(path)
    assert_the_testbench_passes(compiled, tmp_path)
    (tmp_path / "trace").mkdir()
    assert_the_trace_agrees(compiled, tmp_path / "trace", ports=2)


@needs_gxx
def test_loops_counted_down_to_the_wrap_compute_what_c_computes(tmp_path):
    """M6 and M6b of issue 13 in one kernel on single-port banks, with ``for (size_t
    i = n - 1; i < n; --i)`` (n driven 15, 0, 7): 16 trips each, and ``buf[i]``,
    ``buf[15 - i]`` (unsigned) in different halves (block 2), built with g++ against
    the original and traced."""
    path = tmp_path / "wrap.c"
    path.write_text(COUNTED_TO_THE_WRAP.format(header="size_t i = 15; i != (size_t)-1; --i")
                    .replace("  }\n}\n", "  }\n  for (unsigned i = 15; i < 16; i--) {\n"
                             "#pragma HLS pipeline II=1\n"
                             "    out[15 - i] += buf[i] * buf[15 - i];\n  }\n"
                             "  for (size_t i = n - 1; i < n; --i) {\n"
                             "#pragma HLS pipeline II=1\n"
                             "    out[i] -= buf[i] + buf[15 - i];\n  }\n}\n")
                    .replace("int buf[16];", "int buf[16];\n"
                             "#pragma HLS bind_storage variable=buf type=ram_1p"))
    compiled = arraypart.compile_kernel(path, defines={"ARRAYPART_MAX_n": 15})
    loops = compiled.report.to_json()["loops"]
    assert [(l["trip_count"], l["achieved_ii"]) for l in loops] == [(16, 1)] * 3 + [(15, 1)]
    buf = next(a for a in compiled.report.to_json()["arrays"] if a["name"] == "buf")
    assert buf["conflict_free"] and buf["scheme"]["dims"] == [{"type": "block", "factor": 2}]
    assert_the_testbench_passes(compiled, tmp_path)
    (tmp_path / "trace").mkdir()
    assert_the_trace_agrees(compiled, tmp_path / "trace", ports=2)


def test_a_loop_start_converted_from_a_size_the_data_chose_keeps_its_range(tmp_path):
    """int j = s with unsigned s = P[r] (a CSR row start, HLSFactory's student kernels):
    the 32-bit conversion of a value whose range only the arrays fix is the value
    itself (they differ only beyond 2^31, outside every array); read as the signed
    modular form, the start's range began at -2^31 and the kernel was refused."""
    path = tmp_path / "csr.cpp"
    path.write_text("void csr(int P[65], int A[64], int y[64]) {\n"
                    "  for (int r = 0; r < 64; r++) {\n"
                    "    unsigned int s = P[r];\n    int e = P[r + 1];\n    int sum = 0;\n"
                    "    for (int j = s; j < e; j++) {\n"
                    "#pragma HLS loop_tripcount max = 4\n      sum += A[j];\n    }\n"
                    "    y[r] = sum;\n  }\n}\n")
    report = arraypart.analyze(path)
    (size,) = [p for p in report.kernel.params if p.name.startswith("s@")]
    assert size.low == 0 and not size.unbounded


# ---------------------------------------------------------------- bit updates of elements

# A write of some bits of an array element keeps the others: the word is read, then
# written, two accesses of one element (the model used to see a read, or a write).
# Each updates an array of its own, ``buf_<case>``.
BIT_UPDATES = {
    "bit_ref": "buf_bit_ref[i][3] = 1;",
    "set_bit": "buf_set_bit[i].set_bit(3, in[i][0]);",
    "call_select": "buf_call_select[i](7, 6) = 2;",
    "range": "buf_range[i].range(3, 0) = in[i].range(7, 4);",
}


def _one_port_copies_of_in(ctype: str, arrays: list[str]) -> str:
    """Kernel text declaring each of ``arrays`` (64 ``ctype``, on ``ram_1p``) and a loop
    filling each with ``in[i]``: one memory of its own per case of a combined kernel."""
    return ("".join(f"  {ctype} {a}[64];\n#pragma HLS bind_storage variable={a} type=ram_1p\n"
                    for a in arrays)
            + "  for (int i = 0; i < 64; i++) {\n"
            + "".join(f"    {a}[i] = in[i];\n" for a in arrays) + "  }\n")


def test_a_bit_update_of_an_element_reads_and_writes_it(tmp_path):
    arrays = [f"buf_{case}" for case in sorted(BIT_UPDATES)]
    path = tmp_path / "bits.cpp"
    path.write_text("#include <ap_int.h>\n"
                    "void bits(const ap_uint<8> in[64], ap_uint<8> out[64]) {\n"
                    + _one_port_copies_of_in("ap_uint<8>", arrays)
                    + "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                    + "".join(f"    {BIT_UPDATES[case]}\n" for case in sorted(BIT_UPDATES))
                    + "  }\n  for (int i = 0; i < 64; i++) out[i] = "
                    + " ^ ".join(f"{a}[i]" for a in arrays) + ";\n}\n")
    compiled = arraypart.compile_kernel(path)
    warnings = " ".join(compiled.report.warnings)
    for a in arrays:
        kinds = sorted(x.kind for s in compiled.report.kernel.body[1].body
                       for x in s.accesses if x.array == a)
        assert kinds == ["read", "write"], a
        assert f"one element of {a} is read and written in one iteration" in warnings
    if HAVE_GXX:
        assert_the_trace_agrees(compiled, tmp_path, ports=1)


@needs_gxx
@pytest.mark.parametrize("update", [
    "buf[i].range(3, 0) = in[i].range(W - 1, W - 4);", "buf[i].set_bit(W - 1, 1);"],
    ids=["range", "set_bit"])
def test_a_bit_update_in_a_template_traces_as_modelled(update, tmp_path):
    """In a template over the width, clang leaves ``buf[i].range(..)`` unnamed (the
    object's type depends on W): the model and the recorded run took the update for
    a write or a read, and check --trace disagreed (BlockPU's weight loaders, probe
    27).  (A subscripted bit, ``buf[i][3]``, is a subscript of a subscript there.)"""
    path = tmp_path / "bits.cpp"
    path.write_text("#include <ap_int.h>\n"
                    "template <int W>\n"
                    "void upd(ap_uint<W> buf[64], const ap_uint<W> in[64]) {\n"
                    "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                    f"    {update}\n  }}\n}}\n"
                    "void bits(const ap_uint<8> in[64], ap_uint<8> out[64]) {\n"
                    "  ap_uint<8> buf[64];\n"
                    "  for (int i = 0; i < 64; i++) buf[i] = in[i];\n"
                    "  upd<8>(buf, in);\n"
                    "  for (int i = 0; i < 64; i++) out[i] = buf[i];\n}\n")
    compiled = arraypart.compile_kernel(path, ports=1)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


ROUTED_BIT_UPDATES = """
#include <ap_int.h>
void routed(const ap_uint<8> in[96], ap_uint<8> out[96]) {
    ap_uint<8> buf[96];
    for (int i = 0; i < 96; i++) buf[i] = in[i];
    for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
        buf[3 * i][0] = 1;
        buf[3 * i + 1].set_bit(5, in[i][3]);
    }
    for (int i = 0; i < 96; i++) out[i] = buf[i];
}
"""


@needs_gxx
def test_a_bit_update_through_bank_routing_keeps_the_other_bits(tmp_path):
    """The banks of buf[3i] and buf[3i + 1] alternate with i: both are routed through
    lane registers, and the update works on the write register, loaded from the read
    one (the emitted kernel used to update the read register and store garbage)."""
    path = tmp_path / "routed.cpp"
    path.write_text(ROUTED_BIT_UPDATES)
    compiled = arraypart.compile_kernel(path)
    emitted = compiled.files["routed.cpp"]
    assert "(buf_wv[0] = buf_rv[0], buf_wv[0][0] = 1);" in emitted
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


def test_a_bit_update_of_a_replicated_array_is_a_located_error(tmp_path):
    path = tmp_path / "copies.cpp"
    path.write_text("#include <ap_int.h>\n"
                    "void copies(const ap_uint<8> in[64], const ap_uint<6> idx[64],\n"
                    "            ap_uint<8> out[64]) {\n"
                    "  ap_uint<8> t[64];\n#pragma HLS bind_storage variable=t type=ram_1p\n"
                    "  for (int i = 0; i < 64; i++) t[i] = in[i];\n"
                    "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = t[idx[i]] + t[(int)idx[i] ^ 1] + t[(int)idx[i] ^ 2];\n  }\n"
                    "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=2\n"
                    "    t[i][0] = 1;\n  }\n}\n")
    with pytest.raises(KernelError, match=r"copies.cpp:13:5: .*a part of an element of "
                                          r"replicated array 't' is written"):
        arraypart.compile_kernel(path)


# ---------------------------------------------------------------- bit reads in subscripts

# ap_[u]int members that read bits, in a subscript: (code, value at i) for i in 0..63.
# They were irregular (any element).  d = i - 32 is an ap_int<8>, negative for i < 32:
# its bits are those of its two's complement.
BIT_READS = {
    "range": ("a.range(5, 3)", lambda i: (i >> 3) & 7),
    "call": ("a(2, 0) + 8", lambda i: (i & 7) + 8),
    "bit": ("16 + 2 * a[0]", lambda i: 16 + 2 * (i & 1)),
    "get_bit": ("20 + a.get_bit(1)", lambda i: 20 + ((i >> 1) & 1)),
    "to_uint": ("a.to_uint() % 8 + 24", lambda i: i % 8 + 24),
    "signed_range": ("d.range(4, 1)", lambda i: ((i - 32) >> 1) & 15),
    "sign_bit": ("d[7] * 16 + 32", lambda i: 16 * (i < 32) + 32),
}


def test_bits_read_in_a_subscript_are_quasi_affine(tmp_path):
    """Each of BIT_READS reads an array of its own, ``buf_<case>``, beside a plain read
    of it (two reads a cycle of a one-port memory, in one kernel): its index takes the
    values of the bits at every iteration, and the traced original and the emitted
    code agree with the model."""
    cases = sorted(BIT_READS)
    path = tmp_path / "bitread.cpp"
    path.write_text("#include <ap_int.h>\n"
                    "void bitread(const int in[64], int out[64]) {\n"
                    + _one_port_copies_of_in("int", [f"buf_{c}" for c in cases])
                    + "  for (ap_uint<7> a = 0; a < 64; a++) {\n#pragma HLS pipeline II=1\n"
                    "    ap_int<8> d = a - 32;\n    out[a] = "
                    + "\n        + ".join(f"buf_{c}[{BIT_READS[c][0]}] + buf_{c}[63 - a]"
                                          for c in cases)
                    + ";\n  }\n}\n")
    compiled = arraypart.compile_kernel(path)
    statement = compiled.report.kernel.body[1].body[-1]
    for case in cases:
        read = next(a for a in statement.accesses if a.array == f"buf_{case}")
        assert read.index[0] is not None, (case, compiled.report.warnings)
        got = np.broadcast_to(E.evaluate(read.index[0], {"a": np.arange(64)}), (64,))
        assert list(got) == [BIT_READS[case][1](i) for i in range(64)], case
    if HAVE_GXX:
        assert_the_trace_agrees(compiled, tmp_path, ports=1)
        assert_the_testbench_passes(compiled, tmp_path)


def test_a_free_function_named_like_a_bit_reader_is_no_part_select(tmp_path):
    """``range(a, 5, 3)`` is the user's own function, not ``a.range(5, 3)``."""
    path = tmp_path / "free.cpp"
    path.write_text("int range(int v, int h, int l) { return v + h + l; }\n"
                    "void free(const int in[64], int out[32]) {\n"
                    "  int buf[64];\n"
                    "  for (int i = 0; i < 64; i++) buf[i] = in[i];\n"
                    "  for (int i = 0; i < 32; i++) {\n#pragma HLS pipeline II=1\n"
                    "    int k = range(i, 5, 3);\n"
                    "    out[i] = buf[k];\n  }\n}\n")
    compiled = arraypart.compile_kernel(path)
    read = next(a for a in compiled.report.kernel.body[1].body[-1].accesses
                if a.array == "buf")
    assert read.index[0] is None or list(np.broadcast_to(
        E.evaluate(read.index[0], {"i": np.arange(32)}), (32,))) == [i + 8 for i in range(32)]
