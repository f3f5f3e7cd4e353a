"""What ``check --trace`` covers: the text it instruments, and what it says of a
pipelined loop whose accesses it could not record (before, a run that recorded nothing
passed, having checked nothing: CHStone aes, whose loops all lie in included files)."""

from arraypart import cli

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
