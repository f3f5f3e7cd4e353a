"""The source files that the kernel file includes and the trace instruments as it does
the kernel file (:mod:`.instrument`): CHStone's layout, aes.c including aes_enc.c,
aes_key.c and aes_func.c, whose functions hold every loop of the kernel.

A file is instrumented when it lies in the kernel's folder (or below it): the driver's
source lies in a folder of its own (:data:`.recording.DRIVER_FOLDER`), where a copy of
each such file, instrumented or unchanged, is written at the same relative path, and
``#include "aes_enc.c"`` finds the copy first (a quoted include is searched in the
including file's folder before the ``-I`` folders), in the driver and in the copies.
System headers, the Vitis headers (or arraypart's stand-ins) and the user's ``-I``
folders elsewhere are left as they are; their accesses stay listed as not traced.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

import clang.cindex as ci

from ..errors import Coord
from ..frontend import clangtu
from ..frontend.clanglib import expansion_point, file_name, file_of, handle_of
from ..frontend.pragmatext import pragma_lines
from ..sourcetext import KEEP_BYTES


@dataclass(frozen=True, slots=True)
class IncludedUnit(clangtu.Unit):
    """The kernel's translation unit seen from a file it includes: ``main_file`` is
    that file's handle, and its text, line starts, coordinates, pragmas and top-level
    cursors (``own_top``, ``own_trees``) are that file's; ``in_main`` asks for that
    file (never the kernel file's)."""

    def in_main(self, location: ci.SourceLocation) -> bool:
        return file_of(location) == self.main_file

    def location_coord(self, location: ci.SourceLocation) -> Coord:
        handle, line, column, offset = expansion_point(location)
        if handle == self.main_file:
            return self.coord(offset)
        if handle is None:
            return Coord(self.filename, 1, 1)
        return Coord(self.file_names.get(handle) or file_name(handle), line, column)


@dataclass(frozen=True, slots=True)
class IncludedSource:
    """An included file's instrumented text: ``name`` as coordinates name the file,
    ``path`` relative to the kernel's folder (where the driver's folder holds it)."""

    name: str
    path: str
    text: str


def included_units(unit: clangtu.Unit, kernel_path: str) -> tuple[IncludedUnit, ...]:
    """A view (:class:`IncludedUnit`) of each file that ``unit`` includes, at any
    depth, in the kernel's folder or below it, other than the kernel file, in the
    order clang first includes them."""
    folder = os.path.join(os.path.dirname(os.path.abspath(kernel_path)), "")
    views, seen = [], {unit.main_file}
    for inclusion in unit.tu.get_includes():
        handle = handle_of(inclusion.include)
        if handle in seen or not os.path.abspath(inclusion.include.name).startswith(folder):
            continue
        seen.add(handle)
        views.append(_view(unit, inclusion.include, handle))
    return tuple(views)


def relative_path(view: IncludedUnit, kernel_path: str) -> str:
    """Where ``view``'s file lies relative to the kernel's folder."""
    return os.path.relpath(os.path.abspath(view.main),
                           os.path.dirname(os.path.abspath(kernel_path)))


def _view(unit: clangtu.Unit, file: ci.File, handle: int) -> IncludedUnit:
    data = Path(file.name).read_bytes()
    starts = [0] + [m.end() for m in re.finditer(b"\n", data)]
    own = tuple(c for c in unit.top if file_of(c.location) == handle)
    name = unit.file_names.get(handle) or file_name(handle)
    # the caches (own_cursor_lists) start empty: a view has cursors of its own
    fields = {name: getattr(unit, name)
              for name, f in clangtu.Unit.__dataclass_fields__.items() if f.init}
    view = IncludedUnit(**{**fields, "main": file.name, "filename": name,
                           "text": data.decode(errors=KEEP_BYTES),
                           "data": data, "line_starts": tuple(starts),
                           "main_file": handle, "top": own, "own_top": own,
                           "own_trees": own})
    return replace(view, pragmas=tuple(pragma_lines(view)))
