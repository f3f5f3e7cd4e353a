"""The per-lane trial of a fully unrolled loop (:meth:`.looplanes.LaneLowering._lanes_body`)
is skipped only where its copies provably cannot win (``_lanes_alike``)."""

from dataclasses import fields, is_dataclass, replace

import pytest

from arraypart import frontend, ir
from arraypart.frontend import looplanes

from conftest import write

# The shape of an emitted read crossbar: the lane iterators are read only in subscripts
# and in comparisons of data-dependent conditions.
CROSSBAR = """
void k(unsigned rb[4], unsigned ro[4], int bank[4][8], int out[4]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    for (unsigned k = 0; k < 4u; k++) {
#pragma HLS unroll
      unsigned at = 0;
      for (unsigned l = 0; l < 4u; l++) {
#pragma HLS unroll
        if (l < k + 1 && rb[l] == k) at = ro[l];
      }
      out[k] = bank[k][at];
    }
  }
}
"""


def _lowered(tmp_path, text, monkeypatch, alike=None):
    """The kernel's body and how many lane copies were lowered (trials included)."""
    copies = []
    per_value = looplanes.LaneLowering._per_value

    def counted(self, items, names, values, coord):
        copies.append(names[0])
        return per_value(self, items, names, values, coord)

    monkeypatch.setattr(looplanes.LaneLowering, "_per_value", counted)
    if alike is not None:
        monkeypatch.setattr(looplanes.LaneLowering, "_lanes_alike", lambda *_: alike)
    kernel = frontend.parse_kernel(write(tmp_path, "k", text))
    return kernel.body, copies


def _unstamped(node):
    """``node`` with each access's ``same_value`` key dropped: its write counts stamp
    bindings in lowering order, trials included, so only their equalities mean
    anything."""
    if isinstance(node, tuple):
        return tuple(map(_unstamped, node))
    if isinstance(node, ir.Access):
        return replace(node, same_value=None)
    if is_dataclass(node):
        return replace(node, **{f.name: _unstamped(getattr(node, f.name))
                                for f in fields(node) if f.init})
    return node


def test_crossbar_lanes_are_not_tried_and_the_body_is_the_tried_one(tmp_path, monkeypatch):
    body, copies = _lowered(tmp_path, CROSSBAR, monkeypatch)
    assert copies == []
    with monkeypatch.context() as patch:
        tried, tried_copies = _lowered(tmp_path, CROSSBAR, patch, alike=False)
    assert tried_copies and _unstamped(body) == _unstamped(tried)


@pytest.mark.parametrize("statement", [
    "b[s] = a[s * s];",                   # a product of lane values: exact per lane
    "b[s] = a[1 << s];",                  # a shift by the lane value
    "b[s] = a[(s - 1) / 2 + c[s]];",      # a division whose sign the lane fixes
    "int t = s; b[t] = a[c[t]];",         # the lane value held by a scalar
    "b[s] = a[s < 2 ? c[s] : 0];",        # a conditional operator on the lane value
    "for (int j = 0; j < s; j++) b[s] += a[c[j]];",  # a loop end over the lane value
])
def test_lanes_that_may_be_more_exact_are_tried(tmp_path, monkeypatch, statement):
    text = ("void k(int a[16], int b[4], int c[4]) {\n"
            "  for (int i = 0; i < 4; i++) {\n#pragma HLS pipeline II=1\n"
            "    for (int s = 0; s < 4; s++) {\n#pragma HLS unroll\n"
            f"      {statement}\n    }}\n  }}\n}}\n")
    _, copies = _lowered(tmp_path, text, monkeypatch)
    assert "s" in copies


def test_a_loop_pipelined_and_unrolled_at_once_is_tried(tmp_path, monkeypatch):
    """Its general body may start case origins that no copy starts: no skip."""
    text = ("void k(int b[4], int c[4]) {\n"
            "  for (int s = 0; s < 4; s++) {\n#pragma HLS pipeline II=1\n"
            "#pragma HLS unroll\n    if (c[s] > 0) b[s] = 1;\n  }\n}\n")
    _, copies = _lowered(tmp_path, text, monkeypatch)
    assert "s" in copies
