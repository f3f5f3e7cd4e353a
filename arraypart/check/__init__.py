"""The cycle-level checker and linter (DESIGN §4 ``check``): an independent,
concrete simulation of every pipelined or unrolled loop against a set of bankings."""

from .driver import CHUNK_CELLS, as_written_bankings, auto_partition_notes, check_kernel
from .maps import MAP_FULL_LIMIT, check_map
from .report import (CheckReport, Conflict, ConflictAccess, DynamicSite, LoopCheck,
                     MapCheck, relocated)

__all__ = ["CHUNK_CELLS", "MAP_FULL_LIMIT", "CheckReport", "Conflict", "ConflictAccess", "DynamicSite",
           "LoopCheck", "MapCheck", "as_written_bankings", "auto_partition_notes",
           "check_kernel", "check_map", "relocated"]
