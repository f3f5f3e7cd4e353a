"""The solver's shortcuts give what the long way gives: a proof read at raised targets
(the raise-and-bisect of a missed target) equals isl's proof there."""

from __future__ import annotations

import pytest

from arraypart.banking import prove
from arraypart.banking.feasible import relaxed
from arraypart.banking.proof import at_raised_targets
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
