"""Store forwarding and dead stores within one pipeline iteration (DESIGN §2, the rule).

Before it schedules a pipelined loop, the HLS tool (LLVM's GVN and dead-store
elimination, on the body with its inner loops unrolled) keeps an element that the
iteration writes in a register.  In the program order of one iteration (lane 0's
body, then lane 1's, ...; a statement's reads before its writes, so ``x += e``
reads, then writes):

- a **read** of an element that the iteration already wrote takes no port (it is
  forwarded) when the writes of the array before it that *may alias* it
  (:mod:`.aliasing`), from the last one back to the last plain one, are all writes
  of that element: a write at another subscript in between (its own statement's
  included) blocks unless it never aliases the read (``a[i + 1] = v`` between
  ``a[i] = x`` and ``y = a[i]`` does not block, ``a[j] = v`` or ``a[idx[i]] = v``
  does); a *guarded* write of the element between (``a[i] = x; if (c) a[i] = 0;
  y = a[i]``) does not block either: whichever ran last, the value is in a
  register (``y`` is a ``phi`` of the two), unless a write that never aliases the
  read lies after it (:func:`_served`);
- a **write** that a later plain write of the same element, in a later statement,
  overwrites takes no port (a dead store) when every read of the array in between
  that may alias it is forwarded or *served* by it (a plain read of its element
  whose aliasing writes since, its own statement's included, are all of its
  element: wherever the write ran, the read takes its value from a register).  A
  read of ``a[i + 1]`` between two writes of ``a[i]`` keeps neither alive; so
  AutoSA's accumulator ``if (c2 == 0) C[i] = 0; C[i] = C[i] + p;`` makes one read
  (on the paths without the init, LLVM's load PRE) and one write, the init's store
  dead wherever it runs;
- a *guarded* write that follows a plain write of its element, in another
  statement, with no read between that may alias it and takes a port, and no write
  between that may alias it but is not of its element, takes no port (it is
  *merged*, :func:`_merged`): on every path the element's last value leaves in one
  store, of a ``phi`` (LLVM's SimplifyCFG makes ``a[i] = x; if (c) a[i] = 0;`` one
  store of a ``select``).  So ``v[j] = 0; for (k ..) { if (j - k < 0) break;
  v[j] += h[k] * r[j - k]; }``, its ``k`` unrolled, makes one write of ``v[j]``
  and no read, as without the ``break`` (probe 42 F1).

"Same element": one array (a whole element, never a struct member), and subscripts
with one affine form after the lane's unrolled iterators are substituted (so equal
in every iteration); an irregular subscript never is.  Only *plain* writes
(``lanes.Found.plain``: no ``if``, no condition, no operand of ``?:``, ``&&`` or
``||`` the data decides, so they run whenever their lane does) end the walk back
from a read or overwrite; a *guarded* access (:func:`named`: a regular
whole-element reference in an ``if``, affine or data-dependent, or in its
condition, or one a ``break``, ``continue`` or ``return`` may skip:
``ir.skippable_accesses``) may be a forwarded read, a write a read is forwarded from
(as above), an overwritten or a merged write.  All this only in a loop pipelined
without an unroll factor whose text the IR holds once, of an array that is not
``volatile`` and that no other name may reach there (:func:`forwarding_arrays`: a
local, a ``__restrict`` argument, a ``static`` array that only plain subscripts of
the top name (``ir.Array.unaliased``), or an argument or global that shares no
memory with the loop's other ones (:func:`sharing`: Vitis takes two arguments of
the top for independent channels); no call the tool may keep touches it).  Every
other access still counts, and still blocks: a write at another subscript that may
alias, on any path through the iteration's data-dependent ``if``s, ends forwarding.
When in doubt an access is counted.

Code generation keeps such an array's references as written in that loop: a write
followed by an access of the same element is what ``codegen.bankcentric`` never
routes (``_order_kept``).  A phase switch (:mod:`arraypart.codegen.phases`, for an
interface or global) puts its references in the cases of a ``switch``: the checker,
which reads the emitted code back for the II a compile reports, then counts them all,
applying the rule on its own (:mod:`arraypart.check.forwarding`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping

import clang.cindex as ci

from .. import expr as E
from .. import ir
from .aliasing import Writes, qualifies
from .lanes import Found


def forwarding_loop(loop: ir.Loop) -> bool:
    """Whether one iteration of the concurrent ``loop`` is one body the tool forwards
    in: pipelined with no unroll factor of its own.  A ``break``, ``continue`` or
    ``return`` in it makes the accesses it may skip guarded (``ir.skippable_accesses``:
    ``if (j - k < 0) break;`` in an unrolled ``k`` loop guards lane ``k``'s accesses
    and every later lane's, as an ``if`` around them would); each loop that one may
    leave early must skip (``ir.Loop.skips``) or hold a loop that may be left early:
    a ``return`` of an inlined function outside its loops marks no loop that skips."""
    return loop.pipeline_ii is not None and loop.unroll is None and all(
        lp.skips or any(inner.early_exit is not None for inner in ir.loops(lp.body))
        for lp in (loop, *ir.loops(loop.body)) if lp.early_exit is not None)


def forwarding_arrays(arrays: Mapping[str, ir.Array], loop: ir.Loop,
                      kernel: ir.Kernel) -> frozenset[str]:
    """The arrays that the concurrent ``loop`` accesses whose elements the tool
    forwards there, which nothing but their own references may touch: every access of
    the array in the loop is in the text of the loop's own call (``ir.Access.call``:
    a call between is opaque to the tool, so is a lane of a call in an unrolled loop),
    where no other name of that text may reach it (``ir.Loop.call_aliases``); and it
    is a local (of the top or of a function it calls), or an argument or global that C
    guarantees no other name reaches (``ir.Array.unaliased``); or an argument or
    global (which a pointer may reach: an interface, a ``static`` or file-scope array)
    that shares no memory with another such array the loop touches (:func:`sharing`),
    constant tables aside (no write may reach one), where no reference parameter of
    the top may name one of its elements (:func:`aliasing_reference`).  Each also
    :func:`_forwarded`."""
    calls: dict[str, set[int]] = {}
    for a in ir.accesses(loop.body):
        calls.setdefault(a.array, set()).add(a.call)
    reachable = [n for n in calls if _reachable(arrays[n])]
    params = kernel.source.func.params if kernel.source is not None else ()
    alone = not any(aliasing_reference(p) for p in params)
    return frozenset(n for n, mine in calls.items() if mine == {loop.call}
                     and n not in loop.call_aliases and _forwarded(arrays[n])
                     and (not _reachable(arrays[n]) or (alone and not any(
                         sharing(arrays[n], arrays[m]) for m in reachable if m != n))))


def sharing(array: ir.Array, other: ir.Array) -> bool:
    """Two arrays that another name may reach (:func:`_reachable`) may share memory,
    unless both are arguments of the top: Vitis HLS takes different top-level
    arguments for independent channels (UG1399, ``pragma HLS alias``; its
    "Multi-Access Pointers on the Interface" example reads ``*d_i`` once across a
    store to ``*d_o`` and drops the first of two stores to ``*d_o``), so an FIR's
    ``y[j] += h[k] * r[j + k]`` keeps ``y[j]`` in a register across the reads of
    ``h`` and ``r`` (probe 42 F1).  A ``static`` or file-scope array may be one a
    pointer argument points into."""
    return not (array.interface and other.interface)


def aliasing_reference(parameter) -> bool:
    """A parameter (``cnodes.Decl``) that is a reference to a scalar or an object, not
    to an array or an ``hls::stream``: ``k(a, a[3])`` binds ``int &s`` to an element of
    ``a``, so a write or read of ``s`` between two accesses of ``a`` may be one of
    its (probe 36b F1)."""
    t = parameter.ctype
    if t is None or t.canonical_kind not in (ci.TypeKind.LVALUEREFERENCE,
                                             ci.TypeKind.RVALUEREFERENCE):
        return False
    spelled = t.canonical_spelling
    return "hls::stream<" not in spelled and "[" not in spelled


def _reachable(array: ir.Array) -> bool:
    """Another name (a pointer argument, a global) may reach ``array``'s memory: an
    interface, or a ``static``, file-scope or header array that is not a constant
    table, unless C guarantees that none does (``ir.Array.unaliased``: a ``__restrict``
    argument, a ``static`` array that only plain subscripts of the top name)."""
    return not array.unaliased and (array.interface or (
        (array.static or array.file_scope or array.header) and not array.const))


def _forwarded(array: ir.Array) -> bool:
    """``array``'s references are all plain text (no header function's, none kept as
    written: a routine writing part of an element, a subscript that changes state),
    it is a memory the program addresses (no FIFO, no reshaped words, no stencil
    window; a local one not reached by a pointer of its own), not ``volatile``."""
    return not (array.volatile or array.fifo is not None or array.stencil is not None
                or array.reshapes or array.kept_banking is not None
                or array.kept_reference is not None
                or not (array.partitionable or array.interface))


def free_accesses(found: Iterable[Found], shape: tuple[int, ...]
                  ) -> frozenset[tuple[int, ...]]:
    """The ``order`` of each lane access of ``found`` that takes no port (module
    doc).  ``found``: the lane accesses of one array (of ``shape``) in one iteration
    of one :func:`forwarding_loop`, on every path through its data-dependent ``if``s
    (a path's group lacks the other paths' conditional accesses, which still
    block)."""
    iteration = sorted({f.order: f for f in found}.values(), key=lambda f: f.order)
    skipped = ir.skippable_accesses(iteration[0].frame.root) if iteration else ()
    iteration = [replace(f, plain=False) if f.access.ref_id in skipped else f
                 for f in iteration]
    writes = [f for f in iteration if f.access.kind == "write"]
    aliasing = Writes(writes, shape)
    statements: dict[tuple[int, ...], list[int]] = {}  # statement -> its writes' bits
    for n, w in enumerate(writes):
        statements.setdefault(statement(w.order), []).append(n)
    served = {f.order: _served(f, writes, aliasing, statements)
              for f in iteration if f.access.kind == "read"}
    forwarded = {order for order, (_, plain) in served.items() if plain}
    return frozenset(forwarded | _dead(iteration, writes, aliasing, served, statements))


def named(f: Found) -> bool:
    """A regular reference to a whole element (``lanes.plain_reference``), plain or
    *guarded* (in an ``if``, or on part of its frame's domain): the only accesses
    whose element :func:`element` names."""
    return f.access.regular and f.whole


def _served(read: Found, writes: list[Found], aliasing: Writes,
            statements: dict[tuple[int, ...], list[int]]) -> tuple[int, bool]:
    """The writes (as bits) that serve ``read``: wherever one of them ran, ``read``
    takes its value from a register, since the writes before it that may alias it,
    from that one on, and every write of its own statement that may alias it, are
    :func:`named` writes of its element; and whether one of them is plain (then
    ``read`` is forwarded wherever it runs).  A guarded write serves only when no write
    that never aliases ``read`` lies between either (``a[i + 1] = v`` after
    ``if (c) a[i] = 0``: the trace, which has no shape for a site that runs in some
    steps only, could not tell the two apart).  None (0) unless ``read`` is
    :func:`named`."""
    if not named(read):
        return 0, False
    may = aliasing.aliasing(read)
    own = [n for n in statements.get(statement(read.order), ()) if may >> n & 1]
    if not all(_of(writes[n], read) for n in own):
        return 0, False
    bits, apart = 0, False  # apart: a write that never aliases ``read`` lies between
    for n in reversed(range(aliasing.before(read.order).bit_length())):
        if not may >> n & 1:
            apart = True
        elif not _of(writes[n], read):
            break
        elif qualifies(writes[n]):
            return bits | 1 << n, True
        elif apart:
            break
        else:
            bits |= 1 << n
    return bits, False


def _of(write: Found, read: Found) -> bool:
    """``write`` is a :func:`named` write of ``read``'s element."""
    return named(write) and element(write) == element(read)


def _dead(iteration: list[Found], writes: list[Found], aliasing: Writes,
          served: dict[tuple[int, ...], tuple[int, bool]],
          statements: dict[tuple[int, ...], list[int]]) -> set[tuple[int, ...]]:
    """The ``order`` of each :func:`named` write that a later plain write of its
    element, in another statement, overwrites before any read that may alias it and
    is neither forwarded nor served by it (``served``: per read's ``order``,
    :func:`_served`), and of each guarded write that :func:`_merged` into an earlier
    plain one."""
    bit = {w.order: n for n, w in enumerate(writes)}
    pending = 0  # the writes no later write has overwritten, nor a read kept
    of_element: dict[tuple, list[Found]] = {}
    dead: set[tuple[int, ...]] = set()
    for f in iteration:
        if f.access.kind == "read":
            serving, forwarded = served[f.order]
            if not forwarded:
                pending &= ~aliasing.aliasing(f) | serving
        elif qualifies(f):
            same_statement = [f]
            for w in of_element.get(element(f), ()):
                if not pending >> bit[w.order] & 1:
                    continue
                if statement(w.order) == statement(f.order):
                    same_statement.append(w)
                else:
                    dead.add(w.order)
                    pending &= ~(1 << bit[w.order])
            of_element[element(f)] = same_statement
            pending |= 1 << bit[f.order]
        elif _merged(f, writes, aliasing, statements, pending):
            dead.add(f.order)
        elif named(f):
            of_element.setdefault(element(f), []).append(f)
            pending |= 1 << bit[f.order]
    return dead


def _merged(write: Found, writes: list[Found], aliasing: Writes,
            statements: dict[tuple[int, ...], list[int]], pending: int) -> bool:
    """A guarded :func:`named` write that one store of its element makes with an
    earlier plain write of it, in another statement, that is still ``pending`` (no
    read since that may alias it took a port): the writes that may alias it from that
    one on are all of its element (:func:`_served`, as if it were a read), so on every
    path the element's last value leaves in one store, of a ``phi`` (LLVM sinks the
    stores of an element into the block where the paths join, as Vitis keeps
    ``v[j] += h[k] * r[j - k]`` in a register when ``if (j - k < 0) break;`` cuts the
    unrolled ``k`` lanes short, or when a phase switch puts them in a ``case``)."""
    serving, plain = _served(write, writes, aliasing, statements)
    if not plain:
        return False
    first = (serving & -serving).bit_length() - 1  # the plain write, the earliest
    return bool(pending >> first & 1) and (statement(writes[first].order)
                                           != statement(write.order))


def statement(order: tuple[int, ...]) -> tuple[int, ...]:
    """The statement an access's ``order`` lies in.  ``order`` puts a statement's
    reads before its writes, which C does not always do (``a[k] = 5, t = a[i];``), so
    a read is forwarded only when every write of its own statement that may alias it
    is of its element, and two writes of one statement (``A[0] = A[0] = x``) never
    overwrite each other."""
    return order[:-2]


def element(f: Found) -> tuple:
    """The element a regular lane access names, as a value equal for two accesses
    exactly when their subscripts have one affine form (quasi-affine ones: one
    simplified tree), with its member."""
    return f.access.field, tuple(E.form_key(e) for e in f.access.index)
