"""The banking pass: cycle groups -> the fewest banks, proven conflict-free by isl."""

from .bounds import bram18k, lower_bound
from .driver import cheaper_one_memory, solve
from .notes import moving_sizes
from .proof import Proof, prove
from .solution import Found, solved_model

__all__ = ["Found", "Proof", "bram18k", "cheaper_one_memory", "lower_bound",
           "moving_sizes", "prove", "solve", "solved_model"]
