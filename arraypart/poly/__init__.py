"""The polyhedral model: IR -> isl iteration domains, access relations and the
concurrent accesses of every pipeline cycle (:mod:`.model` holds the output types)."""

from .build import build_model
from .cover import check_banked
from .domains import AccessRelation, access_relations
from .sizes import bound_sizes, with_sizes_of
from .model import (ArrayModel, CycleGroup, LaneAccess, LoopInfo, PolyModel,
                    with_direct_loops)

__all__ = ["AccessRelation", "ArrayModel", "CycleGroup", "LaneAccess", "LoopInfo",
           "PolyModel", "access_relations", "bound_sizes", "build_model", "check_banked",
           "with_direct_loops", "with_sizes_of"]
