"""Semantic edge cases (issue: robustness): each kernel goes through the whole flow —
solver (isl proof), independent checker, and, where g++ exists, the emitted code
against the original on random inputs."""

from textwrap import dedent

import pytest

import arraypart
from arraypart import check

from conftest import assert_the_testbench_passes, needs_gxx


def compile_text(tmp_path, name, text, **options):
    path = tmp_path / f"{name}.c"
    path.write_text(dedent(text))
    return arraypart.compile_kernel(path, **options)


def solved(compiled, array):
    for a in compiled.report.solution.arrays:
        if a.array.name == array:
            return a
    raise KeyError(array)


def checker_iis(compiled, ports):
    report = compiled.report
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=ports)
    return {loop.name: loop.achieved_ii for loop in result.loops}


# name, source, ports, array, expected banks x copies, conflict-free
CASES = {
    "zero_trip": ("""
        void zero_trip(int in[8], int out[8]) {
          int buf[8];
          for (int i = 0; i < 8; i++) { buf[i] = in[i]; }
          for (int i = 4; i < 4; i++) {
        #pragma HLS pipeline II=1
            out[i] = buf[i] + buf[i + 1] + buf[i + 2];
          }
        }""", 1, "buf", 1, True),
    "negative_step": ("""
        void negative_step(int in[32], int out[32]) {
          int buf[32];
        #pragma HLS bind_storage variable=buf type=ram_1p
          for (int i = 0; i < 32; i++) { buf[i] = in[i]; }
          for (int i = 29; i >= 0; i--) {
        #pragma HLS pipeline II=1
            out[i] = buf[i] + buf[i + 1] + buf[i + 2];
          }
        }""", 1, "buf", 3, True),
    "triangular": ("""
        void triangular(int in[16][16], int out[16][16]) {
          int buf[16][16];
        #pragma HLS bind_storage variable=buf type=ram_1p
          for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) {
        #pragma HLS pipeline II=1
              buf[i][j] = in[i][j];
            }
          for (int i = 1; i < 16; i++) {
            for (int j = 0; j < i; j++) {
        #pragma HLS pipeline II=1
              out[i][j] = buf[i][j] + buf[i - 1][j];
            }
          }
        }""", 1, "buf", 2, True),
    "guarded": ("""
        void guarded(int in[32], int out[32]) {
          int buf[32];
        #pragma HLS bind_storage variable=buf type=ram_1p
          for (int i = 0; i < 32; i++) { buf[i] = in[i]; }
          for (int i = 0; i < 32; i++) {
        #pragma HLS pipeline II=1
            int s = buf[i];
            if (i > 0) { s += buf[i - 1]; }
            out[i] = s;
          }
        }""", 1, "buf", 2, True),
    "strided": ("""
        void strided(int in[64], int out[32]) {
          int buf[64];
        #pragma HLS bind_storage variable=buf type=ram_1p
          for (int i = 0; i < 64; i++) { buf[i] = in[i]; }
          for (int i = 0; i < 32; i++) {
        #pragma HLS pipeline II=1
            out[i] = buf[2 * i] - buf[2 * i + 1];
          }
        }""", 1, "buf", 2, True),
    "broadcast": ("""
        void broadcast(int in[32], int out[32]) {
          int buf[32];
        #pragma HLS bind_storage variable=buf type=ram_1p
          for (int i = 0; i < 32; i++) { buf[i] = in[i]; }
          for (int i = 0; i < 32; i++) {
        #pragma HLS pipeline II=1
            out[i] = buf[i] * buf[i] + buf[i];
          }
        }""", 1, "buf", 1, True),
    "read_modify_write_dual_port": ("""
        void read_modify_write_dual_port(int in[32], int out[32]) {
          int acc[32];
          for (int i = 0; i < 32; i++) { acc[i] = in[i]; }
          for (int i = 0; i < 32; i++) {
        #pragma HLS pipeline II=1
            acc[i] = acc[i] + 1;
          }
          for (int i = 0; i < 32; i++) { out[i] = acc[i]; }
        }""", 2, "acc", 1, True),
    "untouched_and_tiny": ("""
        void untouched_and_tiny(int in[8], int out[8]) {
          int scratch[8];
          int one[1];
          one[0] = 0;
          for (int i = 0; i < 8; i++) { scratch[i] = in[i]; one[0] += in[i]; }
          for (int i = 0; i < 8; i++) { out[i] = scratch[7 - i] + one[0]; }
        }""", 1, "scratch", 1, True),
    "rom_table": ("""
        void rom_table(int in[32], int out[32]) {
          const int taps[4] = {1, 3, 3, 1};
          for (int i = 0; i < 32; i++) {
        #pragma HLS pipeline II=1
            int s = 0;
            for (int t = 0; t < 4; t++) { s += taps[t] * in[i]; }
            out[i] = s;
          }
        }""", 2, "taps", 4, True),  # complete: registers, each tap its own (bound 2)
    # a guard that always holds, on lanes whose bank rotates: the emitted lane guard was
    # '(())', which no compiler parses
    "constant_true_guard": ("""
        #define TAPS 4
        void constant_true_guard(int in[64], int out[64]) {
          int buf[64];
          for (int i = 0; i < 64; i++) { buf[i] = in[i]; }
          for (int i = 0; i < 64; i++) {
        #pragma HLS pipeline II=1
            int v = 0;
            for (int j = 0; j < 4; j++) {
        #pragma HLS unroll
              if (TAPS > 0) v += buf[(i - j) & 63];
            }
            out[i] = v;
          }
        }""", 2, "buf", 2, True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_case_banking_is_proved_and_checked(name, compiled_once):
    text, ports, array, cost, conflict_free = CASES[name]
    compiled = compiled_once(f"{name}.c", text, ports=ports)
    a = solved(compiled, array)
    assert a.banking.scheme.banks * a.banking.copies == cost, a.banking.scheme.describe()
    assert a.conflict_free is conflict_free
    report = compiled.report
    for loop, ii in checker_iis(compiled, ports).items():
        assert ii == report.planned_ii(loop, ii), loop


@needs_gxx
@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_case_emitted_code_matches_original(name, compiled_once, tmp_path):
    text, ports, *_ = CASES[name]
    assert_the_testbench_passes(compiled_once(f"{name}.c", text, ports=ports), tmp_path)


def test_read_modify_write_on_single_port_cannot_reach_ii_1(tmp_path):
    text = CASES["read_modify_write_dual_port"][0].replace("read_modify_write_dual_port",
                                                          "rmw_single")
    compiled = compile_text(tmp_path, "rmw_single", text, ports=1)
    acc = solved(compiled, "acc")
    assert not acc.conflict_free
    assert max(ii for _, ii in acc.achieved_ii) == 2
    assert max(checker_iis(compiled, 1).values()) == 2


IRREGULAR = """
    void irregular(int idx[32], int lut[64], int out[32]) {
      int table[64];
    #pragma HLS bind_storage variable=table type=ram_1p
      for (int i = 0; i < 64; i++) { table[i] = lut[i]; }
      for (int i = 0; i < 32; i++) {
    #pragma HLS pipeline II=1
        out[i] = table[idx[i]] + table[(idx[i] + 1) & 63];
      }
    }"""


def test_irregular_reads_are_separated_only_by_duplication(compiled_once):
    compiled = compiled_once("irregular.c", IRREGULAR, ports=1)
    table = solved(compiled, "table")
    assert any("irregular" in w for w in compiled.report.warnings)
    assert table.conflict_free and table.banking.copies == 2
    assert max(checker_iis(compiled, 1).values()) == 1


@needs_gxx
def test_irregular_duplicated_code_matches_original(compiled_once, tmp_path):
    assert_the_testbench_passes(compiled_once("irregular.c", IRREGULAR, ports=1), tmp_path)


BRACELESS = {
    "strip_mined": """\
        int strip_mined(int mem[128]) {
          int sum = 0;
          for (int i = 0; i < 128; ++i)
        #pragma HLS unroll factor=4
            sum += mem[i];
          return sum;
        }
        """,
    "routed": """\
        void routed(const int in[64], int out[62]) {
          int buf[64];
        #pragma HLS bind_storage variable=buf type=ram_1p
          for (int i = 0; i < 64; i++)
        #pragma HLS pipeline II=1
            buf[i] = in[i];
          for (int i = 0; i < 62; i++)
        #pragma HLS pipeline II=1
            out[i] = buf[i] + buf[i + 1] + buf[i + 2];
        }
        """,
    "bare": """\
        void bare(const int in[64], int out[16]) {
          int buf[64];
          for (int i = 0; i < 64; i++) buf[i] = in[i];
          for (int i = 0; i < 16; i++)
            out[i] = buf[4 * i] + buf[4 * i + 1] + buf[4 * i + 2] + buf[4 * i + 3]
                     + buf[(4 * i + 5) % 64];
        }
        """,
}


@needs_gxx
@pytest.mark.parametrize("name", sorted(BRACELESS))
def test_a_loop_body_without_braces_is_rewritten_inside_braces(tmp_path, name):
    """A body written without braces, its pragmas between the header and its one
    statement: the lane loop of a partial unroll, or the routing of a bank-centric
    loop, goes inside braces the emission adds (the edits were placed as if the
    statement were a block: the emitted code did not parse, or two edits overlapped)."""
    compiled = compile_text(tmp_path, name, BRACELESS[name])
    emitted = compiled.files[f"{name}.cpp"]
    assert emitted.count("{") == emitted.count("}") and "#pragma HLS unroll" in emitted
    # inside the function every line but a directive is indented (the routing of a
    # body without pragmas started at column 0)
    body = emitted[emitted.index("{"):emitted.rindex("}")].splitlines()[1:]
    assert all(line[:1] in ("", " ", "#") for line in body), emitted
    assert_the_testbench_passes(compiled, tmp_path)


CONDITIONED = """\
    #define OPT %s
    int conditioned(int a[16], int b[16]) {
      int result = 0;
      for (int i = 0; i < 16; i++) {
    #pragma HLS if (OPT == 1 || OPT > 8) PIPELINE II=2
    #pragma HLS if ((OPT - 1) * 2 == 2 && !(OPT != 2)) UNROLL factor=16
        result += a[i] * b[i];
      }
      return result;
    }
    """


@needs_gxx
@pytest.mark.parametrize("opt, ii, unrolled, warned", [
    ("1", 2, False, 0), ("2", 1, True, 0), ("3", 1, False, 0), ("x", 1, False, 2)])
def test_a_conditional_pragma_applies_where_its_condition_holds(
        tmp_path, opt, ii, unrolled, warned):
    """UG1399's ``#pragma HLS if (condition) <directive>``: the directive applies where
    the constant condition holds (it was an unknown directive, ignored: 1 memory per
    array at II 1 where Vitis unrolls by 16); a condition arraypart cannot read is
    said, and the pragma ignored."""
    compiled = compile_text(tmp_path, "conditioned", CONDITIONED % opt)
    (loop,) = compiled.report.to_json()["loops"]
    assert loop["target_ii"] == ii and (loop["trip_count"] == 1) == unrolled
    # unrolled, 16 reads a cycle: the bound's 8 dual-port banks (a is an interface)
    assert solved(compiled, "a").banking.scheme.banks == (8 if unrolled else 1)
    assert sum("conditional pragma" in w for w in compiled.report.warnings) == warned
    assert_the_testbench_passes(compiled, tmp_path)


def test_a_do_while_0_with_a_break_makes_one_pass(tmp_path):
    """``do { if (s > 15) break; ... } while (0);`` was a loop of unknown trips (16 in
    the table, "nothing bounds it" in a warning, probe 39b LOW-6): its condition is
    false after the first pass, which a break only cuts short."""
    path = tmp_path / "once.c"
    path.write_text(dedent("""\
        void once(int s, const int in[16], int out[16]) {
          int buf[16];
          for (int i = 0; i < 16; i++) buf[i] = in[i];
          do {
            if (s > 15) break;
            out[0] = buf[3];
          } while (0);
          for (int i = 0; i < 16; i++) {
        #pragma HLS pipeline II=1
            out[i] = buf[i] + buf[15 - i];
          }
        }
        """))
    report = arraypart.analyze(path).to_json()
    assert report["params"]["trips of do@4:3"] == {
        "range": [1, 1], "bound_by": "its condition, false after the first pass"}
    assert not any("nothing bounds" in w for w in report["warnings"])
