"""What the C-simulation testbench needs to know about the top function.

The testbench (``templates/testbench.cpp.j2``) runs the original kernel and the banked
one on the same inputs and compares every interface array bit for bit, in
:func:`calls` calls.  This module describes each parameter: interface arrays with their
element type, shape and how to fill them (a pointer's shape is its extent); scalars (C
numbers, ``ap_[u]int``, ``ap_[u]fixed``: a small value, which for integers and bools
changes with the call (:data:`SCALAR_BY_CALL`); structs: random bytes; run-time sizes:
both ends of their range, midway and their probes, :mod:`.drive`), by value or by
reference, as one variable per run, the ones passed by non-const reference (outputs)
compared afterwards like the return value; ``hls::stream`` parameters (and arrays of
them) with the same random elements in both runs, enough for every statement execution
to read one, and what is left in them afterwards compared in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from math import prod

import re

from .. import expr as E
from .. import ir
from ..errors import KernelError
from ..frontend import cnodes as N
from ..frontend.cexpr import fold
from ..frontend.directivetext import scan_directives
from ..frontend.redeclared import declaration
from ..ir import Kernel
from ..sourcetext import KEEP_BYTES
from .drive import Driven, case_values, driven_values

# Any fixed seed: a testbench run is reproducible, under g++ and under csim.
SEED = 0x2545F491
# Random integers lie in [-SMALL_INT/2, SMALL_INT/2) (signed) or [0, SMALL_INT)
# (unsigned): sums and products of a few of them stay far from overflow, which is
# undefined behaviour for signed types and would make the comparison meaningless.
SMALL_INT = 16
# Scalar parameters: small values, so that loop bounds or scale factors passed by value
# stay reasonable; an integer one that is no run-time size (a mode flag, which the
# model reads as data) takes SCALAR_INT, SCALAR_INT + 1, ... in the calls (never below
# it: a kernel may assert a least value, and 0 may divide), one of at most two bits
# SCALAR_INT always (its next values wrap to 0), a bool true, false, true: each call
# another branch.
SCALAR_INT = 3
SCALAR_BY_CALL = f"({SCALAR_INT} + call - 1)"
BOOL_BY_CALL = "(call % 2 == 1)"
NARROWEST_STEPPED = 3  # bits of the narrowest ap_[u]int whose scalar steps by call
SCALAR_FLOAT = "0.5"
# The testbench prints at most this many differing elements.
MAX_REPORTED = 10
# Calls of both kernels, each on fresh random inputs and compared after it: the second
# and third see the state that ``static`` variables kept from the calls before.
CALLS = 3
# Elements pushed into each input stream at most: a read of an empty stream returns
# T() in both runs (the comparison stays valid), so this only caps the test's memory
# (2^20 elements of a 512-bit word are 64 MiB).
MAX_STREAM_ELEMENTS = 1 << 20
STREAM_PREFIX = "hls::stream<"
# The original top function's name in the testbench and the trace driver.
ORIGINAL_PREFIX = "arraypart_original_"

_FLOAT_WORDS = ("float", "double")
_FIXED_PREFIXES = ("ap_fixed<", "ap_ufixed<")
_AP_NUMBER_PREFIXES = ("ap_int<", "ap_uint<") + _FIXED_PREFIXES  # not ap_axis<...>
_UNSIGNED_PREFIXES = ("unsigned", "uint", "bool", "_Bool", "size_t")


class _Shaped:
    """A testbench buffer of ``shape``: its C declarator suffix and element count."""

    __slots__ = ()
    shape: tuple[int, ...]

    @property
    def dims(self) -> str:
        return "".join(f"[{n}]" for n in self.shape)

    @property
    def count(self) -> int:
        return prod(self.shape)


@dataclass(frozen=True, slots=True)
class TbArray(_Shaped):
    """An interface array filled by ``generator`` per element; ``ascending``: then
    sorted non-decreasing (its pairs ``a[i]``, ``a[i+1]`` start and end a loop)."""

    name: str
    elem_type: str
    shape: tuple[int, ...]
    generator: str
    ascending: bool = False


@dataclass(frozen=True, slots=True)
class TbScalar:
    """A scalar parameter (by value or by reference): both runs get a variable of
    ``value_type`` holding ``value``; an ``output`` (a non-const reference) is compared
    after them."""

    name: str
    value_type: str
    value: str
    output: bool = False


@dataclass(frozen=True, slots=True)
class TbStream(_Shaped):
    """An ``hls::stream`` parameter (``shape``: an array of ``count`` streams;
    ``pointer``: passed as ``hls::stream<T>*``, one stream)."""

    name: str
    stream_type: str
    value_type: str
    shape: tuple[int, ...]
    elements: int
    generator: str
    pointer: bool = False


@dataclass(frozen=True, slots=True)
class TbStruct:
    """A struct type compared field by field: ``test`` is the C++ condition that ``a``
    and ``b`` are equal (its padding bytes, indeterminate after a copy, left out)."""

    type: str
    test: str


@dataclass(frozen=True, slots=True)
class TbParam:
    """One argument of the call: an array, a scalar or a stream."""

    array: TbArray | None
    scalar: TbScalar | None
    stream: TbStream | None = None


# What a C kernel's text, compiled as the emitted C++, needs: C converts a brace
# initializer's value to its element's type as an assignment does (C11 6.7.9p11,
# ``unsigned char t[] = {-1}``), C++ refuses one that narrows unless told (g++ and
# clang, Vitis's front end, both read this pragma).
C_AS_CXX = ("// the original is C: its brace initializers may narrow, as C allows",
            '#pragma GCC diagnostic ignored "-Wnarrowing"')


def testbench_context(kernel: Kernel) -> dict:
    """The template variables of the testbench."""
    source = kernel.source
    func = source.func
    params = _with_driven(*_driven_params(kernel))
    return_type = _unqualified(func.return_type)
    returns = return_type != "void"
    data = source.text.encode(errors=KEEP_BYTES)
    scope = "".join(f"{n}::" for n in func.namespaces)
    return {
        "expected_call": _call(f"original::{scope}{ORIGINAL_PREFIX}{kernel.top}", params,
                               "expected_", return_type if returns else None),
        "actual_call": _call(f"::{scope}{kernel.top}", params, "actual_",
                             return_type if returns else None),
        "top": kernel.top,
        "c_as_cxx": [] if source.cxx else list(C_AS_CXX),
        "preamble": list(source.preamble),
        "defines": [f"#define {n} {v}" for n, v in source.extra_defines],
        "undefines": [f"#undef {n}" for n in sorted(set(source.macros)
                                                    | {n for n, _ in source.extra_defines})],
        "original": original_text(_copied(source), source),
        "prototype": "\n".join(source.macros_at_top
                               + (_rooted(_prototype(data, func), kernel),)),
        "params": params,
        "arrays": [p.array for p in params if p.array is not None],
        "scalars": [p.scalar for p in params if p.scalar is not None],
        "streams": [p.stream for p in params if p.stream is not None],
        "return_type": return_type if returns else None,
        "structs": _structs(func.params, params),
        "seed": SEED,
        "max_reported": MAX_REPORTED,
        "calls": calls(kernel),
    }


def _driven_params(kernel: Kernel) -> tuple[list[TbParam], Driven]:
    """The top's parameters as the testbench drives them, and the values per call of
    the stepped scalars and the sizes that a run-time size's expression reads where it
    would otherwise leave the size's range (:func:`.drive.driven_values`)."""
    bounds, ascending = _index_bounds(kernel)
    params = [_param(p, kernel, bounds, ascending) for p in kernel.source.func.params]
    stepped = frozenset(p.scalar.name for p in params
                        if p.scalar is not None and p.scalar.value == SCALAR_BY_CALL)
    return params, driven_values(kernel, stepped, calls(kernel), SCALAR_INT)


def _with_driven(params: list[TbParam], driven: Driven) -> list[TbParam]:
    """``params`` with each scalar of ``driven`` taking its values by call."""
    return [p if p.scalar is None or p.scalar.name not in driven.scalars else replace(
        p, scalar=replace(p.scalar, value=_by_call(driven.scalars[p.scalar.name])))
        for p in params]


def call_sizes(kernel: Kernel) -> tuple[dict[str, int], ...]:
    """Per call of the testbench whose scalar arguments differ from every earlier
    call's (all :func:`calls` where one takes its value by call, else the first), the
    value it passes to each run-time size that is an argument of the top (its
    ``high``, or the value :func:`_driven_params` gives it in that call), and the
    value of each other size whose expression reads only the arguments
    (:attr:`.drive.Driven.sizes`)."""
    params, driven = _driven_params(kernel)
    by_call = driven.scalars or any(p.scalar is not None and p.scalar.value in (
        SCALAR_BY_CALL, BOOL_BY_CALL) for p in params)
    arguments = {p.name for p in kernel.source.func.params}
    return tuple({p.name: driven.scalars[p.name][call] if p.name in driven.scalars
                  else p.high for p in kernel.params
                  if p.high is not None and p.name in arguments} | driven.sizes[call]
                 for call in range(calls(kernel) if by_call else 1))


def calls(kernel: Kernel) -> int:
    """The testbench's calls: :data:`CALLS`, or one per value a scalar takes so that
    every case of the model runs where that is more (:func:`.drive.case_values`), and
    one more per probe of the sizes, at which a pipelined loop runs that the first
    ones miss (``Param.probes``)."""
    cases = max((len(values) for values in case_values(kernel).values()), default=0)
    return max(CALLS, cases) + max((len(p.probes) for p in kernel.params), default=0)


def _by_call(values: tuple[int, ...]) -> str:
    """A C expression that is ``values[call - 1]`` in call ``call``."""
    chosen = str(values[-1])
    for call, value in reversed(list(enumerate(values[:-1], 1))):
        chosen = f"call == {call} ? {value} : {chosen}"
    return f"({chosen})"


def _structs(decls: list[N.Decl], params: list[TbParam]) -> list[TbStruct]:
    """The struct types of the arrays and scalars compared, one per type (by its
    canonical spelling without qualifiers, and by the spelling the testbench uses),
    each with its fields' test: integers, enums and bit-fields by value, the rest bit
    for bit."""
    found: dict[str, TbStruct] = {}
    spellings: set[str] = set()
    for decl, param in zip(decls, params):
        if decl.ctype is None:
            continue
        held = decl.ctype.referent or decl.ctype
        fields = held.stream_fields if param.stream is not None else held.element_fields
        if not fields or not all(name for name, _ in fields):
            continue
        spelled = (param.array.elem_type if param.array is not None
                   else param.scalar.value_type if param.scalar is not None
                   else param.stream.value_type)
        canonical = spelled if param.stream is not None else _unqualified(
            held.element_spelling)
        if spelled is None or canonical in found or spelled in spellings:
            continue
        test = " && ".join(f"a.{name} == b.{name}" if by_value else
                           f"std::memcmp(&a.{name}, &b.{name}, sizeof a.{name}) == 0"
                           for name, by_value in fields)
        found[canonical] = TbStruct(spelled, test)
        spellings.add(spelled)
    return list(found.values())


def original_text(text: str, source) -> str:
    """A kernel's text (:func:`_copied`, or an instrumented copy of ``source.text``
    with the same edits) as the testbench includes it in ``namespace original``:
    without its ``#include`` lines, with internal linkage, preceded by the declarations
    of the functions a header declares and the file defines (``source.redeclared``),
    those it renames (:func:`_with_prototypes`) renamed, and between the macros that
    rename those it renames ``by_macro`` (defined before it, undefined after)."""
    macros = [r.name for r in source.redeclared if r.by_macro]
    return ("".join(f"#define {n} {ORIGINAL_PREFIX}{n}\n" for n in macros)
            + _internal_linkage(_without_includes(
                _with_prototypes(text, source), source.nested_includes,
                source.hoisted_blocks, source.preamble_macros))
            + "".join(f"\n#undef {n}" for n in macros))


def _copied(source) -> str:
    """The kernel's text with :func:`shared_type_edits` made, and with
    :data:`ORIGINAL_PREFIX` put before each name that ``source.renamed_at`` locates:
    the top and the functions of ``source.redeclared`` that may be renamed
    (:mod:`arraypart.frontend.redeclared`), their declarations and the references to
    them.  Without this, a call of one of them would also find, or find alone, the
    header's global declaration, which is the banked kernel's function (or nothing,
    in the trace driver), so g++ calls it ambiguous or links the wrong one."""
    edits = sorted(shared_type_edits(source.shared_types)
                   + [(offset, ORIGINAL_PREFIX) for offset in source.renamed_at],
                   key=lambda edit: edit[0])  # stable: a name's prefix comes last
    data = source.text.encode(errors=KEEP_BYTES)
    for offset, text in reversed(edits):
        data = data[:offset] + text.encode(errors=KEEP_BYTES) + data[offset:]
    return data.decode(errors=KEEP_BYTES)


def shared_type_edits(shared_types) -> list[tuple[int, str]]:
    """(byte offset, text) insertions, in order, that take each of ``shared_types``
    out of ``namespace original`` where it stands: the namespace is closed before it
    and opened again after, on the same lines, seeing the namespace the definition
    went to.  The original top then takes the banked one's types."""
    edits = []
    for span in shared_types:
        opened = "".join(f"namespace {n} {{ " for n in span.namespaces)
        closed = " }" * len(span.namespaces)
        seen = f"using namespace ::{'::'.join(span.namespaces)}; " if span.namespaces else ""
        # one edit per offset: ``inline`` after the namespaces that open at the start
        inline = "inline " if span.inline_at == span.start else ""
        edits.append((span.start, f"{'}' * (len(span.namespaces) + 1)} {opened}{inline}"))
        if span.inline_at not in (None, span.start):
            edits.append((span.inline_at, "inline "))
        edits.append((span.end, f"{closed} namespace original {{ {opened}{seen}"))
    return edits


def _with_prototypes(text: str, source) -> str:
    """``text`` after the header's declarations of ``source.redeclared``, those that
    :func:`_copied` renames renamed: a header's declaration names what comes before it
    only, so they stand before all of the file's code."""
    return "".join(f"{_prototype_named(r)}\n" for r in source.redeclared) + text


def _prototype_named(r) -> str:
    if not r.renamed or r.name_at is None:
        return r.prototype
    return r.prototype[:r.name_at] + ORIGINAL_PREFIX + r.prototype[r.name_at:]


_QUALIFIERS = ("const ", "volatile ")


_INCLUDE_LINE = re.compile(r"^[ \t]*#[ \t]*include\b[ \t]*(?:<[^>\n]*>|\"[^\"\n]*\"|\w+)"
                           r"(?P<rest>[^\n]*)", re.MULTILINE)


def _without_includes(text: str, nested: tuple[str, ...], hoisted: tuple[str, ...],
                      ran: tuple[int, ...] = ()) -> str:
    """The kernel's text with its ``#include`` directives blanked (the testbench
    includes them once, before the ``original`` namespace), but for those inside a
    declaration (``nested``: a table's initializer), which stay where they are, and
    the namespace blocks of directives the preamble repeats (``hoisted``) and the
    macro lines it ran before its headers (``ran``: their positions among the text's
    directive lines, which neither the prototypes nor the instrumentation add to) left
    out (a
    ``namespace lib {}`` left in ``original`` would hide the global ``lib`` the
    header fills; a ``#define N 64`` run again would undo a header's ``#define N
    32``).  What follows a blanked one's file name stays: a comment it opens may end
    lines later."""
    data = text.encode(errors=KEEP_BYTES)
    lines = scan_directives(data)
    for k in sorted(ran, reverse=True):
        if k < len(lines):
            line = data[lines[k].start:lines[k].end]
            data = data[:lines[k].start] + b"\n" * line.count(b"\n") + data[lines[k].end:]
    text = data.decode(errors=KEEP_BYTES)
    for block in hoisted:
        text = text.replace(block, "\n" * block.count("\n"), 1)
    return _INCLUDE_LINE.sub(lambda m: m.group(0) if m.group(0).strip() in nested
                             else m.group("rest"), text)


def _prototype(data: bytes, func: N.FuncDef) -> str:
    """The top function's declaration as written, from its start to its body, in its
    namespaces and with its linkage."""
    if func.start < 0 or func.body is None or func.body.start < func.start:
        raise KernelError(func.coord, "the top function's definition must be written in "
                                      "the kernel file")
    head = declaration(data[func.start:func.body.start].decode(errors=KEEP_BYTES))
    if func.extern_c:
        head = f'extern "C" {head}'
    for name in reversed(func.namespaces):
        head = f"namespace {name} {{\n{head}\n}}"
    return head


_EXTERN_C_BLOCK = re.compile(r'\bextern\s*"C"\s*\{')
_EXTERN_C = re.compile(r'\bextern\s*"C"')


def _internal_linkage(text: str) -> str:
    """The original kernel as the testbench includes it: its ``extern "C"`` functions
    would clash with the banked ones (C names ignore namespaces), so the blocks become
    unnamed namespaces and single declarations ``static``."""
    return _EXTERN_C.sub("static", _EXTERN_C_BLOCK.sub("namespace {", text))


_NAMESPACE_CHAIN = re.compile(r"(?<![\w:])(?=([A-Za-z_]\w*)::)")


def _rooted(spelling: str, kernel: Kernel) -> str:
    """``spelling`` with each name qualified by a namespace that a shared type left
    (``source.shared_types``) rooted at the global namespace (``k::px`` to ``::k::px``):
    with ``using namespace original``, ``k`` names both that namespace and its copy in
    ``original``."""
    left = {span.namespaces[0] for span in kernel.source.shared_types if span.namespaces}
    return _NAMESPACE_CHAIN.sub(lambda m: "::" if m.group(1) in left else "", spelling)


def _unqualified(spelling: str) -> str:
    for q in _QUALIFIERS:
        spelling = spelling.removeprefix(q)
    return spelling


def _call(function: str, params: list[TbParam], prefix: str,
          return_type: str | None) -> str:
    """``[T prefixreturn = ]function(args);`` with the arguments named ``prefix + name``."""
    args = ", ".join(("&" if p.stream is not None and p.stream.pointer else "") + prefix
                     + (p.array or p.scalar or p.stream).name for p in params)
    result = f"{return_type} {prefix}return = " if return_type is not None else ""
    return f"{result}{function}({args});"


def _param(p: N.Decl, kernel: Kernel, bounds: dict[str, int],
           ascending: frozenset[str]) -> TbParam:
    if not p.name:
        raise KernelError(p.coord, "unnamed parameter of the top function")
    try:
        array = kernel.array(p.name)
    except KeyError:
        array = None
    if _stream_type(p) is not None:  # an hls::stream argument's FIFO model is no array
        return TbParam(None, None, _stream(p, kernel))
    if array is None or not array.interface:
        return TbParam(None, _scalar(p, kernel))
    elem_type = array.elem_type
    if p.ctype.element_struct and "::" in p.ctype.element_spelling:
        elem_type = _unqualified(p.ctype.element_spelling)  # its namespace, which the IR drops
    if p.ctype.element_struct:  # a field that indexes an array gets random bytes too
        generator = _random_struct(elem_type, p.ctype.element_ap_fields)
    elif p.name in bounds:
        generator = f"random_int<{elem_type}>(0, {bounds[p.name]})"
    else:
        generator = _random_value(elem_type)
    return TbParam(TbArray(p.name, _rooted(elem_type, kernel), array.shape,
                           _rooted(generator, kernel), p.name in ascending), None)


def _scalar(p: N.Decl, kernel: Kernel) -> TbScalar:
    """A parameter that is no array or stream: a C number, an enum, an ``ap_[u]int``,
    an ``ap_[u]fixed`` or a struct, by value or by reference (module doc)."""
    held = p.ctype.referent or p.ctype
    kind = held.canonical_kind.name
    if p.is_array or held.kind in N.ARRAY_TYPE_KINDS or not (
            kind in SCALAR_TYPE_KINDS or kind == RECORD_KIND):
        raise KernelError(p.coord, f"parameter '{p.name}': the testbench drives only "
                                   "arrays of fixed size, streams and scalars (C numbers, "
                                   "ap_[u]int, ap_[u]fixed, structs; by value or by "
                                   "reference)")
    value_type = _unqualified(held.canonical_spelling)
    size = next((s for s in kernel.params if s.name == p.name), None)
    if size is not None:
        value = str(size.high)
    elif kind == RECORD_KIND and not held.ap_number:
        value = _random_struct(value_type, held.element_ap_fields)
    elif kind == ENUM_KIND:
        # one of its enumerators (a kernel may index with it); C++ converts no int to
        # an enum implicitly
        values = held.enumerators or (SCALAR_INT,)
        value = f"{value_type}({values[SCALAR_INT % len(values)]})"
    else:
        value = _scalar_value(value_type)
    output = p.ctype.referent is not None and not held.const
    return TbScalar(p.name, _rooted(value_type, kernel), _rooted(value, kernel), output)


def _stream_type(p: N.Decl) -> str | None:
    """``hls::stream<T...>`` (clang's canonical spelling: namespace-qualified whatever
    the kernel wrote) for a stream parameter (by reference or an array of streams),
    else None."""
    canonical = _unqualified(p.ctype.canonical_spelling)
    if not canonical.startswith(STREAM_PREFIX):
        return None
    depth, end = 0, len(canonical)
    for k, ch in enumerate(canonical):
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if depth == 0 and ch == ">":
            end = k + 1
            break
    return canonical[:end]


def _stream(p: N.Decl, kernel: Kernel) -> TbStream:
    stream_type = _stream_type(p)
    inner = stream_type[len(STREAM_PREFIX):-1]
    depth, cut = 0, len(inner)
    for k, ch in enumerate(inner):
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if depth == 0 and ch == ",":
            cut = k
            break
    value_type = inner[:cut].strip()
    shape = tuple(int(d) for d in re.findall(r"\[(\d+)\]", p.ctype.canonical_spelling))
    elements = min(MAX_STREAM_ELEMENTS, max(1, _executions(kernel.body, {
        s.name: (s.low, s.high) for s in kernel.params})))
    generator = (_random_value(value_type) if value_type.startswith(_AP_NUMBER_PREFIXES)
                 or value_type in _SCALAR_NAMES
                 else _random_struct(value_type, p.ctype.stream_ap_fields))
    pointer = _unqualified(p.ctype.canonical_spelling)[len(stream_type):].lstrip() == "*"
    return TbStream(p.name, _rooted(stream_type, kernel), _rooted(value_type, kernel), shape,
                    elements, _rooted(generator, kernel), pointer)


def _executions(nodes: tuple[ir.Node, ...], ranges: dict[str, tuple[int, int]]) -> int:
    """An upper bound of the statement executions of ``nodes``: each loop runs at most
    ``(hi - lo) / |step| + 1`` times, ``lo..hi`` holding every start and bound."""
    total = 0
    for node in nodes:
        if isinstance(node, ir.Stmt):
            total += 1
        elif isinstance(node, ir.If):
            total += _executions(node.then, ranges) + _executions(node.orelse, ranges)
        else:
            spans = [E.bounds(e, ranges) for e in node.init + node.bound]
            lo, hi = min(s[0] for s in spans), max(s[1] for s in spans)
            trips = max(0, (hi - lo) // abs(node.step) + 1)
            total += trips * _executions(node.body, {**ranges, node.var: (lo, hi)})
    return total


_SCALAR_NAMES = frozenset((
    "bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int",
    "unsigned", "unsigned int", "long", "unsigned long", "long long", "unsigned long long",
    "float", "double", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t"))


RECORD_KIND = "RECORD"
ENUM_KIND = "ENUM"
SCALAR_TYPE_KINDS = frozenset((
    "BOOL", "CHAR_U", "UCHAR", "USHORT", "UINT", "ULONG", "ULONGLONG", "CHAR_S", "SCHAR",
    "SHORT", "INT", "LONG", "LONGLONG", "FLOAT", "DOUBLE", "LONGDOUBLE", "ENUM"))


def _is_float(elem_type: str) -> bool:
    return any(w in elem_type.split() for w in _FLOAT_WORDS)


def _is_unsigned(elem_type: str) -> bool:
    return elem_type.startswith(_UNSIGNED_PREFIXES)


def _scalar_value(elem_type: str) -> str:
    if _is_float(elem_type) or elem_type.startswith(_FIXED_PREFIXES):
        return SCALAR_FLOAT
    if elem_type in ("bool", "_Bool"):
        return BOOL_BY_CALL
    width = re.match(r"ap_u?int<(\d+)>", elem_type)
    if width is not None and int(width.group(1)) < NARROWEST_STEPPED:
        return str(SCALAR_INT)
    return SCALAR_BY_CALL


def _random_struct(type_name: str, ap_fields: tuple[tuple[str, str, tuple[int, ...]], ...]
                   ) -> str:
    """An expression giving a struct of ``type_name`` random bytes, then each of its
    ``ap_`` number and ``bool`` fields (:attr:`.clangtypes.TypeInfo.element_ap_fields`) a random
    value of its type: random bytes would set bits past the width, which no
    ``ap_[u]int`` holds (an ``ap_uint<8>`` index past 255 overruns a 256-entry table),
    and a ``bool`` byte other than 0 or 1."""
    if not ap_fields:
        return f"random_bytes<{type_name}>()"
    sets = []
    for element, ap_type, dims in ap_fields:
        loops = "".join(f"for (long k{d} = 0; k{d} < {n}; ++k{d}) " for d, n in enumerate(dims))
        sets.append(f"{loops}value.{element} = {_random_value(ap_type)};")
    return (f"[]() {{ {type_name} value = random_bytes<{type_name}>(); {' '.join(sets)} "
            "return value; }()")


def _random_value(elem_type: str) -> str:
    if _is_float(elem_type):
        return f"random_unit<{elem_type}>()"
    if elem_type in ("bool", "_Bool"):
        return f"random_int<{elem_type}>(0, 2)"
    if _is_unsigned(elem_type):
        return f"random_int<{elem_type}>(0, {SMALL_INT})"
    return f"random_int<{elem_type}>({-SMALL_INT // 2}, {SMALL_INT})"


def _index_bounds(kernel: Kernel) -> tuple[dict[str, int], frozenset[str]]:
    """Arrays whose elements subscript another array (``A[idx[i]]``) -> the smallest
    dimension they index (or row length they are added to, :func:`_row_length`), so
    random values stay in bounds; and arrays whose elements bound a loop
    (:func:`_loop_bounds`), with those that both start and end one (kept ascending)."""
    body = kernel.source.func.body
    loaded = _loaded_scalars(body)
    bounds: dict[str, int] = {}

    def tighten(name: str, limit: int) -> None:
        if limit > 0:  # else no value is safe: keep the array's random values
            bounds[name] = min(bounds.get(name, limit), limit)

    for ref in N.outer_array_refs(body):
        name = N.ref_name(ref)
        try:
            shape = kernel.array(name).shape
        except KeyError:
            continue
        _, subscripts = N.ref_base_and_subscripts(ref)
        for d, subscript in enumerate(subscripts[:len(shape)]):
            for inner in N.outer_array_refs(subscript):
                inner_name = N.ref_name(inner)
                if inner_name is not None:
                    tighten(inner_name, min(shape[d] - _offset(subscript, inner),
                                            _row_length(subscript, inner) or shape[d]))
            for n in N.walk(subscript):
                for inner_name in loaded.get(n.name, ()) if isinstance(n, N.Id) else ():
                    tighten(inner_name, shape[d])
    ascending = _loop_bounds(kernel, body, loaded, tighten)
    return bounds, ascending


def _loop_bounds(kernel: Kernel, body: N.Node, loaded: dict[str, set[str]],
                 tighten: Callable[[str, int], None]) -> frozenset[str]:
    """For each ``for (v = lo; v < hi; ...)`` (or ``<=``) whose variable ``v`` plainly
    subscripts arrays (``A[v]``) of least extent E: an array read in ``lo`` or ``hi``
    (directly or through a scalar loaded from it) gets values in [0, E] (``<``) or
    [0, E) (``<=``), so v stays in [0, E); one read in both (CSR ``ptr[i]``,
    ``ptr[i+1]``) is returned, to be sorted so that no range runs past the next."""
    ascending: set[str] = set()
    for loop in (n for n in N.walk(body) if isinstance(n, N.For)):
        var, lo, hi, inclusive = _loop_header(loop)
        extent = _subscripted_extent(kernel, loop.stmt, var) if var is not None else None
        if extent is None:
            continue
        starts, ends = _arrays_read(lo, loaded), _arrays_read(hi, loaded)
        for name in starts | ends:
            tighten(name, extent if inclusive else extent + 1)
        ascending |= starts & ends
    return frozenset(ascending)


def _loop_header(loop: N.For) -> tuple[str | None, N.Node | None, N.Node | None, bool]:
    """``v``, ``lo``, ``hi`` and whether ``<=`` of ``for (v = lo; v < hi; ...)``."""
    init, cond = loop.init, _uncast(loop.cond) if loop.cond is not None else None
    if isinstance(init, N.DeclList) and len(init.decls) == 1:
        init = init.decls[0]
    if isinstance(init, N.Decl) and init.init is not None:
        var, lo = init.name, init.init
    elif isinstance(init, N.Assignment) and init.op == "=" and isinstance(init.lvalue, N.Id):
        var, lo = init.lvalue.name, init.rvalue
    else:
        return None, None, None, False
    if not (isinstance(cond, N.BinaryOp) and cond.op in ("<", "<=")
            and isinstance(_uncast(cond.left), N.Id) and _uncast(cond.left).name == var):
        return None, None, None, False
    return var, lo, cond.right, cond.op == "<="


def _subscripted_extent(kernel: Kernel, stmt: N.Node | None, var: str) -> int | None:
    """The least extent among dimensions of arrays that ``var`` alone subscripts
    in ``stmt`` (None when it subscripts none)."""
    extents = []
    for ref in N.outer_array_refs(stmt) if stmt is not None else ():
        try:
            shape = kernel.array(N.ref_name(ref)).shape
        except KeyError:
            continue
        _, subscripts = N.ref_base_and_subscripts(ref)
        extents += [shape[d] for d, sub in enumerate(subscripts[:len(shape)])
                    if isinstance(_uncast(sub), N.Id) and _uncast(sub).name == var]
    return min(extents, default=None)


def _arrays_read(node: N.Node | None, loaded: dict[str, set[str]]) -> set[str]:
    """Arrays whose elements ``node`` reads, directly or through a loaded scalar."""
    names: set[str] = set()
    for n in N.walk(node) if node is not None else ():
        if isinstance(n, N.ArrayRef) and N.ref_name(n) is not None:
            names.add(N.ref_name(n))
        elif isinstance(n, N.Id):
            names |= loaded.get(n.name, set())
    return names


def _loaded_scalars(body: N.Node) -> dict[str, set[str]]:
    """Scalars set to an array's element (``j = NL[k]``, ``int j = NL[k];``) -> those
    arrays: an index through the scalar is an index through the array."""
    loaded: dict[str, set[str]] = {}
    for n in N.walk(body):
        if isinstance(n, N.Assignment) and n.op == "=" and isinstance(n.lvalue, N.Id):
            target, value = n.lvalue.name, n.rvalue
        elif isinstance(n, N.Decl) and n.init is not None:
            target, value = n.name, n.init
        else:
            continue
        value = _uncast(value)
        if isinstance(value, N.ArrayRef) and N.ref_name(value) is not None:
            loaded.setdefault(target, set()).add(N.ref_name(value))
    return loaded


def _row_length(subscript: N.Node, inner: N.ArrayRef) -> int | None:
    """C in a flattened 2-D subscript ``row * C + idx[...]`` (either order, casts
    aside): the element ``idx[...]`` picks a column, so its values stay below C."""
    addends = _addends(subscript)
    if not any(_uncast(a) is inner for a in addends):
        return None
    for a in map(_uncast, addends):
        if isinstance(a, N.BinaryOp) and a.op == "*":
            factor = fold(a.right) or fold(a.left)
            if factor is not None and factor > 0:
                return factor
    return None


def _offset(subscript: N.Node, inner: N.ArrayRef) -> int:
    """c > 0 in a subscript ``idx[...] + c`` (constant addends summed, casts aside):
    the element ``idx[...]`` stays below the extent minus c.  Zero otherwise, a
    negative sum included (no lower bound is drawn; such values stay as they were)."""
    addends = _addends(subscript)
    if not any(_uncast(a) is inner for a in addends):
        return 0
    return max(0, sum(c for c in map(fold, addends) if c is not None))


def _addends(node: N.Node) -> list[N.Node]:
    node = _uncast(node)
    if isinstance(node, N.BinaryOp) and node.op == "+":
        return _addends(node.left) + _addends(node.right)
    return [node]


def _uncast(node: N.Node) -> N.Node:
    while isinstance(node, N.Cast):
        node = node.expr
    return node
