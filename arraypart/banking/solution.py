"""What the banking pass hands to code generation, the checker and the report."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

from ..ir import PORT_MODELS, Array, PortModel
from ..poly.model import ArrayModel
from ..scheme import Banking, scheme_from_pragmas


@dataclass(frozen=True, eq=False)
class ArraySolution:
    """The banking chosen for one array, with its evidence.

    ``lower_bound``: no scheme of any family fits with fewer banks x copies (DESIGN §2:
    max of ceil(distinct concurrent addresses / ports per II) and the largest clique of
    the conflict graph).  ``conflict_free``: isl proved that every cycle group of every
    loop fits the ports at its target II.  ``achieved_ii``: per loop touching the array,
    the least II at which this banking fits.  ``bram18k``: estimated 18Kb BRAMs for all
    banks and copies.  ``proof``: how the scheme was found and proved (candidates tried,
    isl checks made).  ``notes``: located warnings about this array.  ``kept``: the
    banking is the user's own array_partition pragmas, kept as written.
    ``time_limited``: the time limit ended the search (the banking is the best proven
    by then).  ``phased_loops``: the loops where a pragma-only array's banks rotate
    and the II assumes the emission's phase switches (:func:`.space.phased_loops`):
    the one decision, which the emission follows (it writes switches in these loops
    only, :func:`arraypart.codegen.phases.phased_loops`).
    """

    array: Array
    ports: PortModel
    banking: Banking
    lower_bound: int
    conflict_free: bool
    achieved_ii: tuple[tuple[str, int], ...]
    bram18k: int
    max_concurrent: int
    seconds: float
    proof: str = ""
    notes: tuple[str, ...] = ()
    kept: bool = False
    time_limited: bool = False
    phased_loops: tuple[str, ...] = ()

    @cached_property
    def worst_ii(self) -> int:
        """The largest of ``achieved_ii`` (1 without loops), computed once: code
        generation asks it for every loop that touches the array."""
        return max((ii for _, ii in self.achieved_ii), default=1)

    @property
    def partitions_as_written(self) -> bool:
        """The array keeps the user's array_partition pragmas (``kept``) and its banking
        is what they say: the emitted code can leave their text as written."""
        return (bool(self.array.partitions) and self.kept
                and self.banking == Banking(self.array.name, scheme_from_pragmas(self.array)))

    @property
    def multi_port_rom(self) -> bool:
        """Read copies of a pragma-only array, whose text stays, or copies that lanes
        unrolled in time pick (no emitted code names their lane numbers): the emitted
        code makes the array a multi-port ROM (``bind_storage type=rom_np``, a port for
        every read), and the copies its lanes read stand for what that costs."""
        return self.banking.copies > 1 and (self.array.pragma_only
                                            or self.banking.copies_by_lane_number)


@dataclass(frozen=True)
class Found:
    """A proven banking the search reports as its array's best so far: ``complete``
    when the array's search has ended (``notes``: the warnings it gave), else the
    banking the array keeps if the time limit ends the search now."""

    banking: Banking
    complete: bool
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class Solution:
    """Every array's banking, in the kernel's array order.  ``resumed``: the bankings
    are what a run that the time limit ended inside one call had found (no search)."""

    arrays: tuple[ArraySolution, ...]
    warnings: tuple[str, ...]
    seconds: float
    resumed: bool = False

    @property
    def time_limited(self) -> bool:
        """Whether the time limit ended the search (some array's, or the whole run's)."""
        return self.resumed or any(a.time_limited for a in self.arrays)

    def banking(self, name: str) -> Banking:
        for a in self.arrays:
            if a.array.name == name:
                return a.banking
        raise KeyError(name)

    def bankings(self) -> dict[str, Banking]:
        return {a.array.name: a.banking for a in self.arrays}

    def emitted_bankings(self) -> dict[str, Banking]:
        """The bankings the emitted code implements (a run of it is replayed against
        them): a multi-port ROM is one copy, with the port model of
        :meth:`emitted_ports`."""
        return {a.array.name: replace(a.banking, copies=1, read_copy=())
                if a.multi_port_rom else a.banking for a in self.arrays}

    def emitted_ports(self) -> dict[str, PortModel]:
        """The port model the emitted code sets for every array: ``rom_np`` for a
        multi-port ROM, else the one its banking was proven on (``ArraySolution.ports``:
        a narrower one than the ``--ports`` default where the pass chose it)."""
        return {a.array.name: PORT_MODELS["rom_np"] if a.multi_port_rom else a.ports
                for a in self.arrays}


def solved_model(am: ArrayModel, solution: ArraySolution) -> ArrayModel:
    """``am`` on the port model ``solution`` was proven on and is emitted with (which
    prices its banks: :func:`arraypart.bram.ram_style`)."""
    return am if am.ports == solution.ports else with_ports(am, solution.ports)


@lru_cache(maxsize=256)
def with_ports(am: ArrayModel, ports: PortModel) -> ArrayModel:
    """``am`` with banks of ``ports``; one object per pair, so that the estimates
    memoised per array model (:func:`arraypart.rtl.estimate`) are shared."""
    return replace(am, ports=ports)
