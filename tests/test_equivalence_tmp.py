"""Temporary: the clang front end gives the old front end's IR on every suite kernel."""
from pathlib import Path

import pytest

from arraypart._oldfront import parse_kernel as old_parse
from arraypart.frontend import parse_kernel as new_parse

KERNELS = sorted((Path(__file__).parent.parent / "kernels").glob("*.c"))


@pytest.mark.parametrize("path", KERNELS, ids=[p.name for p in KERNELS])
def test_same_ir(path):
    old, new = old_parse(path), new_parse(path)
    from dataclasses import replace
    assert [replace(a, coord=None) for a in new.arrays] == [replace(a, coord=None) for a in old.arrays]
    assert [a.coord.line for a in new.arrays] == [a.coord.line for a in old.arrays]
    assert new.body == old.body
    assert (new.name, new.top, new.defines) == (old.name, old.top, old.defines)
