"""Explicit bank arrays: a local array ``T A[D0][D1]`` stored as ``T A_bank[N][depth]``
(``T A_bank[C][N][depth]`` with C copies), as edits of the kernel's text.

Used for flat schemes and for replicated arrays, which ``array_partition`` cannot
express.  Every full reference ``A[e0][e1]`` becomes ``A_bank[c][bank][offset]`` with
``bank = bank_expr(x := e)`` and ``offset = offset_expr(x := e)`` (:mod:`.ranges`
simplifies them when the subscripts are affine in loop iterators).  With copies a read
uses its copy (``Banking.copy_expr``: a constant, or an expression of the unrolled
iterators around it, such as ``(i % 8u)``, a constant in each unrolled lane) and a
write stores the same value into every copy:

    A[e] = v     ->  A_bank[0][b][o] = A_bank[1][b][o] = v
    A[e] op= v   ->  A_bank[0][b][o] = A_bank[1][b][o] = A_bank[c][b][o] op (v)
    ++A[e]       ->  A_bank[0][b][o] = A_bank[1][b][o] = A_bank[c][b][o] + 1

so the right side is evaluated once (a chained assignment stores one converted value);
the whole is parenthesized where its value is used, ``v`` unless it is a primary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import prod

from .. import expr as E
from ..errors import Coord, KernelError
from ..frontend import cnodes as N
from ..frontend.accesses import MEMBER, updated_element
from ..frontend.routed import chain_root
from ..frontend.scalars import side_effect
from ..ir import Array
from ..scheme import Banking, index_var
from ..sourcetext import KEEP_BYTES
from . import ranges
from .textedit import MAX_LINE, Edit, coord_at

INCREMENTS = {"++": "+", "p++": "+", "--": "-", "p--": "-"}
# What changes state in a subscript's text that clang's tree does not have
# (C-simulation code): a step or an assignment (a call, often a macro's or a
# member's that reads, is taken to read).
_SIMULATED_EFFECT = re.compile(r"\+\+|--|(?<![=!<>])=(?!=)")
# Right sides that need no parentheses after an operator.
PRIMARY = (N.Id, N.Constant, N.ArrayRef, N.FuncCall)
_PLACEHOLDER = "@"
OPEN, CLOSE = b"([{", b")]}"
INIT_INDENT = "        "  # continuation lines of a re-laid initializer


@dataclass(frozen=True, slots=True)
class Explicit:
    """One array stored as explicit banks named ``bank_name``."""

    array: Array
    banking: Banking
    bank_name: str

    @property
    def dims(self) -> tuple[int, ...]:
        scheme = self.banking.scheme
        lead = (self.banking.copies,) if self.banking.copies > 1 else ()
        return lead + (scheme.banks, scheme.bank_depth)

    def declaration_text(self) -> str:
        return self.bank_name + "".join(f"[{n}]" for n in self.dims)


@dataclass(frozen=True, slots=True)
class _Address:
    """A rewritten reference: its array, bank and offset C text, and the C text of
    the copy its reads use."""

    explicit: Explicit
    bank: str
    offset: str
    read_copy: str

    def element(self, copy_index: int | str) -> str:
        lead = [str(copy_index)] if self.explicit.banking.copies > 1 else []
        return self.explicit.bank_name + "".join(f"[{t}]" for t in lead + [self.bank,
                                                                              self.offset])

    def stores(self, member: str = "") -> str:
        """``A_bank[0][b][o].m = A_bank[1][b][o].m = ...`` up to the last copy, for
        the ``member`` text (``.m``, or none for the whole element)."""
        return " = ".join(self.element(c) + member
                          for c in range(self.explicit.banking.copies))


class ExplicitRewriter:
    """The edits that store each explicit array in its banks."""

    def __init__(self, text: str, func: N.FuncDef, explicit: dict[str, Explicit],
                 contexts: dict[int, ranges.RefContext], where: Coord,
                 lane_refs: dict[int, tuple[str | None, str | None]] | None = None,
                 unsynthesized: tuple[tuple[int, int], ...] = ()):
        self._lane_refs = lane_refs or {}
        self._unsynthesized = unsynthesized
        self._data = text.encode(errors=KEEP_BYTES)
        self._func = func
        self._explicit = explicit
        self._contexts = contexts
        self._where = where

    def edits(self) -> list[Edit]:
        """Every reference to, and the declaration of, each explicit array; a reference
        in ``lane_refs`` (by ref_id: its read and write registers) becomes the read
        register, and as the target of a store the write register:

            A[e] = v  ->  w = v;   A[e] op= v  ->  w = r op (v);   ++A[e]  ->  w = r + 1
            A[e][k] = v, A[e].set_bit(k, v), ...  ->  (w = r, w[k] = v), (w = r, w.set_bit(k, v))
        """
        if not self._explicit:
            return []
        body = self._func.body
        refs = N.outer_array_refs(body)
        ref_ids = {id(ref): rid for rid, ref in enumerate(refs)}
        addresses: dict[int, _Address] = {}
        lanes = {id(ref): self._lane_refs[ref_ids[id(ref)]] for ref in refs
                 if ref_ids[id(ref)] in self._lane_refs}
        edits, stored = self._lane_writes(body, lanes)
        for ref in refs:
            name = written_name(ref)
            if id(ref) in lanes:
                if id(ref) not in stored:
                    read, write = lanes[id(ref)]
                    edits.append(Edit(ref.start, ref.end, read or write))
            elif name in self._explicit:
                addresses[id(ref)] = self._address(ref, ref_ids[id(ref)], self._explicit[name])
        writes, covered = self._writes(body, addresses)
        edits += writes
        for ref in refs:
            if id(ref) in addresses and id(ref) not in covered:
                address = addresses[id(ref)]
                edits.append(Edit(ref.start, ref.end, address.element(address.read_copy)))
        self._check_no_other_use(body)
        edits += self._unsynthesized_edits()
        for ex in self._explicit.values():
            edits.append(self._declaration(ex))
        return edits

    # ------------------------------------------------------------ references

    def _text(self, node: N.Node) -> str:
        return self._data[node.start:node.end].decode(errors=KEEP_BYTES)

    def _address(self, ref: N.ArrayRef, ref_id: int, ex: Explicit) -> _Address:
        shape = ex.array.shape
        if ref.in_macro or ref.start < 0:
            raise KernelError(ref.coord, f"a reference to banked array '{ex.array.name}' "
                                         "is spelled inside a macro, and its bank arrays "
                                         "need its subscripts: write the reference out of "
                                         "the macro (buf[i] for AT(i))")
        texts = self._subscript_texts(ref)
        if texts is None or len(texts) != len(shape):
            raise KernelError(ref.coord, f"array '{ex.array.name}' is banked: a reference "
                                         f"must subscript all {len(shape)} dimensions")
        return self._formulas(ex, texts, self._contexts.get(ref_id), ex.banking.copy_expr(ref_id),
                              ref.coord)

    def _subscript_texts(self, ref: N.ArrayRef) -> list[str] | None:
        """The subscripts of ``ref`` as written (None: not ``A[e0][e1]`` nor
        ``w.buf[e0][e1]``); a struct field's follow the text of its member chain."""
        base = N.ref_base_and_subscripts(ref)[0]
        if isinstance(base, N.Id):
            return subscript_texts(self._data[ref.start:ref.end])
        if not ref.start <= base.start < base.end <= ref.end:
            return None
        texts, end = bracket_groups(self._data, base.end)
        return texts if end == ref.end else None

    def _formulas(self, ex: Explicit, texts: list[str], context: ranges.RefContext | None,
                  copy: E.Expr, where: Coord) -> _Address:
        """The address of ``ex.array[texts...]`` read from ``copy``: bank and offset
        reduced over ``context`` (the loops around the reference), or over the array's
        bounds alone without one."""
        shape = ex.array.shape
        env = context.env() if context is not None else {}
        strides = dict(context.strides) if context is not None else {}
        index = context.index if context is not None else ()
        mapping: dict[str, E.Expr] = {}
        for d, n in enumerate(shape):
            e = index[d] if len(index) == len(shape) else None
            if e is not None and E.variables(e) <= env.keys():
                mapping[index_var(d)] = e
            elif re.fullmatch(r"0|[1-9][0-9]*", texts[d]):
                mapping[index_var(d)] = E.const(int(texts[d]))
            else:
                mapping[index_var(d)] = E.var(f"{_PLACEHOLDER}{d}")
                env[f"{_PLACEHOLDER}{d}"] = (0, n - 1)

        def name_of(v: str) -> str:
            return f"({texts[int(v[1:])]})" if v.startswith(_PLACEHOLDER) else v

        scheme = ex.banking.scheme
        bank = ranges.reduce(E.substitute(scheme.bank_expr(), mapping), env, strides)
        offset = ranges.reduce(E.substitute(scheme.offset_expr(), mapping), env, strides)
        if not E.variables(copy) <= env.keys():
            raise ValueError(f"read copy {E.pretty(copy)} of {ex.array.name} at {where}"
                             " uses a variable that is not a loop iterator around it")
        def c_text(e: E.Expr) -> str:
            return E.to_c(e, name_of, interval=lambda arg: ranges.interval(arg, env))

        return _Address(ex, c_text(bank), c_text(offset), c_text(copy))

    def _unsynthesized_edits(self) -> list[Edit]:
        """The references to explicit arrays in the top's text that conditional
        compilation leaves out (clang's tree does not have them), rewritten from the
        text: a read of ``A[e]`` reads copy 0 of its bank, ``A[e] = v`` stores into
        every copy.  In C-simulation code (under a condition on ``__SYNTHESIS__``)
        any other use is a located error; elsewhere (``#if 0``) it is left as is."""
        body = self._func.body
        edits = []
        for lo, hi in self._unsynthesized:
            if not body.start <= lo < body.end:
                continue
            simulated = b"__SYNTHESIS__" in _opening_condition(self._data, lo)
            for name, ex in self._explicit.items():
                for use in re.finditer(rb"(?<![\w.>])%s\b(?!\s*:(?!:))"
                                       % re.escape(name.encode()), self._data[lo:hi]):
                    edit = self._unsynthesized_edit(ex, lo + use.start(), simulated)
                    if edit is not None:
                        edits.append(edit)
        return edits

    def _unsynthesized_edit(self, ex: Explicit, start: int, strict: bool) -> Edit | None:
        """The edit of the use of ``ex`` at byte ``start``; None (or, ``strict``, a
        located error) when it is no full reference read or stored."""
        where = coord_at(self._data, start, self._where.file)
        name = ex.array.name
        texts, end = bracket_groups(self._data, start + len(name))
        after = self._data[end:end + 3].lstrip()
        before = self._data[max(0, start - 2):start]
        problem = None
        if not texts:
            problem = (f"array '{name}' is banked, and C-simulation code names it whole "
                       "here (a macro's argument, sizeof, a range-for): arraypart rewrites "
                       "only its elements there; write the subscripts out, or bank with "
                       "--schemes vitis")
        elif len(texts) != len(ex.array.shape):
            problem = (f"array '{name}' is banked: in C-simulation code too, a reference "
                       f"must subscript all {len(ex.array.shape)} dimensions")
        elif (after[:2] in (b"++", b"--") or before in (b"++", b"--")
              or re.match(rb"(<<|>>|[-+*/%&|^])=", after)):
            problem = (f"C-simulation code updates banked array '{name}' in place: "
                       f"assign it ('{name}[...] = ...') or read it only")
        elif any(_SIMULATED_EFFECT.search(t) for t in texts):
            problem = (f"a subscript of banked array '{name}' in C-simulation code may "
                       "have side effects, and its banked form evaluates a subscript more "
                       "than once: assign it to a variable first")
        if problem is not None:
            if strict:
                raise KernelError(where, problem)
            return None
        address = self._formulas(ex, texts, None, E.const(0), where)
        if after.startswith(b"=") and not after.startswith(b"=="):
            return Edit(start, end, address.stores())
        return Edit(start, end, address.element(address.read_copy))

    def _lane_writes(self, body: N.Node, lanes: dict[int, tuple[str | None, str | None]]):
        """Edits of the stores through lane registers, and the references they cover."""
        edits: list[Edit] = []
        covered: set[int] = set()
        discarded = _statement_positions(body)
        for node in N.walk(body):
            element = updated_element(node)
            if element is not None and id(element) in lanes:
                # the other bits are kept: the update works on a copy of the read word
                read, write = lanes[id(element)]
                covered.add(id(element))
                edits += [Edit(node.start, node.start, f"({write} = {read}, "),
                          Edit(element.start, element.end, write),
                          Edit(node.end, node.end, ")")]
            elif isinstance(node, N.Assignment) and id(node.lvalue) in lanes:
                read, write = lanes[id(node.lvalue)]
                covered.add(id(node.lvalue))
                if node.op == "=":
                    edits.append(Edit(node.lvalue.start, node.lvalue.end, write))
                    continue
                value = isinstance(node.rvalue, PRIMARY)
                head = f"{write} = {read} {node.op[:-1]} " + ("" if value else "(")
                opened, closed = ("", "") if id(node) in discarded else ("(", ")")
                edits.append(Edit(node.lvalue.start, node.rvalue.start, opened + head))
                edits.append(Edit(node.end, node.end, ("" if value else ")") + closed))
            elif (isinstance(node, N.UnaryOp) and id(node.expr) in lanes
                  and node.op in INCREMENTS):
                if node.op.startswith("p") and id(node) not in discarded:
                    raise KernelError(node.coord, "the value of a post-increment of a "
                                                  "bank-routed element is used")
                read, write = lanes[id(node.expr)]
                covered.add(id(node.expr))
                store = f"{write} = {read} {INCREMENTS[node.op]} 1"
                if id(node) not in discarded:
                    store = f"({store})"
                edits.append(Edit(node.start, node.end, store))
        return edits, covered

    def _writes(self, body: N.Node, addresses: dict[int, _Address]):
        """Edits of the stores into replicated arrays, and the references they cover.
        A store into a member of an element stores that member of every copy."""
        edits: list[Edit] = []
        covered: set[int] = set()
        discarded = _statement_positions(body)
        for node in N.walk(body):
            element = updated_element(node)
            if (element is not None and id(element) in addresses
                    and addresses[id(element)].explicit.banking.copies > 1):
                name = addresses[id(element)].explicit.array.name
                raise KernelError(node.coord, "a part of an element of replicated array "
                                              f"'{name}' is written: write the whole "
                                              f"element (word = {name}[...]; word[k] = v; "
                                              f"{name}[...] = word;)")
            if isinstance(node, N.Assignment):
                target, element = node.lvalue, _stored_element(node.lvalue)
            elif isinstance(node, N.UnaryOp):
                target, element = node.expr, _stored_element(node.expr)
            else:
                continue
            if element is None or id(element) not in addresses:
                continue
            address = addresses[id(element)]
            if isinstance(node, N.UnaryOp) and node.op == "&":
                raise KernelError(node.coord, "the address of an element of banked "
                                              f"array '{address.explicit.array.name}' "
                                              "is taken")
            if address.explicit.banking.copies == 1 or (isinstance(node, N.UnaryOp)
                                                         and node.op not in INCREMENTS):
                continue
            member = self._member_text(target, element, address)
            covered.add(id(element))
            stores = address.stores(member)
            current = address.element(address.read_copy) + member
            if isinstance(node, N.Assignment):
                if node.op == "=":
                    edits.append(Edit(target.start, target.end, stores))
                    continue
                value = isinstance(node.rvalue, PRIMARY)
                head = f"{stores} = {current} {node.op[:-1]} " + ("" if value else "(")
                opened, closed = ("", "") if id(node) in discarded else ("(", ")")
                edits.append(Edit(target.start, node.rvalue.start, opened + head))
                edits.append(Edit(node.end, node.end, ("" if value else ")") + closed))
                continue
            if node.op.startswith("p") and id(node) not in discarded:
                raise KernelError(node.coord, "the value of a post-increment of "
                                              "replicated array "
                                              f"'{address.explicit.array.name}' is used")
            store = f"{stores} = {current} {INCREMENTS[node.op]} 1"
            edits.append(Edit(node.start, node.end,
                              store if id(node) in discarded else f"({store})"))
        return edits, covered

    def _member_text(self, target: N.Node, element: N.ArrayRef, address: _Address) -> str:
        """The text of ``target`` after ``element`` (``.x``, ``.f[k]``), which each
        copy's store repeats: it must be spelled in the kernel and free of side effects."""
        if target is element:
            return ""
        if target.start < 0 or element.end < 0 or side_effect(target) is not None:
            raise KernelError(target.coord, "a member of replicated array "
                                            f"'{address.explicit.array.name}' is written "
                                            "through a macro or an expression with side "
                                            "effects, which every copy would repeat")
        return self._data[element.end:target.end].decode(errors=KEEP_BYTES)

    def _check_no_other_use(self, body: N.Node) -> None:
        for node in N.whole_uses(body):
            if node.name in self._explicit:
                raise KernelError(node.coord, f"banked array '{node.name}' is used other "
                                              "than through full subscripts (passed, "
                                              "sized or aliased)")

    # ------------------------------------------------------------ declarations

    def _declaration(self, ex: Explicit) -> Edit:
        member = ex.array.member
        name = ex.array.name if member is None else ex.array.name[:-len(member) - 1]
        decl = next((d for d in N.walk(self._func.body)
                     if isinstance(d, N.Decl) and d.name == name
                     and d.is_array == (member is None)), None)
        if decl is None or decl.name_at < 0 or decl.stmt_end < 0:
            raise KernelError(ex.array.coord,
                              f"no local declaration of banked array '{ex.array.name}'")
        if member is not None:
            return self._beside(decl, ex)
        text = ex.declaration_text()
        if decl.init is not None:
            text += " = " + self._relaid_init(decl, ex)
        if decl.shared:  # int a[64], b[64];: its own declarator, initializer included
            return Edit(decl.name_at, decl.end, text)
        end = decl.stmt_end
        if self._data[end - 1:end] == b";":
            end -= 1
        return Edit(decl.name_at, end, text)

    def _beside(self, decl: N.Decl, ex: Explicit) -> Edit:
        """The banks of a struct variable's field (:attr:`Array.member_routed`),
        declared after the variable's statement, as it is (``static`` too); the
        struct's own field stays unused."""
        line_start = self._data.rfind(b"\n", 0, decl.stmt_start) + 1
        indent = self._data[line_start:decl.stmt_start].decode(errors=KEEP_BYTES)
        static = "static " if decl.static else ""
        return Edit(decl.stmt_end, decl.stmt_end,
                    f"\n{indent if not indent.strip() else ''}{static}"
                    f"{ex.array.elem_type} {ex.declaration_text()};", False)

    def _relaid_init(self, decl: N.Decl, ex: Explicit) -> str:
        """The initializer in bank order: element x goes to [bank(x)][offset(x)] of
        every copy; padding words are 0."""
        if not isinstance(decl.init, N.InitList):
            raise KernelError(decl.coord,
                              f"banked array '{ex.array.name}' needs a brace initializer")
        shape = ex.array.shape
        elements, used = self._fill(decl.init.exprs, 0, shape)
        if used != len(decl.init.exprs):
            raise KernelError(decl.coord, f"too many initializers for '{ex.array.name}'")
        bank, offset = ex.banking.scheme.maps()
        scheme = ex.banking.scheme
        slots: list[list[str]] = [["0"] * scheme.bank_depth for _ in range(scheme.banks)]
        for flat, (b, o) in enumerate(zip(bank.ravel(), offset.ravel())):
            if elements[flat] is not None:
                slots[int(b)][int(o)] = elements[flat]
        rows = [_braced(row) for row in slots]
        body = _braced(rows, nested=True)
        if ex.banking.copies == 1:
            return body
        return _braced([body] * ex.banking.copies, nested=True)

    def _fill(self, items, start: int, shape: tuple[int, ...]):
        """C's initialization of an array of ``shape`` from ``items[start:]`` with brace
        elision: row-major element texts (None = zero) and the index of the next item."""
        out: list[str | None] = []
        pos = start
        sub_size = prod(shape[1:])
        for _ in range(shape[0]):
            if pos >= len(items):
                out.extend([None] * sub_size)
                continue
            item = items[pos]
            if len(shape) == 1:
                value = item.exprs[0] if isinstance(item, N.InitList) and item.exprs else item
                out.append(self._element_text(value))
                pos += 1
            elif isinstance(item, N.InitList):
                sub, used = self._fill(item.exprs, 0, shape[1:])
                if used != len(item.exprs):
                    raise KernelError(item.coord, "too many initializers")
                out.extend(sub)
                pos += 1
            else:
                sub, pos = self._fill(items, pos, shape[1:])
                out.extend(sub)
        return out, pos

    def _element_text(self, node: N.Node) -> str:
        if isinstance(node, N.Other) and node.what.startswith("designated"):
            raise KernelError(node.coord, "designated initializers of a banked array are "
                                          "not supported")
        if node.start < 0 or node.end <= node.start:
            raise KernelError(node.coord, "an initializer of a banked array is spelled "
                                          "inside a macro: write it out")
        return self._text(node)


def _braced(items: list[str], nested: bool = False) -> str:
    """``{a, b, ...}`` broken into lines of at most MAX_LINE - 8 characters."""
    sep = ",\n"
    one = "{" + ", ".join(items) + "}"
    if len(one) <= MAX_LINE - 8 and "\n" not in one:
        return one
    if nested:
        return "{" + (sep + INIT_INDENT).join(items) + "}"
    lines, line = [], ""
    for item in items:
        piece = item + ","
        if line and len(line) + 1 + len(piece) > MAX_LINE - 8:
            lines.append(line)
            line = piece
        else:
            line = f"{line} {piece}" if line else piece
    lines.append(line.rstrip(","))
    return "{" + ("\n" + INIT_INDENT).join(lines) + "}"


def written_name(ref: N.ArrayRef) -> str | None:
    """The name the text gives the array that ``ref`` subscripts: ``A`` of
    ``A[i][j]``, ``w.buf`` of ``w.buf[i][j]`` (a struct variable's field,
    :attr:`arraypart.ir.Array.member`); None for another base (``A[i].f[k]``)."""
    root, path = chain_root(N.ref_base_and_subscripts(ref)[0])
    if not isinstance(root, N.Id):
        return None
    return f"{root.name}.{path}" if path else root.name


def _stored_element(target: N.Node) -> N.ArrayRef | None:
    """The reference of the element a store through ``target`` changes: ``A[e]`` itself,
    or the element whose member (or member's element) it is: ``A[e].x``, ``A[e].f[k]``."""
    while True:
        if isinstance(target, N.Other) and target.what == MEMBER and target.parts:
            target = target.parts[0]
        elif isinstance(target, N.ArrayRef) and written_name(target) is None:
            target = target.name
        else:
            return target if isinstance(target, N.ArrayRef) else None


def _statement_positions(body: N.Node) -> set[int]:
    """Ids of the expressions whose value is discarded (statements, loop increments)."""
    found: set[int] = set()
    for n in N.walk(body):
        if isinstance(n, N.Compound):
            found.update(id(i) for i in n.items)
        elif isinstance(n, N.For):
            found.update(id(x) for x in (n.next, n.stmt) if x is not None)
        elif isinstance(n, N.If):
            found.update(id(x) for x in (n.iftrue, n.iffalse) if x is not None)
        elif isinstance(n, (N.Label, N.Case)):
            found.add(id(n.stmt))
    return found


_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b[^\n]*",
                          re.MULTILINE)


def _opening_condition(data: bytes, at: int) -> bytes:
    """The ``#if``/``#ifdef``/``#ifndef`` line of the conditional whose branch starts
    at byte ``at`` (a skipped range starts at its directive: for ``#else`` or ``#elif``,
    the ``#if`` it belongs to)."""
    depth = 0
    for line in reversed(list(_CONDITIONAL.finditer(data, 0, data.find(b"\n", at) + 1
                                                    or len(data)))):
        word = line.group(1)
        if word == b"endif":
            depth += 1
        elif word.startswith(b"if"):
            if depth == 0:
                return line.group(0)
            depth -= 1
    return b""


def bracket_groups(data: bytes, k: int) -> tuple[list[str], int]:
    """The contents of the bracket groups ``[e0][e1]...`` from byte ``k`` of ``data``
    (blanks between them skipped) and the byte after the last one."""
    texts, end = [], k
    while True:
        j = k
        while data[j:j + 1] in (b" ", b"\t", b"\n"):
            j += 1
        if data[j:j + 1] != b"[":
            return texts, end
        depth, close = 0, j
        while close < len(data):
            c = data[close:close + 1]
            if c in (b'"', b"'"):
                close = _skip_literal(data, close)
                continue
            if c in OPEN:
                depth += 1
            elif c in CLOSE:
                depth -= 1
                if depth == 0:
                    break
            close += 1
        if close >= len(data):
            return texts, end
        texts.append(" ".join(data[j + 1:close].decode(errors=KEEP_BYTES).split()))
        k = end = close + 1


def subscript_texts(ref: bytes) -> list[str] | None:
    """The subscripts of ``A[e0][e1]`` as written: the contents of the bracket groups
    that follow the array's name (None: not of that form)."""
    k = 0
    while k < len(ref) and (ref[k:k + 1].isalnum() or ref[k:k + 1] in b"_ \t\n"):
        k += 1
    texts, end = bracket_groups(ref, k)
    return texts if not ref[end:].strip() else None


def _skip_literal(data: bytes, k: int) -> int:
    quote = data[k:k + 1]
    j = k + 1
    while j < len(data) and data[j:j + 1] != quote:
        j += 2 if data[j:j + 1] == b"\\" else 1
    return j + 1
