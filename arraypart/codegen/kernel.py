"""The banked kernel: the user's source text with arraypart's banking edits.

Every edit is a byte range of the kernel's text (:mod:`.textedit`); everything else,
macros, comments and includes, stays as written:

- per_dim schemes become ``#pragma HLS array_partition`` lines (one per partitioned
  dimension) after the array's declaration, or at the top of the function body for an
  interface array, plus ``bind_storage`` for local arrays;
- flat schemes and replicated arrays become explicit bank arrays (:mod:`.layout`);
- the user's own ``array_partition`` pragmas on these arrays (and ``bind_storage`` on
  the local ones) are dropped, replaced by ours; every other pragma stays;
- each array gets a one-line comment with its scheme;
- a ``-D`` value the file never defines is defined at the top.
"""

from __future__ import annotations

import re
import textwrap

from ..banking.solution import ArraySolution, Solution
from ..errors import KernelError
from ..frontend import cnodes as N
from ..ir import Kernel
from . import ranges
from .layout import Explicit, ExplicitRewriter
from .textedit import MAX_LINE, Edit, apply

_PRAGMA_KIND = re.compile(r"^\s*HLS\s+(\w+)", re.IGNORECASE)
_PRAGMA_VARIABLE = re.compile(rb"(\bvariable\s*=\s*)(\w+)", re.IGNORECASE)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_BANK_SUFFIX = "_bank"
_COMMENT = "// "


def banked_source(kernel: Kernel, solution: Solution) -> str:
    """The kernel's text with the banking applied."""
    source = kernel.source
    text, func = source.text, source.func
    data = text.encode()
    taken = set(_IDENTIFIER.findall(text))
    explicit = {s.array.name: _explicit(s, taken) for s in solution.arrays
                if _needs_explicit(s)}
    edits = ExplicitRewriter(text, func, explicit, ranges.ref_contexts(kernel.body),
                             kernel.coord).edits()
    edits += _edit_pragmas(data, func, solution, explicit)
    interface_lines = []
    for s in solution.arrays:
        lines = _lines(s, explicit.get(s.array.name))
        if s.array.interface:
            interface_lines += lines
        else:
            edits += _after_declaration(data, func, source.globals, s,
                                        explicit.get(s.array.name), lines)
    if interface_lines:
        edits.insert(0, _after_open_brace(data, func.body.start, interface_lines))
    defines = "".join(f"#define {n} {v}\n" for n, v in source.extra_defines)
    if defines:
        edits.append(Edit(0, 0, defines, breakable=False))
    out = apply(text, edits, kernel.path)
    return out if out.endswith("\n") else out + "\n"


def _needs_explicit(s: ArraySolution) -> bool:
    return s.banking.scheme.kind == "flat" or s.banking.copies > 1


def _explicit(s: ArraySolution, taken: set[str]) -> Explicit:
    if s.array.interface:
        raise KernelError(s.array.coord,
                          f"interface array '{s.array.name}' cannot take a flat or "
                          f"replicated banking: the top function's signature must stay")
    name = s.array.name + _BANK_SUFFIX
    n = 1
    while name in taken:
        name = f"{s.array.name}{_BANK_SUFFIX}{n}"
        n += 1
    taken.add(name)
    return Explicit(s.array, s.banking, name)


def _line_span(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The whole lines holding ``start..end``, with the final newline."""
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", end)
    return line_start, len(data) if line_end < 0 else line_end + 1


def _edit_pragmas(data: bytes, func: N.FuncDef, solution: Solution,
                  explicit: dict[str, Explicit]) -> list[Edit]:
    """Drop the user's pragmas that ours replace; point the rest of the pragmas on an
    explicit array at its banks."""
    handled = {s.array.name: s.array for s in solution.arrays}
    edits = []
    for node in N.walk(func.body):
        if not isinstance(node, N.Pragma):
            continue
        kind = _PRAGMA_KIND.match(node.line.text)
        raw = data[node.start:node.end]
        var = _PRAGMA_VARIABLE.search(raw)
        if kind is None or var is None:
            continue
        kind_name, name = kind.group(1).lower(), var.group(2).decode()
        if name not in handled:
            continue
        if kind_name == "array_partition" or (
                kind_name == "bind_storage" and not handled[name].interface):
            lo, hi = _line_span(data, node.start, node.end)
            if data[lo:node.start].strip() or data[node.end:hi].strip():
                edits.append(Edit(node.start, node.end, ""))  # a _Pragma in a line
            else:
                edits.append(Edit(lo, hi, ""))
        elif name in explicit:
            at = node.start + var.start(2)
            edits.append(Edit(at, at + len(name), explicit[name].bank_name))
    return edits


def _lines(s: ArraySolution, ex: Explicit | None) -> list[str]:
    """The scheme comment (wrapped) and our pragma lines for one array."""
    comment = textwrap.wrap(_comment(s, ex), MAX_LINE - len(_COMMENT) - 8)
    return [_COMMENT + c for c in comment] + [f"#pragma {p}" for p in _pragmas(s, ex)]


def _after_open_brace(data: bytes, brace: int, lines: list[str]) -> Edit:
    """Insert ``lines`` just inside the function body's ``{``."""
    at = brace + 1
    line_end = data.find(b"\n", at)
    if line_end >= 0 and not data[at:line_end].strip():
        following = data[line_end + 1:data.find(b"\n", line_end + 1)]
        indent = following[:len(following) - len(following.lstrip())].decode()
        text = "".join(f"{indent if l.startswith(_COMMENT) else ''}{l}\n" for l in lines)
        return Edit(line_end + 1, line_end + 1, text, False)
    return Edit(at, at, "\n" + "".join(f"{l}\n" for l in lines), False)


def find_array_decl(func: N.FuncDef, globals_, name: str) -> N.Decl | None:
    """The declaration of the local (or file-scope) array ``name``."""
    for d in list(N.walk(func.body)) + list(globals_):
        if isinstance(d, N.Decl) and d.name == name and d.is_array:
            return d
    return None


def _after_declaration(data: bytes, func: N.FuncDef, globals_, s: ArraySolution,
                       ex: Explicit | None, lines: list[str]) -> list[Edit]:
    """The scheme comment before a local array's declaration, the pragmas after it."""
    decl = find_array_decl(func, globals_, s.array.name)
    if decl is None or decl.stmt_start < 0:
        raise KernelError(s.array.coord, f"no local declaration of array "
                                         f"'{s.array.name}' in the top function")
    comments = [l for l in lines if l.startswith(_COMMENT)]
    pragmas = [l for l in lines if not l.startswith(_COMMENT)]
    lo, hi = _line_span(data, decl.stmt_start, decl.stmt_end)
    edits = []
    if not data[lo:decl.stmt_start].strip():
        indent = data[lo:decl.stmt_start].decode()
        edits.append(Edit(lo, lo, "".join(f"{indent}{c}\n" for c in comments), False))
    else:
        pragmas = comments + pragmas
    tail = data[decl.stmt_end:hi]
    if not tail.strip() and hi <= len(data) and data[hi - 1:hi] == b"\n":
        edits.append(Edit(hi, hi, "".join(f"{p}\n" for p in pragmas), False))
    else:
        edits.append(Edit(decl.stmt_end, decl.stmt_end,
                          "\n" + "".join(f"{p}\n" for p in pragmas), False))
    return edits


def _comment(s: ArraySolution, ex: Explicit | None) -> str:
    text = f"arraypart: {s.array.name}: {s.banking.scheme.describe()}"
    if s.banking.copies > 1:
        text += f"; {s.banking.copies} copies"
    if ex is not None:
        text += f"; stored as {ex.declaration_text()}"
    return text


def _pragmas(s: ArraySolution, ex: Explicit | None) -> list[str]:
    """Our pragma strings (without ``#pragma``) for one array."""
    out = []
    if ex is not None:
        # every dimension but the words of a bank; a single bank needs no partition
        count = len(ex.dims) - 1 - (ex.banking.scheme.banks == 1)
        out += [f"HLS array_partition variable={ex.bank_name} type=complete dim={d}"
                for d in range(1, count + 1)]
    elif s.banking.scheme.kind == "per_dim":
        for d, part in enumerate(s.banking.scheme.dims, start=1):
            if part.type == "complete":
                out.append(f"HLS array_partition variable={s.array.name} "
                           f"type=complete dim={d}")
            elif part.type != "none":
                out.append(f"HLS array_partition variable={s.array.name} "
                           f"type={part.type} factor={part.factor} dim={d}")
    if not s.array.interface:
        name = ex.bank_name if ex is not None else s.array.name
        impl = f" impl={s.array.storage_impl}" if s.array.storage_impl else ""
        out.append(f"HLS bind_storage variable={name} type={s.ports.name}{impl}")
    return out
