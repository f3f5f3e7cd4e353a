"""arraypart: on-chip array partitioning for FPGA high-level synthesis.

    >>> report = arraypart.analyze("kernels/denoise.c", ports=1)
    >>> compiled = arraypart.compile_kernel("kernels/denoise.c")

Both raise :class:`KernelError` (with ``.coord``: file, line, column) on bad input.
The API names load on first use, so that importing one pass (``arraypart.expr``) does
not import every other, and the console script (:mod:`arraypart.launch`) installs its
signal handlers a few milliseconds after Python starts.
"""

from importlib import import_module

_API = {"Coord": "errors", "KernelError": "errors", "Compiled": "api", "Options": "api", "analyze": "api", "check_kernel": "api",
        "compile_kernel": "api", "write_project": "api", "Report": "report"}

__all__ = list(_API)


def __getattr__(name: str):
    if name in _API:
        return getattr(import_module(f".{_API[name]}", __name__), name)
    raise AttributeError(f"module 'arraypart' has no attribute {name!r}")
