"""What ``check --trace`` covers: the text it instruments, and what it says of a
pipelined loop whose accesses it could not record (before, a run that recorded nothing
passed, having checked nothing: CHStone aes, whose loops all lie in included files)."""

from arraypart import api, cli

from conftest import needs_gxx, write

MACRO_ONLY = """\
#define ADD(i) b[i] = a[i] + a[i + 1]
void top(int a[65], int b[64]) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    ADD(i);
  }
}
"""


@needs_gxx
def test_a_loop_whose_accesses_are_not_recorded_is_said_loudly(tmp_path, capsys):
    """The loop's only accesses are a macro's text, which the trace leaves alone: it
    runs its steps and records nothing, and the command says so and fails."""
    assert cli.main(["check", "--trace", str(write(tmp_path, "top.c", MACRO_ONLY))]) == 1
    said = capsys.readouterr().out
    assert ("top.c:3:3: warning: loop L3 ran 64 steps but recorded no array access, "
            "where the model counts some: nothing of it is checked") in said, said
    assert "error: check --trace checked nothing" in said, said


# The pipelined loop lies in a file the kernel file includes from a folder below its own
# (the driver's copy of lib/body.c is found at the same relative path): before, its
# loop was listed as not traced and nothing of it was recorded.
BODY = """\
void smooth(int in[64], int out[64]) {
  for (int i = 1; i < 63; i++) {
#pragma HLS pipeline II=1
    out[i] = in[i - 1] + in[i] + in[i + 1];
  }
}
"""
TOP = """\
#include "lib/body.c"
void top(int a[64], int b[64]) {
  smooth(a, b);
}
"""


@needs_gxx
def test_a_pipelined_loop_of_an_included_file_is_traced(tmp_path):
    (tmp_path / "lib").mkdir()
    body = write(tmp_path, "lib/body.c", BODY)
    _, judged = api.trace_kernel(write(tmp_path, "top.c", TOP))
    loops = {str(loop.coord): loop for loop in judged.replay.loops}
    smooth = loops[f"{body}:2:3"]
    # 62 steps of 3 reads of a and a write of b
    assert (smooth.steps, smooth.accesses, smooth.agrees) == (62, 4 * 62, True)
    assert smooth.coord in judged.addresses.compared, judged.format()
    assert judged.untraced == () and judged.header_accesses == (), judged.format()
    assert judged.disagreements == () and not judged.checked_nothing
