"""The banked kernel: the user's source text with arraypart's banking edits.

Every edit is a byte range of the kernel's text (:mod:`.textedit`); everything else,
macros, comments and includes, stays as written:

- per_dim schemes become ``#pragma HLS array_partition`` lines (one per partitioned
  dimension) after the array's declaration, or at the top of the function body for an
  interface array, plus ``bind_storage`` for local arrays;
- flat schemes and replicated arrays become explicit bank arrays (:mod:`.layout`), and
  so do local per_dim arrays whose banks rotate in a pipelined loop;
- in such loops the array's references become bank-centric code (:mod:`.bankcentric`),
  so that every bank is reached through sites with a compile-time bank index: its
  prologue opens the loop body, its epilogue closes it; a pipelined, partially unrolled
  loop is rewritten as blocks of lanes;
- where the banks of an array whose text stays (pragma-only) rotate with a pipelined
  loop's iterator, the statements that reference it are emitted once per phase of the
  rotation (:mod:`.phases`);
- the user's own ``array_partition`` pragmas on these arrays (and ``bind_storage`` on
  the local ones) are dropped, replaced by ours; every other pragma stays;
- each array gets a one-line comment with its scheme;
- a ``-D`` value the file never defines is defined at the top.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Iterator

from ..banking.solution import ArraySolution, Solution
from ..bram import ram_style
from ..errors import KernelError
from ..frontend import cnodes as N
from ..frontend.pragmas import CONDITION, LIST_COMMA
from ..ir import Kernel
from ..scheme import DimPartition
from ..sourcetext import KEEP_BYTES
from . import bankcentric, phases
from .layout import Explicit, ExplicitRewriter
from .textedit import MAX_LINE, Edit, apply, statement_end

# The pragmas of a sub-function's array parameter that the front end applied to the
# arrays its calls pass: ours, at each such array's definition, replace them (an
# array_reshape there is written again at the definition, in the caller's dimensions:
# :func:`_moved_reshapes`).
MOVED_PARAMETER_PRAGMAS = ("array_partition", "array_reshape", "bind_storage")

# A pragma's directive, past the condition of a conditional one (replaced whether
# it holds or not: one that does not is off in Vitis too).
_PRAGMA_KIND = re.compile(rf"^\s*HLS\s+(?:{CONDITION})?(\w+)", re.IGNORECASE)
# ``variable=A`` or a list, ``variable=din, dout`` (one pragma on each array to Vitis)
_PRAGMA_VARIABLE = re.compile(rb"(\bvariable\s*=\s*)([\w.]+(?:\s*,\s*[\w.]+)*)", re.IGNORECASE)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_BANK_SUFFIX = "_bank"
_COMMENT = "// "
# Scheme comments wrap at this width so that, indented, no line passes 100 characters.
COMMENT_WIDTH = 84
_INTEGER_KINDS = N.INTEGER_TYPE_KINDS


def banked_source(kernel: Kernel, solution: Solution) -> str:
    """The kernel's text with the banking applied."""
    source = kernel.source
    text, func = source.text, source.func
    data = text.encode(errors=KEEP_BYTES)
    taken = set(_IDENTIFIER.findall(text))
    for_nodes = _for_nodes(func)
    decls = _local_array_decls(source, solution)
    plan = _plan(kernel, solution, taken, for_nodes, decls)
    groups, contexts = plan.groups, plan.contexts
    rotating = {g.array.name for g in groups}
    explicit = {s.array.name: _explicit(s, taken) for s in solution.arrays
                if _needs_explicit(s) or s.array.name in rotating}
    _check_named_once(source, explicit, decls)
    names = {id(g): _names(g, explicit[g.array.name], taken) for g in groups}
    lane_refs: dict[int, tuple[str | None, str | None]] = {}
    for g in groups:
        for site in g.reads + g.writes:
            read, write = lane_refs.get(site.access.ref_id, (None, None))
            register = bankcentric.reference(g, site, names[id(g)])
            lane_refs[site.access.ref_id] = ((register, write) if site.access.kind == "read"
                                             else (read, register))
    # the loop edits first: a brace opened before a body's one statement goes before
    # that statement's own edit at the same offset
    edits = _loop_edits(data, for_nodes, plan, names)
    edits += ExplicitRewriter(text, func, explicit, contexts, kernel.coord,
                              lane_refs, source.unsynthesized).edits()
    edits += phases.phase_edits(kernel, solution, contexts, taken, edits)
    pragmas = list(_array_pragmas(data, source, decls, kernel.by_name))
    verbatim = _verbatim(kernel, solution, pragmas)
    edits += _edit_pragmas(data, pragmas, solution, explicit, verbatim)
    moved = frozenset(p.node.coord for p in pragmas
                      if p.parameter and p.kind == "array_reshape")
    interface_lines = []
    for s in solution.arrays:
        ex = explicit.get(s.array.name)
        written = _written(s.array, decls.get(s.array.name))
        # a kept banking's text pragmas stay, ours would contradict or miss them; a
        # parameter's reshape, dropped there, still moves to the array
        lines = _lines(s, ex, written, s.array.name in verbatim, moved) if \
            s.array.kept_banking is None else [
                f"#pragma {p}" for p in _moved_reshapes(s, written, moved)]
        if not lines:
            continue
        if s.array.interface or (ex is None and s.array.name not in decls):
            interface_lines += lines  # interface and file-scope arrays: top of the body
        elif s.array.name not in decls:
            raise KernelError(s.array.coord, f"no local declaration of array "
                                             f"'{s.array.name}' in the top function")
        else:
            edits += _after_declaration(data, decls[s.array.name], lines)
    if interface_lines:
        edits.insert(0, _after_open_brace(data, func.body.start, interface_lines))
    if source.own_main is not None:
        edits.append(_weak_main(data, source.own_main))
    defines = "".join(f"#define {n} {v}\n" for n, v in source.extra_defines)
    if defines:
        edits.append(Edit(0, 0, defines, breakable=False))
    out = apply(text, edits, kernel.path)
    return out if out.endswith("\n") else out + "\n"


def _weak_main(data: bytes, start: int) -> Edit:
    """The file's own ``main`` made weak: the testbench brings the program's ``main``,
    which then wins at link time; alone (the user's own test flow) it stays the one."""
    line = data.rfind(b"\n", 0, start) + 1
    note = ("// arraypart: weak, so that the testbench's main links beside it\n"
            if not data[line:start].strip() else "")
    return Edit(start, start, f"{note}{data[line:start].decode(errors=KEEP_BYTES) if note else ''}"
                              "__attribute__((weak)) ", False)


def crossbars(kernel: Kernel, solution: Solution) -> dict[str, tuple[int, int]]:
    """Per array with bank-centric code: (lanes, banks) of its widest select network,
    lanes counting reads and writes of one pipeline iteration."""
    taken = set(_IDENTIFIER.findall(kernel.source.text))
    plan = _plan(kernel, solution, taken, _for_nodes(kernel.source.func),
                 _local_array_decls(kernel.source, solution))
    out: dict[str, tuple[int, int]] = {}
    for g in plan.groups:
        lanes = g.read_lanes + g.write_lanes
        if lanes > out.get(g.array.name, (0, 0))[0]:
            out[g.array.name] = (lanes, g.banking.scheme.banks)
    return out


def blocked_directives(kernel: Kernel, solution: Solution) -> frozenset:
    """The coordinates of the ``--directives`` unroll commands on loops written as
    blocks: the lane loop's own ``#pragma HLS unroll`` replaces them, and kept they
    would unroll the block loop too."""
    for_nodes = _for_nodes(kernel.source.func)
    plan = _plan(kernel, solution, set(_IDENTIFIER.findall(kernel.source.text)),
                 for_nodes, _local_array_decls(kernel.source, solution))
    return frozenset(item.line.coord for u in plan.unrolled
                     for item in _unroll_pragmas(for_nodes[u.loop.coord])
                     if item.line.directive)


def _unroll_pragmas(node: N.For) -> list[N.Pragma]:
    return [item for item in _leading_pragmas(node)
            if _directive(item.line.text) == "unroll"]


def _directive(text: str) -> str | None:
    """The directive of a pragma line's text (``pipeline``), lower-cased."""
    found = _PRAGMA_KIND.match(text)
    return None if found is None else found.group(2).lower()


def _names(group: bankcentric.Group, ex: Explicit, taken: set[str]) -> bankcentric.Names:
    """Register names ``<array>_rb`` etc., suffixed until none is a user's name."""
    suffixes = ("ra", "rb", "ro", "rp", "rf", "rv", "q", "wa", "wb", "wo", "wp", "wv")
    stem = _c_stem(group.array)
    prefix, n = stem, 1
    while any(f"{prefix}_{x}" in taken for x in suffixes):
        prefix = f"{stem}{n}"
        n += 1
    taken.update(f"{prefix}_{x}" for x in suffixes)  # the front end wants unique arrays
    counters = []
    for base in ("k", "l", "m", "s"):
        name, n = base, 1
        while name in taken:
            name, n = f"{base}{n}", n + 1
        counters.append(name)
    return bankcentric.Names(ex.bank_name, prefix, tuple(counters))


def _for_nodes(func: N.FuncDef) -> dict:
    """Every ``for`` statement of the function, by its coordinate (the IR loop's)."""
    return {node.coord: node for node in N.walk(func.body) if isinstance(node, N.For)}


def _plan(kernel: Kernel, solution: Solution, taken: set[str], for_nodes: dict,
          decls: dict) -> bankcentric.Plan:
    """The bank-centric plan: loops that declare their iterator may become blocks; a
    local array may become bank arrays unless something names it whole (``memcpy``:
    it keeps its declaration, its partition pragmas carry the banking)."""
    func = kernel.source.func
    declared = {coord for coord, node in for_nodes.items() if _declares_iterator(node)}
    whole = {n.name for n in N.whole_uses(func.body)}
    return bankcentric.plan(kernel, solution, taken, declared, set(decls) - whole,
                            _header_refs(func))


def _header_refs(func: N.FuncDef) -> frozenset[int]:
    """The ref_ids (:class:`arraypart.ir.Access`) of the array references in loop
    conditions and increments: bank-centric registers are declared in the loop body,
    out of the header's scope."""
    ids = {id(ref): k for k, ref in enumerate(N.outer_array_refs(func.body))}
    return frozenset(ids[id(ref)] for node in N.walk(func.body) if isinstance(node, N.For)
                     for part in (node.cond, node.next) if part is not None
                     for ref in N.outer_array_refs(part) if id(ref) in ids)


def _declares_iterator(node: N.For) -> bool:
    """``for (T v = ...; ...)`` with T an integer type."""
    init = node.init
    return (isinstance(init, N.DeclList) and len(init.decls) == 1
            and init.decls[0].ctype is not None
            and init.decls[0].ctype.canonical_kind in _INTEGER_KINDS)


def _loop_edits(data: bytes, for_nodes: dict, plan, names) -> list[Edit]:
    """The bank-centric rewriting of loops: blocks of lanes for a pipelined, partially
    unrolled loop (``bankcentric.Unrolled``: the header walks the blocks, an inner loop
    runs each lane with the user's iterator redeclared as a constant), and each group's
    prologue after the leading pragmas of its loop's body and its epilogue at the end."""
    opening: dict[int, list[str]] = {}
    closing: dict[int, list[str]] = {}
    nodes: dict[int, N.For] = {}
    edits: list[Edit] = []
    for g in plan.groups:
        node = for_nodes.get(g.loop.coord)
        if node is None:
            raise KernelError(g.loop.coord, f"loop {g.loop.name} not found for rewriting")
        nodes[id(node)] = node
        opening.setdefault(id(node), []).extend(
            bankcentric.prologue(g, names[id(g)], plan.contexts))
        closing.setdefault(id(node), [])
    for unrolled in plan.unrolled:
        node = for_nodes[unrolled.loop.coord]
        nodes[id(node)] = node
        edits += _write_blocks(data, node, unrolled, opening.setdefault(id(node), []),
                               closing.setdefault(id(node), []))
    for g in plan.groups:
        closing[id(for_nodes[g.loop.coord])].extend(bankcentric.epilogue(g, names[id(g)]))
    for key, node in nodes.items():
        edits += _wrap_body(data, node, opening.get(key, []), closing.get(key, []))
    return edits


def _write_blocks(data: bytes, node: N.For, unrolled, opening: list[str],
                  closing: list[str]) -> list[Edit]:
    """The header edit of a loop written as blocks; the inner lane loop's lines go to
    the end of ``opening`` and the start of ``closing``."""
    loop = unrolled.loop
    decl = node.init.decls[0]
    type_name = _type_text(data, decl)
    block, lane, factor = unrolled.block_var, unrolled.lane_var, unrolled.factor
    start, step = loop.init[0].value, loop.step
    position = f"{factor}*{block} + {lane}"
    value = position if step == 1 else f"{step}*({position})"
    value = value if start == 0 else f"{start} + {value}"
    lo, hi = node.header
    if lo < 0:
        raise KernelError(node.coord, f"loop {loop.name}: its header is not written in "
                                      "the kernel file")
    _pragmas_lead(node, loop.name)
    edits = [Edit(lo, hi, f"{type_name} {block} = 0; {block} < {unrolled.blocks}; "
                          f"{block}++", breakable=False)]
    for item in _unroll_pragmas(node):
        if not item.line.directive:  # a directive: blocked_directives drops it
            a, b = _line_span(data, item.start, item.end)
            edits.append(Edit(a, b, ""))
    opening += [f"for ({type_name} {lane} = 0; {lane} < {factor}; {lane}++) {{",
                "#pragma HLS unroll", f"const {type_name} {loop.var} = {value};"]
    closing.insert(0, "}")
    if unrolled.remainder:  # the last block is partial: its extra lanes do nothing
        compare = "<=" if step > 0 else ">="
        opening.append(f"if ({loop.var} {compare} {loop.bound[0].value}) {{")
        closing.insert(0, "}")
    return edits


def _type_text(data: bytes, decl: N.Decl) -> str:
    """The declared type of a for loop's iterator as written (``int``, ``unsigned``)."""
    if decl.start >= 0 and decl.name_at > decl.start:
        return " ".join(data[decl.start:decl.name_at].decode(errors=KEEP_BYTES).split())
    return decl.ctype.spelling


def _pragmas_lead(node: N.For, name: str) -> None:
    """A loop written as blocks gets its lane loop after the pragmas that open its
    body; one written after a statement would stay in the block loop (a second
    unroll, a pipeline of the lanes): a located error."""
    items = N.body_items(node.stmt) if isinstance(node.stmt, N.Compound) else ()
    late = [item for item in items[len(_leading_pragmas(node)):]
            if isinstance(item, N.Pragma) and _directive(item.line.text) is not None]
    if late:
        raise KernelError(late[0].coord, (
            f"loop {name}: arraypart writes it as blocks of lanes, and this pragma follows "
            "a statement of its body; write the loop's pragmas before its statements"))


def _leading_pragmas(node: N.For) -> list[N.Pragma]:
    items = N.body_items(node.stmt) if isinstance(node.stmt, N.Compound) else ()
    lead = []
    for item in items:
        if not isinstance(item, N.Pragma):
            break
        lead.append(item)
    return lead


def _wrap_body(data: bytes, node: N.For, head: list[str], tail: list[str]) -> list[Edit]:
    """Insert ``head`` after the leading pragmas of the loop's body and ``tail`` at its
    end (a body without braces gets them; a block that is the body's only statement
    takes them: :func:`.cnodes.loop_body`)."""
    body = N.loop_body(node.stmt)
    if not head and not tail:
        return []
    if isinstance(body, N.Compound) and not body.braced and body.start >= 0:
        return _brace_body(data, body, head, tail)
    if isinstance(body, N.Compound) and body.start >= 0 and body.end > body.start:
        lead = _leading_pragmas(node)
        if lead:
            at = _line_span(data, lead[-1].start, lead[-1].end)[1]
        else:
            at = _line_span(data, body.start, body.start)[1]
            if data[body.start + 1:at].strip():
                at = body.start + 1
        close = body.end - 1  # the '}'
        line_start = data.rfind(b"\n", 0, close) + 1
        if data[line_start:close].strip():
            line_start = close
        indent = _body_indent(data, body)
        return [Edit(at, at, _block_text(head, at, data, indent)),
                Edit(line_start, line_start, _block_text(tail, line_start, data, indent))]
    if body is None or body.start < 0:
        raise KernelError(node.coord, "a loop rewritten bank-centric needs its body "
                                      "written in the kernel file")
    end = statement_end(data, body.end)
    lead = data[data.rfind(b"\n", 0, body.start) + 1:body.start]
    outer = lead.decode(errors=KEEP_BYTES) if not lead.strip() else ""
    inner = outer + "  "
    return [Edit(body.start, body.start, "{\n" + _block_text(head, 0, data, inner) + inner,
                 False),
            Edit(end, end, "\n" + _block_text(tail, 0, data, inner) + outer + "}", False)]


def _brace_body(data: bytes, body: N.Compound, head: list[str],
                tail: list[str]) -> list[Edit]:
    """Braces around a loop body written without them (its leading pragmas, then one
    statement), ``head`` after the pragmas and ``tail`` after the statement (the
    ``--directives`` commands among the pragmas have no text)."""
    first = data.rfind(b"\n", 0, body.start) + 1
    statement = body.items[-1]
    line_start = data.rfind(b"\n", 0, statement.start) + 1
    indent = data[line_start:statement.start].decode(errors=KEEP_BYTES)
    indent = indent if not indent.strip() else ""
    written = [n for n in body.items[:-1] if not n.line.directive]
    at = _line_span(data, written[-1].start, written[-1].end)[1] if written else first
    end = statement_end(data, body.end)
    return [Edit(first, first, f"{indent[:-2]}{{\n", False),
            Edit(at, at, _block_text(head, at, data, indent), False),
            Edit(end, end, _block_text(tail, end, data, indent)
                 + f"{indent[:-2]}}}", False)]


def _body_indent(data: bytes, body: N.Compound) -> str:
    """The indentation of the first statement of a block (four blanks past the '{')."""
    first = next((n for n in body.items if not isinstance(n, N.Pragma) and n.start >= 0),
                 None)
    if first is not None:
        line_start = data.rfind(b"\n", 0, first.start) + 1
        lead = data[line_start:first.start]
        if not lead.strip():
            return lead.decode(errors=KEEP_BYTES)
    line_start = data.rfind(b"\n", 0, body.start) + 1
    lead = data[line_start:body.start]
    return (lead[:len(lead) - len(lead.lstrip())]).decode(errors=KEEP_BYTES) + "    "


def _block_text(lines: list[str], at: int, data: bytes, indent: str = "") -> str:
    """``lines`` as text inserted at ``at`` (a line start, or mid-line), indented."""
    out = []
    for line in lines:
        if line.startswith("#"):
            out.append(line)
        elif line.startswith(_COMMENT) and len(indent) + len(line) > MAX_LINE:
            wrapped = textwrap.wrap(line[len(_COMMENT):], MAX_LINE - len(indent) - 6,
                                    subsequent_indent="  ", break_on_hyphens=False)
            out += [indent + _COMMENT + w for w in wrapped]
        else:
            out.append(indent + line)
    text = "".join(f"{l}\n" for l in out)
    if at > 0 and data[at - 1:at] != b"\n":
        text = "\n" + text
    return text


def _needs_explicit(s: ArraySolution) -> bool:
    return s.banking.scheme.kind == "flat" or (s.banking.copies > 1
                                                and not s.multi_port_rom)


def _explicit(s: ArraySolution, taken: set[str]) -> Explicit:
    if s.array.interface:
        raise KernelError(s.array.coord,
                          f"interface array '{s.array.name}' cannot take a flat or "
                          f"replicated banking: the top function's signature must stay")
    name = _c_stem(s.array) + _BANK_SUFFIX
    n = 1
    while name in taken:
        name = f"{_c_stem(s.array)}{_BANK_SUFFIX}{n}"
        n += 1
    taken.add(name)
    return Explicit(s.array, s.banking, name)


def _c_stem(array) -> str:
    """The start of the C names arraypart gives ``array``'s banks and registers: its
    name, a struct field's path joined by ``_`` (``w_buf`` of ``w.buf``)."""
    return array.name.replace(".", "_")


def _line_span(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The whole lines holding ``start..end``, with the final newline."""
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", end)
    return line_start, len(data) if line_end < 0 else line_end + 1


def _check_named_once(source, explicit: dict[str, Explicit], decls: dict[str, N.Decl]) -> None:
    """A located error when an explicit array's name also declares another array of its
    function (in another block): its references are rewritten by name."""
    for func in _functions(source):
        mine = {name: d for name, d in decls.items()
                if func.body.start <= d.start < func.body.end}
        for name in sorted(set(explicit) & set(mine)):
            decl = mine[name]
            # (the fields of one struct variable share its declaration)
            other = next((d for d in mine.values() if d.name == decl.name and d is not decl),
                         None)
            if other is not None:
                raise KernelError(decl.coord, (
                    f"array '{decl.name}' is declared here and at {other.coord}: its "
                    f"banking ({explicit[name].banking.describe()}) is stored as "
                    "explicit banks, whose references arraypart rewrites by name; give "
                    "each array a name of its own"))


def _functions(source) -> tuple[N.FuncDef, ...]:
    """The top function and the sub-functions it calls."""
    return (source.func,) + tuple(source.callees)


@dataclass(frozen=True)
class _ArrayPragma:
    """A pragma of the kernel file's text that names an array with ``variable=``:
    ``written`` as the text spells it (at byte ``at``), ``name`` the IR array it
    names; ``parameter``: one of :data:`MOVED_PARAMETER_PRAGMAS` on a sub-function's
    array parameter."""

    node: N.Pragma
    kind: str
    written: str
    at: int
    name: str
    parameter: bool
    listed: tuple[str, ...] = ()  # every name of a ``variable=din,dout`` list
    list_end: int = 0  # the byte after that list


def _array_pragmas(data: bytes, source, decls: dict[str, N.Decl],
                   arrays) -> Iterator[_ArrayPragma]:
    """The pragmas of the top's and the sub-functions' bodies that name an array (a
    sub-function's local may have another name in the IR); not the ``--directives``
    commands, which :func:`.project.kept_directives` decides."""
    for func in _functions(source):
        own = {_written(arrays[name], d): name for name, d in decls.items()
               if func.body.start <= d.start < func.body.end}
        parameters = frozenset() if func is source.func else _array_parameters(func)
        for node in N.walk(func.body):
            if not isinstance(node, N.Pragma) or node.line.directive:
                continue
            kind_name = _directive(node.line.text)
            var = _PRAGMA_VARIABLE.search(data[node.start:node.end])
            if kind_name is None or var is None:
                continue
            listed = tuple(LIST_COMMA.split(var.group(2).decode(errors=KEEP_BYTES)))
            for written in listed:
                yield _ArrayPragma(node, kind_name, written, node.start + var.start(2),
                                   own.get(written, written),
                                   kind_name in MOVED_PARAMETER_PRAGMAS
                                   and written in parameters,
                                   listed, node.start + var.end(2))


def verbatim_arrays(kernel: Kernel, solution: Solution) -> frozenset[str]:
    """The arrays whose array_partition pragmas (or ``--directives`` commands) the
    output keeps as the user wrote them (:func:`_verbatim`)."""
    source = kernel.source
    decls = _local_array_decls(source, solution)
    pragmas = list(_array_pragmas(source.text.encode(errors=KEEP_BYTES), source, decls,
                                  kernel.by_name))
    return _verbatim(kernel, solution, pragmas)


def _verbatim(kernel: Kernel, solution: Solution,
              pragmas: list[_ArrayPragma]) -> frozenset[str]:
    """The arrays whose array_partition pragmas stay as the user wrote them: the
    banking is what they say (:attr:`ArraySolution.partitions_as_written`) and each is a
    pragma of the kernel file on the array itself or a ``--directives`` command on an
    array of the top.  One on a sub-function's parameter moves to the array's
    definition, so then ours say the same banking for all of them."""
    own: dict[str, set] = {}
    for p in pragmas:
        if p.kind == "array_partition" and not p.parameter:
            own.setdefault(p.name, set()).add(p.node.coord)
    for d in kernel.source.directives:
        if d.kind == "array_partition" and d.function == kernel.top:
            own.setdefault(d.variable, set()).add(d.coord)
    return frozenset(s.array.name for s in solution.arrays
                     if s.partitions_as_written and not _needs_explicit(s)
                     and {q.coord for q in s.array.partitions} <= own.get(s.array.name, set()))


def _edit_pragmas(data: bytes, pragmas: list[_ArrayPragma], solution: Solution,
                  explicit: dict[str, Explicit], verbatim: frozenset[str]) -> list[Edit]:
    """Drop the user's pragmas that ours replace (array_partition, but on the
    ``verbatim`` arrays, and bind_storage on a local); point the rest of the pragmas on
    an explicit array at its banks.  A sub-function's array parameter stands for the
    arrays its calls pass, which the front end gave its partition pragmas: each of them
    gets ours, so those are dropped too."""
    handled = {s.array.name: s.array for s in solution.arrays}
    kept: dict[int, list[str | None]] = {}
    edits = []
    for p in pragmas:
        if p.parameter or (p.name in handled and (
                (p.kind == "array_partition" and not kept_partition(p.node.coord, p.name,
                                                           handled, verbatim)) or (
                p.kind == "bind_storage" and not handled[p.name].interface))):
            name = None
        elif p.name in explicit:
            name = explicit[p.name].bank_name
        else:
            name = p.written
        if len(p.listed) > 1:
            kept.setdefault(p.node.start, []).append(name)
        elif name is None:
            edits.append(_drop(data, p.node))
        elif name != p.written:
            edits.append(Edit(p.at, p.at + len(p.written), name))
    lists = {p.node.start: p for p in pragmas if len(p.listed) > 1}
    for start, names in kept.items():
        if names != list(lists[start].listed):
            edits.append(_split_list(data, lists[start], names))
    return edits


def kept_partition(coord, name: str, arrays: dict, verbatim: frozenset[str]) -> bool:
    """Whether the user's array_partition at ``coord`` on array ``name`` stays: the
    array's partitions stay ``verbatim`` and the front end kept this one (not one of a
    reshaped dimension, :meth:`.memories.MemoryLowering._set_partitioning`)."""
    return name in verbatim and coord in {q.coord for q in arrays[name].partitions}


def _split_list(data: bytes, p: _ArrayPragma, names: list[str | None]) -> Edit:
    """A ``variable=`` list pragma some of whose arrays lose it or are renamed: one
    pragma per array that keeps it, under its (new) name; none left: dropped."""
    names = [n for n in names if n is not None]
    if not names:
        return _drop(data, p.node)
    head = data[p.node.start:p.at].decode(errors=KEEP_BYTES)
    tail = data[p.list_end:p.node.end].decode(errors=KEEP_BYTES)
    lo = _line_span(data, p.node.start, p.node.end)[0]
    indent = "\n" + data[lo:p.node.start].decode(errors=KEEP_BYTES)
    return Edit(p.node.start, p.node.end,
                indent.join(f"{head}{n}{tail}" for n in names), False)


def _array_parameters(func: N.FuncDef) -> frozenset[str]:
    """The parameters of ``func`` that are arrays, pointers or references."""
    return frozenset(p.name for p in func.params if p.ctype is not None and (
        p.ctype.kind in N.ARRAY_TYPE_KINDS or p.ctype.canonical_kind in N.POINTER_TYPE_KINDS))


def _drop(data: bytes, node: N.Pragma) -> Edit:
    """Remove a pragma: its whole line, or only itself (a ``_Pragma`` in a line)."""
    lo, hi = _line_span(data, node.start, node.end)
    if data[lo:node.start].strip() or data[node.end:hi].strip():
        return Edit(node.start, node.end, "")
    return Edit(lo, hi, "")


def _lines(s: ArraySolution, ex: Explicit | None, written: str | None,
           verbatim: bool, moved: frozenset = frozenset()) -> list[str]:
    """The scheme comment (wrapped) and our pragma lines for one array, named
    ``written`` (as its declaration spells it) or by its IR name; none of ours for its
    partitions when the user's stay ``verbatim``; the array_reshapes of a sub-function's
    parameter (at the coordinates ``moved``) written again for the array."""
    comment = textwrap.wrap(_comment(s, ex, written), COMMENT_WIDTH, subsequent_indent="  ",
                            break_on_hyphens=False)
    ours = _moved_reshapes(s, written, moved) + _pragmas(s, ex, written, verbatim)
    return [_COMMENT + c for c in comment] + [f"#pragma {p}" for p in ours]


def _moved_reshapes(s: ArraySolution, written: str | None, moved: frozenset) -> list[str]:
    """An ``array_reshape`` pragma string for each reshape of ``s``'s array that the
    front end read from a sub-function's parameter (its coordinate in ``moved``), in
    the array's own dimensions (a row parameter's dim=d is the caller's d + rows:
    :meth:`.memories.MemoryLowering._apply_parameter_partition`); the parameter's own
    pragma is dropped, as Vitis would otherwise reshape the row's dimension d."""
    array = written or s.array.name
    return [f"HLS array_reshape variable={array} type={r.type}"
            + (f" factor={r.factor}" if r.factor else "") + f" dim={r.dim}"
            for r in s.array.reshapes if r.coord in moved]


def _after_open_brace(data: bytes, brace: int, lines: list[str]) -> Edit:
    """Insert ``lines`` just inside the function body's ``{``."""
    at = brace + 1
    line_end = data.find(b"\n", at)
    if line_end >= 0 and not data[at:line_end].strip():
        following = data[line_end + 1:data.find(b"\n", line_end + 1)]
        indent = following[:len(following) - len(following.lstrip())].decode(errors=KEEP_BYTES)
        text = "".join(f"{indent if l.startswith(_COMMENT) else ''}{l}\n" for l in lines)
        return Edit(line_end + 1, line_end + 1, text, False)
    return Edit(at, at, "\n" + "".join(f"{l}\n" for l in lines), False)


def _local_array_decls(source, solution: Solution) -> dict[str, N.Decl]:
    """Array (IR) name -> its declaration in the body of the top or of a sub-function
    (the front end's table: a sub-function's local may be renamed in the IR)."""
    return {s.array.name: source.local_decls[s.array.name] for s in solution.arrays
            if s.array.name in source.local_decls
            and source.local_decls[s.array.name].stmt_start >= 0}


def _written(array, decl: N.Decl | None) -> str | None:
    """The name the text gives ``array`` where ``decl`` declares it (``w.buf`` for an
    array field of the struct ``w``), None for an array declared elsewhere."""
    if decl is None:
        return None
    return decl.name if array.member is None else f"{decl.name}.{array.member}"


def _after_declaration(data: bytes, decl: N.Decl, lines: list[str]) -> list[Edit]:
    """The scheme comment before a local array's declaration, the pragmas after it."""
    comments = [l for l in lines if l.startswith(_COMMENT)]
    pragmas = [l for l in lines if not l.startswith(_COMMENT)]
    lo, hi = _line_span(data, decl.stmt_start, decl.stmt_end)
    edits = []
    if not data[lo:decl.stmt_start].strip():
        indent = data[lo:decl.stmt_start].decode(errors=KEEP_BYTES)
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



def _comment(s: ArraySolution, ex: Explicit | None, written: str | None) -> str:
    """``arraypart: <array>: <scheme>...``; an array its declaration spells otherwise
    (``written``) is named both ways: ``t (t_2 in the report)``."""
    name = s.array.name
    if written is not None and written != name:
        name = f"{written} ({name} in the report)"
    if s.array.register is not None:
        return f"arraypart: {name}: a register port ({s.array.register}), no memory"
    text = f"arraypart: {name}: {s.banking.scheme.describe()}"
    if s.multi_port_rom:
        text += (f"; a multi-port ROM (rom_np), as {s.banking.copies} copies of "
                 f"{s.ports.name}")
    elif s.banking.copies > 1:
        text += f"; {s.banking.copies} copies"
        text += "".join(f", lanes read {rule}" for rule in s.banking.lane_rules())
    if ex is not None:
        text += f"; stored as {ex.declaration_text()}"
        if s.array.member is not None:  # routed apart from its struct
            text += f" (the struct's own {written or s.array.name} unused)"
    return text


def _pragmas(s: ArraySolution, ex: Explicit | None, written: str | None,
             verbatim: bool) -> list[str]:
    """Our pragma strings (without ``#pragma``) for one array, named ``written`` or by
    its IR name; no array_partition where the user's stay ``verbatim``."""
    out = []
    array = written or s.array.name
    if s.array.implied_bundle:
        # depth counts the pointer's own elements: rows of ``int b[][16]``
        out.append(f"HLS INTERFACE m_axi port={array} bundle={s.array.bundle} "
                   f"depth={s.array.shape[0]}")
    if ex is not None:
        # every dimension but the words of a bank; a single bank needs no partition
        count = len(ex.dims) - 1 - (ex.banking.scheme.banks == 1)
        out += [f"HLS array_partition variable={ex.bank_name} type=complete dim={d}"
                for d in range(1, count + 1)]
    elif s.banking.scheme.kind in ("none", "per_dim") and s.array.fifo is None \
            and s.array.register is None and not verbatim:
        dims = (s.banking.scheme.dims if s.banking.scheme.kind == "per_dim"
                else [DimPartition("none", 1)] * len(s.array.shape))
        reshaped = s.array.reshaped_dims()  # the user's array_reshape stays for them
        for d, part in enumerate(dims, start=1):
            if d - 1 in reshaped:
                continue
            if part.type == "none" and any(p.off and p.dim in (0, d)
                                           for p in s.array.partitions):
                # the user's off=true: Vitis's automatic partitioning stays off
                out.append(f"HLS array_partition variable={array} type=complete "
                           f"dim={d} off=true")
            elif part.type == "complete":
                out.append(f"HLS array_partition variable={array} "
                           f"type=complete dim={d}")
            elif part.type != "none":
                out.append(f"HLS array_partition variable={array} "
                           f"type={part.type} factor={part.factor} dim={d}")
    if not (s.array.interface or s.array.stream  # a stream keeps its own storage
            or (s.array.reshapes and s.banking.scheme.registers)):  # one word: a register
        name = ex.bank_name if ex is not None else array
        impl = s.array.storage_impl or _lutram(s)
        storage = "rom_np" if s.multi_port_rom else s.ports.name
        out.append(f"HLS bind_storage variable={name} type={storage}"
                   + (f" impl={impl}" if impl else ""))
    return out


def _lutram(s: ArraySolution) -> str | None:
    """``lutram`` for RAM banks that the pass prices as LUT RAM
    (:func:`arraypart.bram.ram_style`), so that Vitis builds what was priced; None
    where Vitis may choose (block RAM, registers, a multi-port ROM, a reshaped word) or
    the user's bind_storage does."""
    if (s.array.storage is not None or s.multi_port_rom or s.array.reshapes
            or not s.ports.name.startswith("ram_")):
        return None
    style = ram_style(s.banking.scheme.bank_depth, s.array.elem_bits, s.ports.name)
    return "lutram" if style == "distributed" else None
