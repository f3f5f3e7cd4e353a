"""The solver's shortcuts give what the long way gives: a proof read at raised targets
(the raise-and-bisect of a missed target) equals isl's proof there, and the flat
pre-check's screen at one residue keeps exactly the candidates that pass."""

from __future__ import annotations

import numpy as np
import pytest

from arraypart.banking import prove
from arraypart.banking.feasible import relaxed
from arraypart.banking.groups import analyze_group
from arraypart.banking.options import FAMILIES, Options
from arraypart.banking.proof import at_raised_targets
from arraypart.banking.search import Search
from arraypart.banking.space import alpha_rows
from arraypart.scheme import Banking, DimPartition, per_dim_scheme

from test_banking import STENCILS, stencil_model

DENOISE, SOBEL = STENCILS["DENOISE"][0], STENCILS["SOBEL"][0]


@pytest.mark.parametrize("factors", [(1, 1), (2, 1), (2, 2), (3, 3)])
def test_a_proof_read_at_raised_targets_is_the_proof_there(factors):
    am = stencil_model(SOBEL, size=12)
    banking = Banking("A", per_dim_scheme((12, 12), tuple(
        DimPartition("cyclic", f) if f > 1 else DimPartition("none", 1) for f in factors)))
    at_target = prove(am, banking)
    for raised_to in range(1, 11):
        raised = relaxed(am, {0: (raised_to, "")})
        direct = prove(raised, banking)
        read = at_raised_targets(at_target, raised.groups)
        assert (read.conflict_free, read.achieved_ii, read.group_ii) == (
            direct.conflict_free, direct.achieved_ii, direct.group_ii), raised_to


@pytest.mark.parametrize("ports, tier", [("ram_1p", 4), ("ram_1p", 5), ("ram_1p", 6),
                                         ("ram_t2p", 2), ("ram_t2p", 3)])
def test_the_flat_screen_keeps_exactly_the_candidates_that_pass(ports, tier):
    am = stencil_model(DENOISE, ports=ports, size=12)
    shapes = [analyze_group(g, 2) for g in am.groups]
    options = Options(None, 10_000, FAMILIES, float("inf"), 30.0, False)
    screen = Search(am, shapes, 1, options).screen
    flat = [f for f in screen.families(tier, ("flat",)) if f.kind == "flat" and f.block > 1]
    assert flat
    for family in flat:
        sets = screen._lane_sets(family.copies, family.assignment)
        for rows in (np.array(list(alpha_rows(2, screen.varying, family.banks,
                                              family.block)), dtype=np.int64),):
            screened = screen._flat_scores(family, sets, rows)
            exact = screen._flat_excess(family, sets, rows)
            assert np.array_equal(screened == 0, exact == 0)
            if not (exact == 0).any():
                assert np.array_equal(screened, exact)
            assert (screened <= exact).all()
