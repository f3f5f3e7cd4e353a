"""Quasi-affine expressions: one tree, three renderings that agree."""

import subprocess

import islpy as isl
import numpy as np
from hypothesis import given, settings, strategies as st

from arraypart import expr as E

from conftest import needs_gxx

VARS = ("i", "j")


@st.composite
def expressions(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        if draw(st.booleans()):
            return E.const(draw(st.integers(-20, 20)))
        return E.var(draw(st.sampled_from(VARS)))
    kind = draw(st.sampled_from(["add", "scale", "floordiv", "mod"]))
    inner = draw(expressions(depth=depth - 1))
    if kind == "add":
        return E.add(inner, draw(expressions(depth=depth - 1)))
    if kind == "scale":
        return E.scale(draw(st.integers(-5, 5).filter(bool)), inner)
    if kind == "floordiv":
        return E.floordiv(inner, draw(st.integers(1, 7)))
    return E.mod(inner, draw(st.integers(1, 7)))


@settings(max_examples=150, deadline=None)
@given(expressions())
def test_isl_and_numpy_renderings_agree(e):
    grid_i, grid_j = np.meshgrid(np.arange(-4, 5), np.arange(-4, 5), indexing="ij")
    values = np.zeros(grid_i.shape, dtype=np.int64) + E.evaluate(e, {"i": grid_i, "j": grid_j})
    relation = isl.Map(f"{{ [i, j] -> [{E.to_isl(e)}] : -4 <= i <= 4 and -4 <= j <= 4 }}")
    expected = isl.Map("{ [i, j] -> [v] : false }")
    for (a, b), v in np.ndenumerate(values):
        expected = expected.union(isl.Map(f"{{ [{a - 4}, {b - 4}] -> [{v}] }}"))
    assert relation.is_equal(expected)


@settings(max_examples=150, deadline=None)
@given(expressions(), st.integers(-6, 6))
def test_difference_is_the_move_at_every_point(e, step):
    """Where :func:`difference` gives a number, ``e(i + step) - e(i)`` is that number
    at every point; a floor whose argument moves by a multiple of its divisor is one."""
    grid_i, grid_j = np.meshgrid(np.arange(-9, 10), np.arange(-4, 5), indexing="ij")
    at = lambda i: np.zeros(grid_i.shape, np.int64) + E.evaluate(e, {"i": i, "j": grid_j})
    move = E.difference(e, "i", step)
    if move is not None:
        assert (at(grid_i + step) - at(grid_i) == move).all()
    assert E.difference(E.floordiv(E.add(E.var("i"), E.const(3)), 2), "i", 6) == 3
    assert E.difference(E.floordiv(E.var("i"), 2), "i", 3) is None


@settings(max_examples=150, deadline=None)
@given(expressions())
def test_period_is_a_shift_that_leaves_every_point_unchanged(e):
    """Where :func:`period` gives ``P``, ``e(i + P) = e(i)`` at every point; a mod of
    ``i`` plus anything else has one."""
    grid_i, grid_j = np.meshgrid(np.arange(-9, 10), np.arange(-4, 5), indexing="ij")
    at = lambda i: np.zeros(grid_i.shape, np.int64) + E.evaluate(e, {"i": i, "j": grid_j})
    step = E.period(e, "i")
    if step is not None:
        assert step > 0 and (at(grid_i + step) == at(grid_i)).all()
    i, j = E.var("i"), E.var("j")
    assert E.period(E.mod(E.add(E.scale(6, i), j), 16), "i") == 8
    assert E.period(E.floordiv(E.mod(E.add(i, j), 16), 4), "i") == 16
    assert E.period(E.add(E.mod(i, 4), E.mod(E.floordiv(i, 2), 3)), "i") == 12
    assert E.period(E.floordiv(i, 4), "i") is None and E.period(j, "i") == 1


def test_c_rendering_matches_numpy_on_non_negative_arguments():
    e = E.add(E.mod(E.floordiv(E.affine({"i": 1, "j": 3}), 2), 4), E.scale(-2, E.var("j")))
    for i in range(6):
        for j in range(6):
            python = (E.to_c(e, str, interval=lambda arg: (0, 99)).replace("(unsigned)", "")
                      .replace("u)", ")").replace("/", "//"))
            c_value = eval(python, {}, {"i": i, "j": j})
            assert c_value == int(E.evaluate(e, {"i": i, "j": j}))


@needs_gxx
def test_c_rendering_of_possibly_negative_arguments_matches_numpy(tmp_path):
    """Arguments nobody vouches for get the signed floor and mod forms: g++ computes
    what floor and mod are, at negative values too, and beyond 32 bits."""
    i, j = E.var("i"), E.var("j")
    cases = [E.floordiv(E.add(i, E.const(-9)), 2), E.mod(E.add(i, E.scale(-3, j)), 5),
             E.add(E.floordiv(E.mod(E.add(i, j), 7), 3), E.floordiv(E.scale(-1, j), 4)),
             E.mod(E.floordiv(E.add(E.scale(2, i), E.const(-5)), 3), 4),
             E.mod(E.add(E.scale(3, j), E.const(2 ** 40 - 3)), 12)]  # exact in 64 bits only
    grid = range(-9, 10)
    lines = [f'std::printf("%d\\n", (int)({E.to_c(e, str, interval=lambda arg: None)}));'
             for e in cases]
    loops = "for (int i = -9; i < 10; i++) for (int j = -9; j < 10; j++) {" + "".join(lines) + "}"
    source = tmp_path / "forms.cpp"
    source.write_text(f"#include <cstdio>\nint main() {{ {loops} return 0; }}\n")
    subprocess.run(["g++", "-o", str(tmp_path / "forms"), str(source)], check=True)
    printed = subprocess.run([str(tmp_path / "forms")], capture_output=True, text=True,
                             check=True).stdout.split()
    expected = [int(E.evaluate(e, {"i": a, "j": b})) for a in grid for b in grid for e in cases]
    assert [int(v) for v in printed] == expected


def test_simplify_folds_affine_parts_and_trivial_divisions():
    assert E.add(E.var("i"), E.const(2), E.scale(-1, E.var("i"))) == E.const(2)
    assert E.floordiv(E.var("i"), 1) == E.var("i")
    assert E.mod(E.const(7), 4) == E.const(3)
    assert E.affine_form(E.add(E.scale(2, E.var("i")), E.const(1))) == ({"i": 2}, 1)
    assert E.affine_form(E.mod(E.var("i"), 2)) is None


def test_substitute_and_variables():
    e = E.mod(E.add(E.var("x0"), E.scale(3, E.var("x1"))), 4)
    s = E.substitute(e, {"x0": E.add(E.var("i"), E.const(1)), "x1": E.var("j")})
    assert E.variables(s) == {"i", "j"}
    assert int(E.evaluate(s, {"i": 2, "j": 1})) == (3 + 3) % 4
