"""A first look at corpus kernels through libclang, for the clang front end (issue 11).

For each kernel's top function and every function it reaches (template instantiations with
their constant arguments included), list the arrays (name, shape, element type and width),
the loops (label, line, bound, HLS pragmas and Tcl directives on them) and the array
subscripts each loop issues itself (outside its inner loops). Usage::

    python bench/clang_probe.py [--kernel ID ...] [--summary]

What libclang gives and how (the lessons this probe records for the front end):
- Template instantiations: a call's ``referenced`` cursor is the implicit instantiation, a
  FUNCTION_DECL whose children are the *instantiated* body (``int a[M]`` reads ``int[16]``);
  ``get_template_argument_value(i)`` gives its constant arguments.
- Constants: ``clang_Cursor_Evaluate`` (not wrapped by cindex; bound here through ctypes)
  folds macros, ``constexpr`` and template parameters (``M - 1`` is 15 in ``kern<16>``);
  array extents come evaluated from ``type.element_count``.
- ``ap_uint<12>``: the canonical type's declaration is the specialization; its template
  argument 0 is the width. Structs: the sum of their fields' widths.
- Pragmas are not in the AST: ``#pragma`` lines are read from the text of the kernel's own
  files (tokens of a macro-expanded cursor are unreliable: a literal that came from ``N``
  tokenizes from the ``#define`` onward). Macros in pragma arguments are expanded from the
  MACRO_DEFINITION cursors (needs PARSE_DETAILED_PROCESSING_RECORD); ``_Pragma`` through a
  function-like macro is found as a MACRO_INSTANTIATION whose definition uses ``_Pragma``.
- Multi-dimensional subscripts nest: ``a[i][j]`` is an ARRAY_SUBSCRIPT_EXPR over another
  (through an implicit decay; the inner one has an array type); ``operator[]`` of a class
  (ap_uint bit select, hls::vector) is a CALL_EXPR instead, and so is every operator on an
  ap_int (``x < width`` with ``ap_uint`` width is a CALL_EXPR ``operator<``).
- libclang omits the empty parts of a ``for``: the condition is not always child 1.
- Pragma arguments name C++ constants as well as macros (rosetta's ``factor=unroll_factor``
  is a local ``const int``): they must be looked up at the pragma's scope and evaluated.
- The PyPI wheel has no clang resource headers (stddef.h): corpus.compiler_builtin_include
  puts GCC's on the path.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402  (the sibling script: manifest, parse, include paths)

from clang.cindex import CursorKind, TypeKind  # noqa: E402

from arraypart.frontend.clanglib import library  # noqa: E402  (libclang, its prototypes set)

PRAGMA_LINE_RE = re.compile(r"^\s*#\s*pragma\s+HLS\b(.*)$", re.IGNORECASE)
ARRAY_KINDS = (TypeKind.CONSTANTARRAY, TypeKind.INCOMPLETEARRAY, TypeKind.VARIABLEARRAY,
               TypeKind.DEPENDENTSIZEDARRAY)
LOOP_KINDS = (CursorKind.FOR_STMT, CursorKind.WHILE_STMT, CursorKind.DO_STMT)
AP_TYPE_RE = re.compile(r"\bap_u?(int|fixed)<\s*(\d+)")
CX_EVAL_INT = 1  # CXEvalResultKind CXEval_Int


def evaluate(cursor) -> int | None:
    """The integer value of a constant expression cursor, or None."""
    lib = library()
    result = lib.clang_Cursor_Evaluate(cursor)
    if not result:
        return None
    try:
        if lib.clang_EvalResult_getKind(result) != CX_EVAL_INT:
            return None
        return lib.clang_EvalResult_getAsLongLong(result)
    finally:
        lib.clang_EvalResult_dispose(result)


def elem_bits(type_) -> int | None:
    """Width in bits of a scalar, ap_[u]int/ap_[u]fixed or struct element type."""
    t = type_.get_canonical()
    if t.kind == TypeKind.RECORD:
        decl = t.get_declaration()
        if decl.get_num_template_arguments() > 0 and AP_TYPE_RE.search(t.spelling):
            return decl.get_template_argument_value(0)
        widths = [elem_bits(f.type) for f in decl.get_children() if f.kind == CursorKind.FIELD_DECL]
        return None if None in widths else sum(widths)
    if t.kind in ARRAY_KINDS:
        inner = elem_bits(t.element_type)
        return None if inner is None or t.element_count < 0 else inner * t.element_count
    size = t.get_size()
    return 8 * size if size > 0 else None


def shape_of(type_):
    """(dims, element type): ``int[4][8]`` -> ([4, 8], int); unknown extents are '?'."""
    dims, t = [], type_
    while t.kind in ARRAY_KINDS or (t.kind == TypeKind.ELABORATED and
                                    t.get_canonical().kind in ARRAY_KINDS):
        t = t.get_canonical() if t.kind == TypeKind.ELABORATED else t
        dims.append(t.element_count if t.kind == TypeKind.CONSTANTARRAY else "?")
        t = t.element_type
    return dims, t


@dataclass
class Pragma:
    file: str
    line: int
    offset: int
    text: str  # after "#pragma HLS", macros expanded


@dataclass
class Loop:
    line: int
    label: str
    kind: str
    bound: str
    pragmas: list[str] = field(default_factory=list)
    subscripts: list[str] = field(default_factory=list)
    depth: int = 0


@dataclass
class Function:
    name: str
    template_args: list
    arrays: list[str]
    loops: list[Loop]
    pragmas: list[str]


def _walk(cursor):
    yield cursor
    for child in cursor.get_children():
        yield from _walk(child)


def macro_table(tu, own: set[str]) -> dict[str, list[str]]:
    """Object-like macros defined in the kernel's own files: name -> replacement tokens."""
    table = {}
    for c in tu.cursor.get_children():
        if c.kind != CursorKind.MACRO_DEFINITION or not corpus._own_file(c, own):
            continue
        tokens = list(c.get_tokens())
        function_like = len(tokens) > 1 and tokens[1].spelling == "(" and \
            tokens[1].location.column == tokens[0].location.column + len(tokens[0].spelling)
        if not function_like:
            table[c.spelling] = [t.spelling for t in tokens[1:]]
    return table


def expand(words: list[str], macros: dict[str, list[str]], active=frozenset()) -> list[str]:
    out = []
    for w in words:
        if w in macros and w not in active:
            out += expand(macros[w], macros, active | {w})
        else:
            out.append(w)
    return out


def collect_pragmas(tu, kernel, root: Path, own: set[str]) -> list[Pragma]:
    """``#pragma HLS`` lines (continuations joined) and ``_Pragma`` macros, located, with
    object-like macros expanded in their arguments."""
    macros = macro_table(tu, own)
    found = []
    for rel in kernel.files:
        path = root / rel
        text = path.read_text(errors="replace")
        offset = 0
        lines = text.split("\n")
        i = 0
        while i < len(lines):
            start_line, start_offset = i + 1, offset
            logical = lines[i]
            while logical.endswith("\\") and i + 1 < len(lines):
                offset += len(lines[i]) + 1
                i += 1
                logical = logical[:-1] + " " + lines[i]
            offset += len(lines[i]) + 1
            i += 1
            m = PRAGMA_LINE_RE.match(logical)
            if m:
                words = re.findall(r"\w+|[^\s\w]", m.group(1))
                found.append(Pragma(str(path.resolve()), start_line, start_offset,
                                    " ".join(expand(words, macros))))
    pragma_macros = {c.spelling for c in tu.cursor.get_children()
                     if c.kind == CursorKind.MACRO_DEFINITION and
                     any(t.spelling == "_Pragma" for t in c.get_tokens())}
    for c in tu.cursor.get_children():
        if c.kind == CursorKind.MACRO_INSTANTIATION and c.spelling in pragma_macros and \
                corpus._own_file(c, own):
            words = [t.spelling for t in c.get_tokens()][2:-1]  # inside NAME( ... )
            found.append(Pragma(str(Path(c.location.file.name).resolve()), c.location.line,
                                c.extent.start.offset, " ".join(expand(words, macros))))
    return found


def _label_of(loop, parents) -> str:
    parent = parents.get(loop.hash)
    return parent.spelling if parent is not None and parent.kind == CursorKind.LABEL_STMT else ""


def _bound_of(loop) -> str:
    """The evaluated right side of a ``for`` condition, or its text."""
    if loop.kind != CursorKind.FOR_STMT:
        return "-"
    # libclang leaves out the empty parts of ``for (init; cond; inc)``: the condition is
    # not "the second child", so it is the comparison among the children.
    for child in loop.get_children():
        if child.kind == CursorKind.BINARY_OPERATOR and corpus._is_comparison(child):
            operands = list(child.get_children())
            if len(operands) == 2:
                value = evaluate(operands[1])
                if value is not None:
                    return str(value)
                return " ".join(t.spelling for t in operands[1].get_tokens())[:40] or "?"
    return "?"


def _base_name(subscript) -> str:
    base = next(subscript.get_children(), None)
    while base is not None and base.kind != CursorKind.DECL_REF_EXPR:
        if base.kind == CursorKind.MEMBER_REF_EXPR:
            return base.spelling
        base = next(base.get_children(), None)
    return base.spelling if base is not None else "?"


def _source_text(cursor, cache: dict) -> str:
    ext = cursor.extent
    if ext.start.file is None or ext.start.file.name != ext.end.file.name:
        return "?"
    data = cache.setdefault(ext.start.file.name, Path(ext.start.file.name).read_bytes())
    return " ".join(data[ext.start.offset:ext.end.offset].decode(errors="replace").split())


def probe_function(fn, pragmas: list[Pragma], directives: list[tuple[str, str]]) -> Function:
    parents = {}
    for c in _walk(fn):
        for child in c.get_children():
            parents[child.hash] = c
    arrays = []
    for c in _walk(fn):
        if c.kind in (CursorKind.PARM_DECL, CursorKind.VAR_DECL):
            t = c.type.get_canonical()
            if t.kind in ARRAY_KINDS:
                dims, elem = shape_of(c.type)
                where = "param" if c.kind == CursorKind.PARM_DECL else "local"
                arrays.append(f"{c.spelling}{dims} {elem.spelling} ({elem_bits(elem)} b, {where})")
            elif t.kind == TypeKind.POINTER and c.kind == CursorKind.PARM_DECL:
                arrays.append(f"{c.spelling} *{t.get_pointee().spelling} (pointer)")
    loops, cache = [], {}
    loop_cursors = [c for c in _walk(fn) if c.kind in LOOP_KINDS]
    body_of = {}
    for lc in loop_cursors:
        body = [ch for ch in lc.get_children() if ch.kind == CursorKind.COMPOUND_STMT]
        span = (body[-1] if body else lc).extent
        body_of[lc.hash] = (str(Path(span.start.file.name).resolve()) if span.start.file else "",
                            span.start.offset, span.end.offset)
    for lc in loop_cursors:
        depth, p = 0, parents.get(lc.hash)
        while p is not None:
            depth += p.kind in LOOP_KINDS
            p = parents.get(p.hash)
        loop = Loop(lc.location.line, _label_of(lc, parents), lc.kind.name.replace("_STMT", "").lower(),
                    _bound_of(lc), depth=depth)
        file_, start, end = body_of[lc.hash]
        inner = [body_of[o.hash] for o in loop_cursors if o != lc and
                 body_of[o.hash][0] == file_ and start < body_of[o.hash][1] < end]
        for pr in pragmas:
            if pr.file == file_ and start < pr.offset < end and \
                    not any(s < pr.offset < e for _, s, e in inner):
                loop.pragmas.append(pr.text)
        for target, text in directives:
            if loop.label and target == f"{fn.spelling}/{loop.label}":
                loop.pragmas.append(f"[tcl] {text}")
        for c in _walk(lc):
            if c.kind != CursorKind.ARRAY_SUBSCRIPT_EXPR:
                continue
            if c.type.get_canonical().kind in ARRAY_KINDS:
                continue  # the inner half of a[i][j] (its parent is an implicit decay)
            enclosing = parents.get(c.hash)
            while enclosing is not None and enclosing.kind not in LOOP_KINDS:
                enclosing = parents.get(enclosing.hash)
            if enclosing is not None and enclosing.hash == lc.hash:
                loop.subscripts.append(_source_text(c, cache))
        loops.append(loop)
    fstart, fend = fn.extent.start.offset, fn.extent.end.offset
    ffile = str(Path(fn.extent.start.file.name).resolve()) if fn.extent.start.file else ""
    loop_spans = list(body_of.values())
    fn_pragmas = [p.text for p in pragmas if p.file == ffile and fstart < p.offset < fend and
                  not any(f == p.file and s < p.offset < e for f, s, e in loop_spans)]
    targs = [fn.get_template_argument_value(i) if fn.get_template_argument_kind(i).name == "INTEGRAL"
             else fn.get_template_argument_type(i).spelling
             for i in range(max(0, fn.get_num_template_arguments()))]
    return Function(fn.spelling, targs, arrays, loops, fn_pragmas)


def probe(kernel, root: Path) -> list[Function]:
    tu, errors = corpus.parse(kernel, root, detailed=True)
    own = corpus.own_files(kernel, root)
    top = corpus.find_top(tu, kernel.top, own)
    if top is None:
        return []
    pragmas = collect_pragmas(tu, kernel, root, own)
    directives = []
    if kernel.directives:
        for m in corpus.TCL_DIRECTIVE_RE.finditer((root / kernel.directives).read_text()):
            words = m.group(2).split()
            if words:
                directives.append((words[-1].strip('"'), f"{m.group(1)} {' '.join(words[:-1])}"))
    functions = [top, *corpus._called_definitions(top, own)]
    return [probe_function(fn, pragmas, directives) for fn in functions]


def report(kernel, functions: list[Function], out=sys.stdout) -> None:
    print(f"== {kernel.id} ({kernel.path}) top={kernel.top}", file=out)
    for fn in functions:
        targs = f"<{', '.join(map(str, fn.template_args))}>" if fn.template_args else ""
        print(f"  function {fn.name}{targs}  pragmas: {fn.pragmas}", file=out)
        for a in fn.arrays:
            print(f"    array {a}", file=out)
        for lp in fn.loops:
            label = f"{lp.label}: " if lp.label else ""
            print(f"    {'  ' * lp.depth}{lp.kind} {label}line {lp.line} bound={lp.bound} "
                  f"pragmas={lp.pragmas} subscripts={lp.subscripts}", file=out)


def pipelined_multi_access(functions: list[Function]) -> bool:
    """Some pipelined loop issues two or more subscripts in its own body or inner loops."""
    for fn in functions:
        for i, lp in enumerate(fn.loops):
            if not any(p.lower().startswith("pipeline") or "pipeline" in p.lower().split()[:2]
                       for p in lp.pragmas):
                continue
            inner = [o for o in fn.loops[i + 1:] if o.depth > lp.depth]
            if len(lp.subscripts) + sum(len(o.subscripts) for o in inner) >= 2:
                return True
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=corpus.CORPUS)
    parser.add_argument("--kernel", action="append", help="only this kernel id (repeatable)")
    parser.add_argument("--summary", action="store_true", help="counts only")
    args = parser.parse_args(argv)
    manifest = corpus.load_manifest()
    if not corpus.is_materialized(args.root, manifest):
        print("corpus files missing; run `python bench/corpus.py materialize`", file=sys.stderr)
        return 2
    kernels = [k for k in manifest.kernels if not args.kernel or k.id in args.kernel]
    multi = 0
    for k in kernels:
        functions = probe(k, args.root)
        multi += pipelined_multi_access(functions)
        if not args.summary:
            report(k, functions)
    print(f"\n{len(kernels)} kernels; {multi} have a pipelined loop (pragma or Tcl directive) "
          f"issuing two or more array subscripts per iteration")
    return 0


if __name__ == "__main__":
    sys.exit(main())
