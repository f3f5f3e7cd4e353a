"""``--directives FILE.tcl``: Vitis ``set_directive_*`` commands act as the pragmas they
stand for, and the output project keeps the ones arraypart does not replace."""

import pytest

import arraypart
from arraypart import api, cli
from arraypart.errors import KernelError
from arraypart.frontend import parse_directives

BODY = """#define N 32
void win(int in[N][N], int out[N][N]) {
  int buf[N][N];
  copy: for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) {
      buf[i][j] = in[i][j];
    }
  }
  rows: for (int i = 1; i < N - 1; i++) {
    cols: for (int j = 1; j < N - 1; j++) {
%s      out[i][j] = buf[i - 1][j] + buf[i + 1][j] + buf[i][j - 1] + buf[i][j + 1];
    }
  }
}
"""
PRAGMAS = ("#pragma HLS pipeline II=1\n"
           "#pragma HLS array_partition variable=buf type=cyclic factor=2 dim=1\n")
DIRECTIVES = """# kept beside the source, as many projects do
set_directive_pipeline -II 1 "win/cols"
set_directive_array_partition -type cyclic -factor 2 -dim 1 win buf
set_directive_loop_tripcount -min 30 -max 30 win/rows
"""


@pytest.fixture
def kernels(tmp_path):
    (tmp_path / "with_pragmas").mkdir()
    pragmas = tmp_path / "with_pragmas" / "win.c"
    pragmas.write_text(BODY % PRAGMAS)
    plain = tmp_path / "win.c"
    plain.write_text(BODY % "")
    tcl = tmp_path / "win.tcl"
    tcl.write_text(DIRECTIVES)
    return pragmas, plain, tcl


def schemes_and_iis(report):
    data = report.to_json()
    return ([(a["name"], a["formula"]) for a in data["arrays"]],
            [(loop["name"], loop["target_ii"], loop["achieved_ii"]) for loop in data["loops"]])


@pytest.mark.parametrize("replace", [False, True])
def test_directives_bank_like_the_pragmas_they_stand_for(kernels, replace):
    pragmas, plain, tcl = kernels
    # threshold 16: the copy's 32-trip j loop is pipelined itself (at Vitis's 64 the
    # copy's i loop is, 32 writes of buf a cycle, which these tests are not about)
    from_pragmas = arraypart.analyze(pragmas, replace_partitions=replace, pipeline_loops=16)
    from_tcl = arraypart.analyze(plain, directives=str(tcl), replace_partitions=replace,
                                 pipeline_loops=16)
    assert schemes_and_iis(from_tcl) == schemes_and_iis(from_pragmas)
    assert [loop.name for loop in from_tcl.model.loops if not loop.pipeline_inferred] == [
        "cols"]


def test_output_keeps_the_directives_it_does_not_replace(kernels, tmp_path):
    _, plain, tcl = kernels
    (tmp_path / "sizes.h").write_text("#define N 32\n")
    plain.write_text('#include "sizes.h"\n' + (BODY % "").split("\n", 1)[1])
    compiled = arraypart.compile_kernel(plain, directives=str(tcl), replace_partitions=True)
    kept = compiled.files["directives.tcl"]
    assert "set_directive_pipeline" in kept and "loop_tripcount" in kept
    assert "array_partition" not in kept  # replaced by arraypart's pragma in win.cpp
    assert "#pragma HLS array_partition variable=buf" in compiled.files["win.cpp"]
    assert "source directives.tcl" in compiled.files["run_hls.tcl"]
    cfg = compiled.files["hls_config.cfg"]
    assert "syn.directive.pipeline=win/cols II=1" in cfg
    assert "syn.directive.loop_tripcount=win/rows min=30 max=30" in cfg
    assert f"-I{plain.parent}" in compiled.files["run_hls.tcl"]
    # the emitted kernel, read back with the kept directives, keeps its II
    assert {loop["achieved_ii"] for loop in compiled.report.to_json()["loops"]} == {1}


def test_a_location_the_kernel_lacks_is_a_located_warning_with_a_suggestion(kernels):
    _, plain, tcl = kernels
    tcl.write_text("set_directive_pipeline win/colz\n")
    report = arraypart.analyze(plain, directives=str(tcl))
    assert any(w.startswith(f"{tcl}:1:1: warning: set_directive_pipeline ignored")
               and "did you mean win/cols?" in w for w in report.warnings)
    assert [loop for loop in report.model.loops if not loop.pipeline_inferred] == []


@pytest.mark.parametrize("text, where, message", [
    ("set_directive_pipeline $loc\n", "1:1", "Tcl variables"),
    ("\n  set_directive_unroll -factor\n", "2:3", "option -factor needs a value"),
    ("set_directive_array_partition -type complete win\n", "1:1", "<location> <variable>"),
])
def test_unreadable_directives_are_located_errors(text, where, message):
    with pytest.raises(KernelError) as caught:
        parse_directives(text, "d.tcl")
    assert str(caught.value).startswith(f"d.tcl:{where}: error:") and message in str(
        caught.value)


def test_cli_reads_directives_and_continuation_lines(kernels, tmp_path, capsys):
    _, plain, tcl = kernels
    tcl.write_text("set_directive_pipeline \\\n    -II 1 win/cols\n")
    code = cli.main(["analyze", str(plain), "--directives", str(tcl), "--json"])
    assert code == 0, capsys.readouterr().err
    assert '"name": "cols"' in capsys.readouterr().out
    assert cli.main(["analyze", str(plain), "--directives", str(tmp_path / "none.tcl")]) == 2


SUMMED = """int summed(int mem[128]) {
  int sum = 0;
SUM_LOOP:
  for (int i = 0; i < 128; ++i)%s
    sum += mem[i];%s
  return sum;
}
"""


@pytest.mark.parametrize("braces", [("", ""), (" {", " }")])
def test_an_unroll_directive_on_a_loop_written_as_blocks_is_not_kept(tmp_path, braces):
    """``set_directive_unroll -factor 4`` on a loop pipelined by default, its body with
    or without braces: the loop is written as blocks of 4 lanes, whose lane loop carries
    the unroll, so the directive leaves directives.tcl (kept, Vitis would unroll the
    block loop as well).  The directive was called a location the kernel lacks when the
    body had no braces, and its text-less pragma overlapped the header's edit when it
    had them."""
    path = tmp_path / "summed.cpp"
    path.write_text(SUMMED % braces)
    tcl = tmp_path / "d.tcl"
    tcl.write_text("set_directive_unroll -factor 4 summed/SUM_LOOP\n"
                   "set_directive_loop_tripcount -max 128 summed/SUM_LOOP\n")
    compiled = arraypart.compile_kernel(path, directives=str(tcl))
    assert not any("ignored" in w for w in compiled.report.warnings)
    emitted = compiled.files["summed.cpp"]
    assert "i_blk < 32" in emitted and "#pragma HLS unroll\n" in emitted
    assert compiled.files["directives.tcl"] == (
        "set_directive_loop_tripcount -max 128 summed/SUM_LOOP\n")
    assert [loop["achieved_ii"] for loop in compiled.report.to_json()["loops"]] == [1]


def test_bind_op_and_dependence_take_their_variables_as_vitis_writes_them():
    """``set_directive_bind_op [OPTIONS] <location> <variable>`` was refused (every
    HLSDSE directive file has it; probe 26, item 9), and ``set_directive_dependence``
    names its variable with ``-variable``, not after the location."""
    bind, dependence = parse_directives(
        "set_directive_bind_op -op dmul -impl fabric -latency -1 bo/loop mult\n"
        "set_directive_dependence -variable buf -type inter -dependent false bo/loop\n",
        "d.tcl")
    assert bind.pragma_text() == "HLS bind_op op=dmul impl=fabric latency=-1 variable=mult"
    assert bind.cfg_line() == "syn.directive.bind_op=bo/loop mult op=dmul impl=fabric latency=-1"
    assert dependence.pragma_text() == "HLS dependence variable=buf type=inter dependent=false"


def test_an_interface_directive_without_a_port_is_the_block_protocol():
    """``set_directive_interface -mode s_axilite -bundle CRTL_BUS "top"``, as Vivado HLS
    2019 writes it (hououin/CNN-FPGA), was refused for naming no port (probe 28, F6):
    it sets the function's block-level protocol, ``port=return``."""
    block, none = parse_directives(
        'set_directive_interface -mode s_axilite -bundle CRTL_BUS "top"\n'
        'set_directive_interface -mode ap_ctrl_none "top"\n', "d.tcl")
    assert block.pragma_text() == "HLS interface mode=s_axilite bundle=CRTL_BUS port=return"
    assert none.cfg_line() == "syn.directive.interface=top return mode=ap_ctrl_none"
    with pytest.raises(KernelError, match="names no port"):
        parse_directives('set_directive_interface -mode ap_memory "top"\n', "d.tcl")


TAPS = """void taps(const int in[16], int out[14]) {
  int w[6];
  for (int i = 0; i < 6; i++) w[i] = in[i] + 1;
  for (int i = 0; i < 14; i++) {
#pragma HLS pipeline II=1
    out[i] = w[0] * in[i] + w[2] * in[i] + w[4] * in[i];
  }
}
"""


@pytest.mark.parametrize("config, registers, ii", [
    ("", False, 2), ("config_array_partition -complete_threshold 7\n", True, 1),
    ("config_array_partition -complete_threshold 6\n", False, 2)])
def test_config_array_partition_sets_the_as_written_threshold(tmp_path, config, registers,
                                                              ii):
    """``config_array_partition -complete_threshold N`` in the directives file: Vitis
    partitions locals of fewer than N elements completely (w[6] at 7, not at 6), and
    ``check --as-written`` models the same (probe 38 L4)."""
    path = tmp_path / "taps.c"
    path.write_text(TAPS)
    tcl = tmp_path / "d.tcl"
    tcl.write_text(config)
    _, bankings, checked = api.check_kernel(path, as_written=True, directives=str(tcl))
    assert bankings["w"].scheme.registers == registers
    assert [lp.achieved_ii for lp in checked.loops] == [1, ii]


def test_a_threshold_that_is_no_count_is_a_located_error(tmp_path):
    tcl = tmp_path / "d.tcl"
    tcl.write_text("# config\n  config_array_partition -complete_threshold many\n")
    with pytest.raises(KernelError, match="d.tcl:2:3: error: config_array_partition "
                                          "-complete_threshold needs a count"):
        api.vitis_complete_threshold(api.Options(directives=str(tcl)))
