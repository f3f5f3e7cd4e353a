"""The front end: HLS C text -> the IR (:mod:`arraypart.ir`), with located errors."""

from .kernel import parse_kernel, parse_source

__all__ = ["parse_kernel", "parse_source"]
