"""Phase switches: an array whose text stays (pragma-only) gets compile-time bank
indices where its banks rotate with a pipelined loop's iterator (codegen/phases.py).

The kernel unpacks 64-bit words into a buffer four lanes at a time, in a sub-function's
text, while another sub-function reads sixteen elements per cycle: two ports per bank
need cyclic 8, under which the unpacking lanes' banks ``(4*i + j) mod 8`` rotate with
period 2.  As written, each of the eight lane sites (4 reads, 4 writes: ``+=``) would
take a port of every bank (II 4); one case per phase gives each bank one read and one
write site (II 1)."""

import pytest

import arraypart

from conftest import assert_the_trace_agrees, needs_gxx, run_testbench

UNPACK = """\
#define N 64

static void unpack(const unsigned long long words[N / 4], int buf[N]) {
    UNPACK: for (int i = 0; i < N / 4; i++) {
#pragma HLS pipeline II=1
        unsigned long long w = words[i];
        LANES: for (int j = 0; j < 4; j++)
            buf[4 * i + j] += (int)((w >> (16 * j)) & 0xffff);
    }
}

static int sum16(const int buf[N]) {
    int s = 0;
    SUM: for (int k = 0; k < N / 16; k++) {
#pragma HLS pipeline II=1
        for (int j = 0; j < 16; j++)
            s += buf[16 * k + j];
    }
    return s;
}

void unpack_sum(const unsigned long long words[N / 4], int out[1]) {
    int buf[N];
    INIT: for (int i = 0; i < N; i++)
        buf[i] = i;
    unpack(words, buf);
    out[0] = sum16(buf);
}
"""


def _compile(tmp_path, text: str):
    path = tmp_path / "unpack_sum.c"
    path.write_text(text)
    return arraypart.compile_kernel(str(path), top="unpack_sum")


def _iis(compiled) -> dict[str, int]:
    return {loop["name"]: loop["achieved_ii"] for loop in compiled.report.to_json()["loops"]}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    return _compile(tmp_path_factory.mktemp("phases"), UNPACK)


def test_rotating_lanes_in_shared_text_get_one_case_per_phase(compiled):
    buf = next(a for a in compiled.report.solution.arrays if a.array.name == "buf")
    assert buf.array.pragma_only
    assert buf.banking.scheme.describe().startswith("per_dim cyclic 8:")
    text = compiled.files["unpack_sum.cpp"]
    assert "switch (i % 2) {" in text and "case 1: {" in text
    assert "8*(i / 2) + 4 + (4 * i + j - 4*i)" in text  # phase 1: banks 4..7
    assert "LANES_p1: for" in text and text.count("LANES: for") == 1
    body = text[text.index("static void unpack"):text.index("static int sum16")]
    assert max(len(line) for line in body.splitlines()) <= 100
    assert _iis(compiled) == {"INIT": 1, "unpack/UNPACK": 1, "sum16/SUM": 1}


@needs_gxx
def test_the_phased_kernel_computes_what_the_original_does(compiled, tmp_path):
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


def test_a_statement_touching_another_array_keeps_its_text(tmp_path):
    """A copy per phase would give the other array one site per case: no switch, and
    the rotating lanes cost the unpacking loop its II, as the report says."""
    text = UNPACK.replace("void unpack(const unsigned long long words[N / 4], int buf[N])",
                          "void unpack(const unsigned long long words[N / 4], int buf[N],"
                          " const int bias[4])")
    text = text.replace("& 0xffff);", "& 0xffff) + bias[j];")
    text = text.replace("void unpack_sum(const unsigned long long words[N / 4], int out[1])",
                        "void unpack_sum(const unsigned long long words[N / 4], "
                        "const int bias[4], int out[1])")
    text = text.replace("unpack(words, buf);", "unpack(words, buf, bias);")
    compiled = _compile(tmp_path, text)
    assert "switch" not in compiled.files["unpack_sum.cpp"]
    assert _iis(compiled)["unpack/UNPACK"] > 1


def test_a_loop_whose_iterator_may_be_negative_is_not_phased(tmp_path):
    """C's ``%`` of a negative iterator is negative: no case would match."""
    text = UNPACK.replace("for (int i = 0; i < N / 4; i++) {\n#pragma HLS pipeline II=1\n"
                          "        unsigned long long w = words[i];",
                          "for (int i = -1; i < N / 4 - 1; i++) {\n"
                          "#pragma HLS pipeline II=1\n"
                          "        unsigned long long w = words[i + 1];")
    text = text.replace("buf[4 * i + j] +=", "buf[4 * i + 4 + j] +=")
    compiled = _compile(tmp_path, text)
    assert "switch" not in compiled.files["unpack_sum.cpp"]


SLIDING = """\
void sliding(const int a[72], int out[64]) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int j = 0; j < 8; j++) {
#pragma HLS unroll
      s += a[i + j];
    }
    out[i] = s;
  }
}
"""


@needs_gxx
def test_a_sliding_window_on_an_interface_array_reaches_ii_1(tmp_path):
    """An interface keeps its signature and its references, so its eight window reads
    ``a[i + j]`` rotate over any cyclic banks (II 4 under the rule, as one memory).
    Under cyclic 4 the rotation has period 4: one case per phase gives each bank two
    reads with compile-time bank indices (II 1)."""
    path = tmp_path / "sliding.c"
    path.write_text(SLIDING)
    compiled = arraypart.compile_kernel(str(path))
    a = next(s for s in compiled.report.solution.arrays if s.array.name == "a")
    assert a.array.interface and a.banking.scheme.banks == 4 and a.conflict_free
    assert "switch (i % 4) {" in compiled.files["sliding.cpp"]
    assert _iis(compiled) == {"L2": 1}
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
