"""C's / and % truncate toward zero (C99 6.5.5): floor forms only where they are equal.

Each random kernel reads a buffer at C divisions, remainders, right shifts and masks of
affine values that may be negative (``>>`` of a negative int is arithmetic in g++ and
Vitis, a floor; ``& (2^k - 1)`` is a mod in two's complement).  The oracle here is
independent of arraypart's expression trees: it evaluates every index with Python's
C-style truncation, iteration by iteration, and counts the distinct addresses each bank
(of the banking arraypart chose) serves; the emitted kernel, built with g++, must
compute what the original does."""

import math
import os
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arraypart
from arraypart import check

from conftest import HAVE_GXX, assert_the_testbench_passes, needs_gxx

EXAMPLES = int(os.environ.get("ARRAYPART_EXAMPLES", "4"))
PORTS = {1: 1, 2: 2}  # --ports -> accesses one bank serves per cycle (reads only here)


def c_div(a: int, q: int) -> int:
    return int(math.copysign(abs(a) // abs(q), a * q)) if a else 0


def c_rem(a: int, q: int) -> int:
    return a - q * c_div(a, q)


OPERATIONS = {"/": c_div, "%": c_rem,
              ">>": lambda a, k: a >> k,
              "&": lambda a, k: a & ((1 << k) - 1)}


def operand(op: str, q: int) -> int:
    """The C right operand of ``op`` for the term's ``q``."""
    return (1 << q) - 1 if op == "&" else q


@dataclass(frozen=True)
class DivKernel:
    start: int
    trips: int
    unroll: int
    # (op, a, b, q): (a*i + b) op q, or (a*i + b) & (2^q - 1) for op "&"
    terms: tuple[tuple[str, int, int, int], ...]

    def raw(self, i: int) -> list[int]:
        return [OPERATIONS[op](a * i + b, q) for op, a, b, q in self.terms]

    @property
    def iterations(self) -> range:
        return range(self.start, self.start + self.trips)

    @property
    def shift(self) -> int:
        return -min(min(self.raw(i)) for i in self.iterations)

    @property
    def size(self) -> int:
        return max(max(self.raw(i)) for i in self.iterations) + self.shift + 1

    def addresses(self, i: int) -> list[int]:
        return [r + self.shift for r in self.raw(i)]

    def source(self) -> str:
        reads = " + ".join(f"buf[(({a} * i + ({b})) {op} {operand(op, q)}) + {self.shift}]"
                           for op, a, b, q in self.terms)
        unroll = f"#pragma HLS unroll factor={self.unroll}\n" if self.unroll > 1 else ""
        end = self.start + self.trips
        return (f"void dk(int in[{self.size}], int out[{self.trips}]) {{\n"
                f"  int buf[{self.size}];\n"
                f"  for (int c = 0; c < {self.size}; c++) {{ buf[c] = in[c]; }}\n"
                f"  for (int i = {self.start}; i < {end}; i++) {{\n"
                f"#pragma HLS pipeline II=1\n{unroll}"
                f"    out[i - ({self.start})] = {reads};\n  }}\n}}\n")


@st.composite
def div_kernels(draw):
    term = st.tuples(st.sampled_from(sorted(OPERATIONS)), st.sampled_from((-2, -1, 1, 2, 3)),
                     st.integers(-6, 6), st.integers(2, 4))
    return DivKernel(draw(st.integers(-4, 2)), draw(st.integers(2, 12)),
                     draw(st.sampled_from((1, 1, 2))),
                     tuple(draw(st.lists(term, min_size=1, max_size=4))))


def true_ii_ok(kernel: DivKernel, compiled, ports: int) -> bool:
    """Whether every pipeline iteration's reads fit the chosen banking, by C's rules."""
    sol = next(a for a in compiled.report.solution.arrays if a.array.name == "buf")
    banking = sol.banking
    bank_map = banking.scheme.maps()[0]
    loop_reads = sorted((a for a in _buf_reads(compiled.report.kernel.body)),
                        key=lambda a: a.coord.col)
    copy_of = [banking.copy_of(a.ref_id, ()) for a in loop_reads]
    starts = kernel.iterations[::kernel.unroll]
    for first in starts:
        lanes = [i for i in range(first, first + kernel.unroll) if i in kernel.iterations]
        per_bank: dict[tuple[int, int], set[int]] = {}
        for i in lanes:
            for address, copy in zip(kernel.addresses(i), copy_of):
                per_bank.setdefault((copy, int(bank_map[address])), set()).add(address)
        if any(len(addresses) > PORTS[ports] for addresses in per_bank.values()):
            return False
    return True


def _buf_reads(nodes):
    for node in nodes:
        body = getattr(node, "body", None)
        if body is not None:
            if getattr(node, "pipeline_ii", None) is not None:
                yield from (a for s in body for a in getattr(s, "accesses", ())
                            if a.array == "buf" and a.kind == "read")
            else:
                yield from _buf_reads(body)


def test_the_issue_example_is_not_conflict_free_on_one_port(tmp_path):
    """out[i] = buf[(i - 1) / 2 + 1] + buf[(i + 1) / 2]: at i = 0 the reads are buf[1]
    and buf[0] (C truncates -1 / 2 to 0), two addresses in one cycle."""
    path = tmp_path / "issue.c"
    path.write_text("void issue(int in[64], int out[62]) {\n  int buf[64];\n"
                    "#pragma HLS bind_storage variable=buf type=ram_1p\n"
                    "  for (int c = 0; c < 64; c++) { buf[c] = in[c]; }\n"
                    "  for (int i = 0; i < 62; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = buf[(i - 1) / 2 + 1] + buf[(i + 1) / 2];\n  }\n}\n")
    compiled = arraypart.compile_kernel(path)
    buf = next(a for a in compiled.report.solution.arrays if a.array.name == "buf")
    assert buf.banking.scheme.banks * buf.banking.copies >= 2 and buf.conflict_free
    one_memory = {"buf": arraypart.check.as_written_bankings(compiled.report.kernel)["buf"]}
    bankings = {**compiled.report.solution.bankings(), **one_memory}
    result = check.check_kernel(compiled.report.kernel, bankings, ports=2)
    loop = next(lp for lp in result.loops if lp.coord.line == 5)
    assert loop.achieved_ii == 2 and loop.first_conflict.point == (("i", 0),)


def test_a_dividend_of_one_sign_keeps_a_regular_index(tmp_path):
    path = tmp_path / "signs.c"
    path.write_text("void signs(int in[64], int out[32]) {\n"
                    "  for (int i = 0; i < 32; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = in[(i + 1) / 2] + in[(-i - 1) / 2 + 16] + in[(i - 40) % 8 + 7];"
                    "\n  }\n}\n")
    report = arraypart.analyze(path)
    assert report.warnings  # (in keeps one memory: its three banks rotate with i)
    assert not [w for w in report.warnings if "not affine" in w]  # every index stays affine


@needs_gxx
def test_a_shift_of_a_negative_value_is_emitted_as_a_floor(tmp_path):
    """buf[((i - 9) >> 1) + 8] at i = 0 reads buf[3].  The model knew; the emitted
    bank-centric kernel computed the shift as ``(unsigned)(i - 9) / 2u``, far outside
    the banks, and the testbench crashed."""
    path = tmp_path / "shift.c"
    path.write_text("""
        void shift(const int in[64], int out[32]) {
            int buf[64];
        #pragma HLS bind_storage variable=buf type=ram_1p
            for (int i = 0; i < 64; i++) buf[i] = in[i];
            for (int i = 0; i < 32; i++) {
        #pragma HLS pipeline II=1
                out[i] = buf[((i - 9) >> 1) + 8] + buf[((i - 8) >> 2) + 40];
            }
        }""")
    compiled = arraypart.compile_kernel(path)
    assert "~(~(int)(i - 9) / 2)" in compiled.files["shift.cpp"]
    assert_the_testbench_passes(compiled, tmp_path)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(div_kernels())
def test_no_false_conflict_free_claim_with_negative_dividends(tmp_path_factory, kernel):
    tmp_path = tmp_path_factory.mktemp("dk")
    path = tmp_path / "dk.c"
    path.write_text(kernel.source())
    for ports in (1, 2):
        compiled = arraypart.compile_kernel(path, ports=ports)
        buf = next(a for a in compiled.report.solution.arrays if a.array.name == "buf")
        if buf.conflict_free:
            assert true_ii_ok(kernel, compiled, ports), (kernel.source(), ports)
        if HAVE_GXX:
            assert_the_testbench_passes(compiled, tmp_path / f"ports{ports}")
