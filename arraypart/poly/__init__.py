"""The polyhedral model: IR -> isl iteration domains, access relations and the
concurrent accesses of every pipeline cycle (:mod:`.model` holds the output types)."""

from .build import build_model
from .domains import AccessRelation, access_relations
from .model import ArrayModel, CycleGroup, LaneAccess, LoopInfo, PolyModel, with_direct_loops

__all__ = ["build_model", "access_relations", "AccessRelation", "ArrayModel",
           "CycleGroup", "LaneAccess", "LoopInfo", "PolyModel", "with_direct_loops"]
