"""The libclang functions the Python bindings leave out, and where things are in files.

:func:`library` declares the C prototypes (``ctypes``) once per process; the helpers
here turn a clang location into a file handle, a byte offset or a line and column
(where it expands, or where it is written), read a file's bytes as clang read them,
and list the byte ranges that conditional compilation skipped.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

import clang.cindex as ci

if TYPE_CHECKING:
    from .clangtu import Unit


class _SourceRange(ctypes.Structure):
    _fields_ = [("ptr_data", ctypes.c_void_p * 2), ("begin_int_data", ctypes.c_uint),
                ("end_int_data", ctypes.c_uint)]


class _SourceRangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]


_POINTER = ctypes.c_void_p
_LOCATION_OUT = [ci.SourceLocation, _POINTER, _POINTER, _POINTER, ctypes.POINTER(ctypes.c_uint)]
# (function, argument types, result type) of each libclang function arraypart calls
# that the bindings do not declare
_PROTOTYPES = (
    ("clang_getCursorBinaryOperatorKind", [ci.Cursor], ctypes.c_int),
    ("clang_getBinaryOperatorKindSpelling", [ctypes.c_int], ci._CXString),
    ("clang_getCursorUnaryOperatorKind", [ci.Cursor], ctypes.c_int),
    ("clang_Cursor_Evaluate", [ci.Cursor], _POINTER),
    ("clang_EvalResult_getKind", [_POINTER], ctypes.c_int),
    ("clang_EvalResult_isUnsignedInt", [_POINTER], ctypes.c_uint),
    ("clang_EvalResult_getAsUnsigned", [_POINTER], ctypes.c_ulonglong),
    ("clang_EvalResult_getAsLongLong", [_POINTER], ctypes.c_longlong),
    ("clang_EvalResult_dispose", [_POINTER], None),
    ("clang_getSkippedRanges", [ci.TranslationUnit, ci.File],
     ctypes.POINTER(_SourceRangeList)),
    ("clang_disposeSourceRangeList", [ctypes.POINTER(_SourceRangeList)], None),
    ("clang_getExpansionLocation", _LOCATION_OUT, None),
    ("clang_getFileLocation", _LOCATION_OUT, None),
    ("clang_Location_isFromMainFile", [ci.SourceLocation], ctypes.c_int),
    ("clang_getSpecializedCursorTemplate", [ci.Cursor], ci.Cursor),
    ("clang_getFileContents", [ci.TranslationUnit, _POINTER, ctypes.POINTER(ctypes.c_size_t)],
     _POINTER),
)


def library():
    """libclang with :data:`_PROTOTYPES` declared (once per process)."""
    lib = ci.conf.lib
    if not getattr(lib, "_arraypart_ready", False):
        for name, argtypes, restype in _PROTOTYPES:
            function = getattr(lib, name)
            function.argtypes = argtypes
            function.restype = restype
        lib._arraypart_ready = True
    return lib


def in_main_file(location: ci.SourceLocation) -> bool:
    """Whether ``location`` is written in the kernel file (the translation unit's main
    file; not in a macro's body)."""
    return bool(library().clang_Location_isFromMainFile(location))


def file_of(location: ci.SourceLocation) -> int | None:
    """clang's handle of the file where ``location`` (a macro use: where it expands)
    is, as a number (one per file of a translation unit); None: no file."""
    handle = ctypes.c_void_p()
    library().clang_getExpansionLocation(location, ctypes.byref(handle), None, None, None)
    return handle.value


def written_at(location: ci.SourceLocation) -> tuple[int | None, int]:
    """(:func:`file_of`'s number, byte offset) of where ``location`` is written in a
    file: in a macro's argument, where the argument is written; in a macro's body,
    where the macro is used."""
    handle, value = ctypes.c_void_p(), ctypes.c_uint()
    library().clang_getFileLocation(location, ctypes.byref(handle), None, None,
                                     ctypes.byref(value))
    return handle.value, value.value


def path_handle(tu: ci.TranslationUnit, path: str) -> int | None:
    """:func:`file_of`'s number for the file ``path`` of ``tu``."""
    try:
        return handle_of(tu.get_file(path))
    except AssertionError:  # cindex asserts on a null handle: no such file
        return None


def handle_of(file: ci.File) -> int | None:
    """:func:`file_of`'s number for clang's ``file``."""
    return ctypes.cast(file.obj, ctypes.c_void_p).value


def file_name(handle: int) -> str:
    """The name of the file whose :func:`file_of` number is ``handle``."""
    return ci.File(ctypes.cast(handle, ci.c_object_p)).name


def file_bytes(tu: ci.TranslationUnit, handle: int, start: int, end: int) -> bytes | None:
    """Bytes ``start..end`` of the file :func:`file_of` numbers ``handle``, as clang
    read it (a header's :func:`..sourcetext.clang_view`); None where it has no text."""
    size = ctypes.c_size_t()
    contents = library().clang_getFileContents(tu, ctypes.c_void_p(handle), ctypes.byref(size))
    if not contents or size.value < end:
        return None
    return ctypes.string_at(contents + start, end - start)


def expansion_point(location: ci.SourceLocation) -> tuple[int | None, int, int, int]:
    """(:func:`file_of`'s number, line, column, byte offset) of where ``location`` (a
    macro use: where it expands) is, in one call of clang (cindex's ``file``, ``line``
    and ``column`` make one each)."""
    handle, line, column, offset = (ctypes.c_void_p(), ctypes.c_uint(), ctypes.c_uint(),
                                    ctypes.c_uint())
    library().clang_getExpansionLocation(location, ctypes.byref(handle), ctypes.byref(line),
                                          ctypes.byref(column), ctypes.byref(offset))
    return handle.value, line.value, column.value, offset.value


def offset_of(location: ci.SourceLocation) -> int:
    """The byte offset of ``location`` (where a macro use expands) in its file."""
    value = ctypes.c_uint()
    library().clang_getExpansionLocation(location, None, None, None, ctypes.byref(value))
    return value.value



def skipped_ranges(unit: Unit, file: ci.File | None = None) -> list[tuple[int, int]]:
    """Byte ranges of the kernel text (or of the header ``file``) that conditional
    compilation left out."""
    lib = library()
    file = unit.tu.get_file(unit.main) if file is None else file
    found = lib.clang_getSkippedRanges(unit.tu, file)
    if not found:
        return []
    try:
        ranges = found.contents
        return [(ranges.ranges[k].start.offset, ranges.ranges[k].end.offset)
                for k in range(ranges.count)]
    finally:
        lib.clang_disposeSourceRangeList(found)
