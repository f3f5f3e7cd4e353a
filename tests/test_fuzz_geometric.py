"""Random loops with a geometric step (``m += m``, ``span >>= 1``) around a pipelined
loop whose step and subscripts go through the iterator: the emitted code computes what
the original does (the testbench), and the compiled original makes the accesses the
model has (``check --trace``), at every banking the search picks on one port.

CI runs a few; set ARRAYPART_EXAMPLES=200 for more on demand.
"""

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arraypart

from conftest import assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx

EXAMPLES = int(os.environ.get("ARRAYPART_EXAMPLES", "3"))
DOUBLING = ("m += m", "m *= 2", "m <<= 1", "m = m * 2", "m = 2 * m")
HALVING = ("m >>= 1", "m /= 2", "m = m >> 1")
INNER_STEPS = ("1", "m", "m + m", "2 * m")


@st.composite
def geometric_kernels(draw) -> str:
    """A kernel: buf[N] filled from in, then passes over m (doubling from 1 or halving
    from N/2, or from k/2 in a loop doubling k), each a pipelined loop over i reading
    buf[i + k*m] and writing buf[i]."""
    n = draw(st.sampled_from((16, 32, 64)))
    outer, close = "", ""
    if draw(st.booleans()):
        header = f"int m = 1; m < {n}; {draw(st.sampled_from(DOUBLING))}"
    else:
        test = draw(st.sampled_from(("m > 0", "m")))
        start = f"{n // 2}"
        if draw(st.booleans()):  # nested in a doubling loop, starting from its iterator
            outer, close, start = f"for (int k = 2; k <= {n}; k <<= 1) {{", "}", "k >> 1"
        header = f"int m = {start}; {test}; {draw(st.sampled_from(HALVING))}"
    step = draw(st.sampled_from(INNER_STEPS))
    reads = sorted(set(draw(st.lists(st.integers(0, 1), min_size=1, max_size=3))))
    storage = draw(st.sampled_from(("ram_1p", "ram_2p", "ram_t2p")))
    terms = " + ".join(f"buf[i + {k} * m]" for k in reads)
    return f"""void geo(const int in[{n}], int out[{n}]) {{
    int buf[{n}];
#pragma HLS bind_storage variable=buf type={storage}
    for (int i = 0; i < {n}; i++) buf[i] = in[i];
    {outer}
    for ({header}) {{
        for (int i = 0; i < {n} - m; i += {step}) {{
#pragma HLS pipeline II=1
            buf[i] = {terms};
        }}
    }}
    {close}
    for (int i = 0; i < {n}; i++) out[i] = buf[i];
}}
"""


@needs_gxx
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(geometric_kernels())
def test_geometric_passes_compute_and_access_what_the_original_does(tmp_path_factory, text):
    tmp_path = tmp_path_factory.mktemp("geo")
    path = tmp_path / "geo.cpp"
    path.write_text(text)
    compiled = arraypart.compile_kernel(path, ports=1)
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


BITONIC = """
#define N 32
void bitonic(int data[N]) {
  int buf[N];
  for (int i = 0; i < N; i++) buf[i] = data[i];
  for (int k = 2; k <= N; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
    cmp:
      for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
        int l = i ^ j;
        if (l > i) {
          int a = buf[i], b = buf[l];
          if (((i & k) == 0 && a > b) || ((i & k) != 0 && a < b)) {
            buf[i] = b;
            buf[l] = a;
          }
        }
      }
    }
  }
  for (int i = 0; i < N; i++) data[i] = buf[i];
}
"""


@needs_gxx
def test_a_geometric_loop_starting_from_another_s_iterator_is_copied_in_each_copy(
        tmp_path):
    """A bitonic sort: stages ``k <<= 1``, and in each the merges ``j >>= 1`` from
    ``k >> 1``, a constant in each copy of the stage.  The merges are copied too (15
    copies of ``cmp``), so the trace compares every loop's addresses; nested, the
    merges were one loop of unknown trip count, and no loop's addresses were compared."""
    path = tmp_path / "bitonic.c"
    path.write_text(BITONIC)
    compiled = arraypart.compile_kernel(path)
    loops = [loop.name for loop in compiled.report.model.loops]
    assert loops.count("cmp") == 15
    assert_the_testbench_passes(compiled, tmp_path)
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert len(judged.addresses.compared) == len(loops)
