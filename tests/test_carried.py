"""Floating-point values carried across pipelined iterations (probe 36 F5): the II
arraypart reports counts memory ports, so a loop whose iteration updates a float from the
previous iteration's value (which the HLS tool schedules at the operation's latency, HLS
200-880) gets a located warning at the update; a value each iteration starts afresh,
an integer, or a loop nobody pipelines gets none."""

import pytest

import arraypart
from arraypart import frontend

CARRIED = "is a floating-point value carried from one iteration to the next"


def warnings_of(tmp_path, body: str, params: str = "const float a[64]") -> list[str]:
    path = tmp_path / "k.cpp"
    path.write_text(f"float k({params}) {{\n{body}}}\n")
    return [w for w in frontend.parse_kernel(path).warnings if CARRIED in w]


@pytest.mark.parametrize("body, at, name", [
    ("  float s = 0;\n  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
     "    s += a[i] * a[i];\n  }\n  return s;\n", "5:5", "s"),
    ("  double p = 1;\n  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=2\n"
     "    p = a[i] * p;\n  }\n  return p;\n", "5:5", "p"),
    ("  float s = 0;\n  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
     "    for (int u = 0; u < 4; u++) s -= a[4 * i + u];\n  }\n  return s;\n", "5:33", "s"),
], ids=["add", "multiply-self-read", "unrolled-lanes"])
def test_a_float_updated_from_the_last_iteration_is_a_warning(tmp_path, body, at, name):
    (found,) = warnings_of(tmp_path, body)
    ii = "2" if "II=2" in body else "1"
    assert found.startswith(f"{tmp_path / 'k.cpp'}:{at}: warning: loop L3: {name} {CARRIED}")
    assert f"so II {ii} holds only if that operation fits in it" in found
    assert "the II reported counts memory ports only" in found


def test_a_reference_parameter_accumulated_is_a_warning(tmp_path):
    found = warnings_of(tmp_path, "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline\n"
                        "    acc += a[i];\n  }\n  return acc;\n",
                        "const float a[64], float &acc")
    assert len(found) == 1 and "loop L2: acc " in found[0]


@pytest.mark.parametrize("body", [
    # declared in the iteration: each starts afresh
    "  float t = 0;\n  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
    "    float s = 0;\n    for (int u = 0; u < 4; u++) s += a[4 * i + u];\n"
    "    t = s;\n  }\n  return t;\n",
    # set afresh by the body's first statement
    "  float s, t = 0;\n  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
    "    s = a[4 * i];\n    for (int u = 1; u < 4; u++) s += a[4 * i + u];\n"
    "    t = s;\n  }\n  return t;\n",
    # an integer's add fits in a cycle
    "  int s = 0;\n  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
    "    s += (int)a[i];\n  }\n  return s;\n",
    # not pipelined
    "  float s = 0;\n  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline off\n"
    "    s += a[i];\n  }\n  return s;\n",
    # read from the last iteration but not updated from it
    "  float s = 0, t = 0;\n  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
    "    t = s + a[i];\n    s = a[i];\n  }\n  return t;\n",
    # reset at the end of each iteration: the next starts from 0 (probe 36b F4)
    "  float s = 0;\n  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
    "    s += a[i] * 2;\n    q[i] = s;\n    s = 0;\n  }\n  return s;\n",
], ids=["iteration-local", "set-afresh", "integer", "not-pipelined", "delayed-only",
        "reset-at-the-end"])
def test_a_value_each_iteration_sets_afresh_or_no_float_is_no_warning(tmp_path, body):
    assert warnings_of(tmp_path, body, "const float a[64], float q[64]") == []


@pytest.mark.parametrize("element, warned", [("float", True), ("int", False)])
def test_an_accumulation_through_a_register_port_warns_of_floats_only(tmp_path, element,
                                                                      warned):
    """``*p += a[i]`` on a top's pointer that is a register port (ap_ovld), no memory:
    the recurrence-through-memory warning that its m_axi port had is gone, but a
    float's add still waits for the previous iteration's (probe 37c F3); an integer's
    fits in a cycle, and the loop reaches II 1, as in Vitis."""
    path = tmp_path / "k.cpp"
    path.write_text(f"void k(const {element} a[64], {element} *p) {{\n"
                    "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                    "    *p += a[i];\n  }\n}\n")
    report = arraypart.analyze(path)
    assert next(a for a in report.kernel.arrays if a.name == "p").register == "ap_ovld"
    (loop,) = report.model.loops
    assert report.loop_achieved_ii(0, loop.name, loop.target_ii) == 1
    found = [w for w in report.warnings if CARRIED in w or "recurrence" in w]
    if warned:
        (warning,) = found
        assert warning.startswith(f"{path}:4:5: warning: loop L2: p {CARRIED}")
        assert "so II 1 holds only if that operation fits in it" in warning
    else:
        assert found == []


def test_a_float_element_of_a_register_array_accumulated_is_a_warning(tmp_path):
    """A local float array partitioned completely is registers (no recurrence through
    memory), whose element ``acc[0] += a[i]`` is still a carried float add."""
    path = tmp_path / "k.cpp"
    path.write_text("float k(const float a[64]) {\n  float acc[2] = {0, 0};\n"
                    "#pragma HLS array_partition variable=acc type=complete\n"
                    "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                    "    acc[0] += a[i];\n    acc[1] = a[i];\n  }\n"
                    "  return acc[0] + acc[1];\n}\n")
    found = [w for w in arraypart.analyze(path).warnings if CARRIED in w]
    assert [w.split(": warning: ")[0] for w in found] == [f"{path}:6:5"]
    assert f"loop L4: an element of acc {CARRIED}" in found[0]
