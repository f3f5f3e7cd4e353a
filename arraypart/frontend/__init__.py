"""The front end: HLS C text -> the IR (:mod:`arraypart.ir`), with located errors."""

from .directives import parse_directives, read_complete_threshold, read_directives
from .kernel import parse_kernel, parse_source

__all__ = ["parse_directives", "parse_kernel", "parse_source", "read_complete_threshold",
           "read_directives"]
