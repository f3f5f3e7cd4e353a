"""The port model a bank is emitted with is the one it is priced and checked with
(probe 42 F7): Vitis builds ram_t2p only in block RAM, so small banks that the pass
prices as LUT RAM are emitted on a port model LUT RAM can build, with impl=lutram."""

import re

from arraypart.bram import ram_style

from conftest import array, assert_the_testbench_passes, judged_trace

# Two writes of buf per cycle, then two reads: true dual-port on one memory, or two
# banks that each serve one access a cycle.
LB = """\
void lb(int in[64], int out[32]) {
  int buf[64];
%s
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    buf[2 * i] = in[2 * i];
    buf[2 * i + 1] = in[2 * i + 1];
  }
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[2 * i] + buf[2 * i + 1];
  }
}
"""


def _storage(emitted: str, name: str) -> tuple[str, str | None]:
    """(type, impl) of the bind_storage pragma the emitted code gives ``name``."""
    found = re.search(rf"#pragma HLS bind_storage variable={name} type=(\w+)(?: impl=(\w+))?",
                      emitted)
    assert found, emitted
    return found.group(1), found.group(2)


def test_small_banks_are_emitted_on_a_port_model_lut_ram_builds(compiled_once, tmp_path):
    compiled = compiled_once("lb.cpp", LB % "")
    buf = array(compiled.report, "buf")
    kind, impl = _storage(compiled.files["lb.cpp"], "buf")
    depth = buf.banking.scheme.bank_depth
    # the emitted type and impl build the banks the pass priced
    assert kind == buf.ports.name
    assert ram_style(depth, 32, kind, impl) == ram_style(depth, 32, buf.ports.name)
    # one block RAM (the bound) or banks of LUT RAM: never t2p banks priced as LUT RAM
    assert (kind, impl) != ("ram_t2p", None) or buf.bram18k > 0
    assert buf.conflict_free
    # the checker of the emitted code (its bind_storage read back) agrees
    scheduled = compiled.report.scheduled
    assert all(loop.achieved_ii <= loop.target_ii for loop in scheduled.loops)
    assert_the_testbench_passes(compiled, tmp_path)


def test_the_trace_replays_the_emitted_port_model(compiled_once, tmp_path):
    compiled = compiled_once("lb.cpp", LB % "")
    buf = array(compiled.report, "buf")
    assert compiled.report.solution.emitted_ports()["buf"] == buf.ports
    judged = judged_trace(compiled, tmp_path)
    assert judged.disagreements == ()


def test_the_users_bind_storage_is_kept(compiled_once):
    """A port model the user chose is theirs: ram_t2p stays, priced as block RAM."""
    compiled = compiled_once(
        "lbt.cpp", LB.replace("lb(", "lbt(") % "#pragma HLS bind_storage variable=buf type=ram_t2p")
    buf = array(compiled.report, "buf")
    assert _storage(compiled.files["lbt.cpp"], "buf") == ("ram_t2p", None)
    assert buf.ports.name == "ram_t2p" and buf.bram18k > 0
