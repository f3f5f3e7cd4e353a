"""The checker's side of store forwarding and dead stores (``poly.forwarding``).

From the walk's own records (:class:`.walk.Emitted`): within one step of a loop
pipelined without an unroll factor (its text held once), the access instances of
one array that no other name may reach there (``poly.forwarding.forwarding_arrays``),
in program order (``Emitted.at`` with each column's lane ordinals, then reads before
writes within a statement), are swept:

- a read takes no port when the writes of the array before it that may alias it
  (:mod:`.aliasing`: a write a constant away from it never does), from the last one
  back to one that runs in every step in no ``if``, and every write of its own
  statement that may alias it (which the order puts after its reads, C not always),
  are writes of the same element, none that runs in some steps only after a write
  that never aliases the read;
- a write takes no port when a later write of the same element that runs in every
  step in no ``if``, in another statement, follows with no read of the array in
  between that may alias it and takes a port, unless the write serves the read (the
  read's writes as above, from the last one back to this one, are all of its
  element: wherever the write ran, the read took its value from a register);
- a named write that does not run in every step in no ``if`` takes no port when an
  earlier write of its element that does, in another statement, is still unread (no
  read since that may alias it took a port) and every write between that may alias
  it is a named one of its element: one store leaves the element's last value.

An instance is *named* when it is a plain regular reference (its element known),
perhaps in an ``if``; only a named read may be forwarded or served, a named write
forward, be overwritten or merged; only a write that also runs in every step in no
``if`` of the loop, and that no ``break``, ``continue`` or ``return`` may skip
(``ir.skippable_accesses``), ends the walk back, overwrites or takes a merged one;
others only block.  Same element: the index as written, with each unrolled loop's
iterator replaced by its value in the column (``start + ordinal * step``, the start
substituted likewise), gives one affine form per dimension.  The instances of every path through the loop's
data-dependent ``if``s are swept together (a path lacks the others' conditional
accesses, which still block).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Mapping

import numpy as np

from .. import expr as E
from .. import ir
from ..poly.forwarding import forwarding_arrays, forwarding_loop
from ..poly.lanes import plain_reference
from . import frames as F
from .aliasing import Aliasing, flat
from .walk import Digit, Emitted, regions

#: Lanes of one access whose subscripts :func:`affine_in_every_lane` folds one by one
#: (a few microseconds each): a pipeline's widest unrolled nests stay below it.
MAX_LANES_AFFINE = 1 << 12


def without_free(emitted: list[Emitted], iteration: list[Emitted],
                 forwarded: frozenset[str], arrays: Mapping[str, ir.Array],
                 elements: dict | None = None) -> list[Emitted]:
    """``emitted`` (one path's) with the instances of the arrays ``forwarded`` that
    take no port masked out, each access that has some in an emission of its own;
    ``iteration``: every path's emissions of the same steps (``emitted`` itself for a
    loop of one path); ``arrays``: the kernel's, by name; ``elements``: a cache of
    each (access, column)'s element over the chunks of one loop (a column's lane is
    one in every chunk)."""
    free = free_columns(iteration, forwarded, arrays, {} if elements is None else elements)
    if not free:
        return emitted
    out = []
    for e in emitted:
        if not any(id(a) in free for a in e.accesses):
            out.append(e)
            continue
        for a in e.accesses:
            frame = e.frame if id(a) not in free else F.restrict(e.frame, ~free[id(a)][None, :])
            out.append(replace(e, frame=frame, accesses=(a,)))
    return out


def free_columns(iteration: list[Emitted], forwarded: frozenset[str],
                 arrays: Mapping[str, ir.Array], elements: dict) -> dict[int, np.ndarray]:
    """Per ``id(access)``, the columns (lanes) of its emission that take no port (an
    array the iteration does not write has none); ``arrays``, ``elements``: see
    :func:`without_free`."""
    written = {a.array for e in iteration for a in e.accesses if a.kind == "write"}
    instances: dict[str, list[tuple]] = {}
    seen: dict[int, int] = {}
    root = iteration[0].root if iteration else None
    skipped = ir.skippable_accesses(root) if root is not None else frozenset()
    for e in iteration:
        for k, a in enumerate(e.accesses):
            if a.array in written and a.array in forwarded:
                seen[id(a)] = seen.get(id(a), 0) + 1
                found = element_instances(e, k, a, elements)
                if a.ref_id in skipped:  # runs in some steps only: as in an ``if``
                    found = [x[:4] + (None,) + x[5:] for x in found]
                instances.setdefault(a.array, []).extend(found)
    free: dict[int, np.ndarray] = {}
    for name, mine in instances.items():
        for a, column, lanes in _swept(sorted(mine, key=lambda x: x[0]), arrays[name]):
            if seen[id(a)] == 1:  # an access emitted twice has no one place
                free.setdefault(id(a), np.zeros(lanes, bool))[column] = True
    return free


def element_instances(e: Emitted, k: int, a: ir.Access, elements: dict) -> list[tuple]:
    """(order, access, column, lanes, element or None, named or None) of each column
    of ``e`` that runs in some step: ``named``, the element where ``a`` is a regular
    reference to a whole one (``lanes.plain_reference``), in an ``if`` or not;
    ``element``, that where the instance also runs in every step, in no ``if``."""
    every = e.frame.mask.all(axis=0)
    whole = plain_reference(a) and a.regular
    out = []
    for order, column in instance_orders(e, k, a):
        key = (id(a), column, e.widths)
        if whole and key not in elements:
            digits = _digits(column, e.widths)
            elements[key] = lane_element(a, e.unrolled, digits[1:], e.root, digits[0])
        named = elements[key] if whole else None
        element = named if e.plain and bool(every[column]) else None
        out.append((order, a, column, e.frame.lanes, element, named))
    return out


def instance_orders(e: Emitted, k: int, a: ir.Access) -> list[tuple[tuple, int]]:
    """(order, column) of each column of ``e`` that runs in some step, ``a`` its
    ``k``-th access: the place in the iteration's program order (the column's lane of
    the concurrent loop's own unroll factor, whose lanes' bodies run one after
    another, then ``Emitted.at`` with the column's lane ordinals, then 0 for a read
    and 1 for a write, then ``k``)."""
    kind = 0 if a.kind == "read" else 1
    out = []
    for column in np.flatnonzero(e.frame.mask.any(axis=0)).tolist():
        digits = _digits(column, e.widths)
        order = tuple(digits[s.loop + 1] if isinstance(s, Digit) else s for s in e.at)
        out.append(((digits[0],) + order + (kind, k), column))
    return out


def _swept(instances: list[tuple], array: ir.Array) -> list[tuple[ir.Access, int, int]]:
    """(access, column, lanes) of the instances of ``array`` (in program order) that
    take no port."""
    writes = [n for n, (_, a, *_) in enumerate(instances) if a.kind == "write"]
    aliasing = Aliasing([(instances[n][0], flat(instances[n][4], array)) for n in writes])
    statements: dict[tuple, list[int]] = {}  # statement -> its writes' bits
    for b, n in enumerate(writes):
        statements.setdefault(instances[n][0][:-2], []).append(b)
    served = {n: _served(instances[n], instances, writes, aliasing, statements, array)
              for n, (_, a, *_) in enumerate(instances) if a.kind == "read"}
    free = {n for n, (_, plain) in served.items() if plain}
    free |= _dead(instances, writes, aliasing, served, statements, array)
    return [instances[n][1:4] for n in sorted(free)]


def _served(read: tuple, instances: list[tuple], writes: list[int], aliasing: Aliasing,
            statements: dict[tuple, list[int]], array: ir.Array) -> tuple[int, bool]:
    """The write instances (as bits) that serve the ``read`` instance: its aliasing
    writes before it, from the last back to each of them, and those of its own
    statement, are all named instances of its element; and whether one of them runs
    in every step in no ``if`` (then ``read`` takes no port); one that does not only
    with no write instance that never aliases ``read`` between.  None (0) unless
    ``read`` is named."""
    order, _, _, _, element, named = read
    if named is None:
        return 0, False
    may = aliasing.aliasing(flat(element, array))
    if not all(instances[writes[b]][5] == named
               for b in statements.get(order[:-2], ()) if may >> b & 1):
        return 0, False
    bits, apart = 0, False  # apart: a write that never aliases ``read`` lies between
    for b in reversed(range(aliasing.before(order).bit_length())):
        if not may >> b & 1:
            apart = True
        elif instances[writes[b]][5] != named:
            break
        elif instances[writes[b]][4] is not None:
            return bits | 1 << b, True
        elif apart:
            break
        else:
            bits |= 1 << b
    return bits, False


def _dead(instances: list[tuple], writes: list[int], aliasing: Aliasing,
          served: dict[int, tuple[int, bool]], statements: dict[tuple, list[int]],
          array: ir.Array) -> set[int]:
    """The positions of the named write instances that a later one of the same
    element that runs in every step in no ``if``, in another statement, overwrites
    before any read instance that may alias it and is neither forwarded nor served by
    it (``served``: per read's position, :func:`_served`; ``writes``: the write
    instances' positions, in :class:`.aliasing.Aliasing`'s bit order), and of each
    other named write instance that an earlier one of its element that runs in every
    step in no ``if``, in another statement, still unread, takes into one store: the
    writes that may alias it since are all named ones of its element (:func:`_served`
    of it as if it were a read), so on every path one store leaves its last value."""
    bit = {n: b for b, n in enumerate(writes)}
    pending = 0  # the writes no later write has overwritten, nor a read kept
    of_element: dict[tuple, list[int]] = {}
    dead: set[int] = set()
    for n, (order, a, _, _, element, named) in enumerate(instances):
        if a.kind == "read":
            serving, forwarded = served[n]
            if not forwarded:
                pending &= ~aliasing.aliasing(flat(element, array)) | serving
        elif element is not None:
            same_statement = [n]
            for w in of_element.get(element, ()):
                if not pending >> bit[w] & 1:
                    continue
                if instances[w][0][:-2] == order[:-2]:
                    same_statement.append(w)
                else:
                    dead.add(w)
                    pending &= ~(1 << bit[w])
            of_element[element] = same_statement
            pending |= 1 << bit[n]
        elif named is not None:
            serving, plain = _served(instances[n], instances, writes, aliasing,
                                     statements, array)
            first = (serving & -serving).bit_length() - 1  # the plain one, if any
            if plain and pending >> first & 1 and instances[writes[first]][0][:-2] != \
                    order[:-2]:
                dead.add(n)
                continue
            of_element.setdefault(named, []).append(n)
            pending |= 1 << bit[n]
    return dead


def _digits(column: int, widths: tuple[int, ...]) -> list[int]:
    """``column``'s lane ordinal per level (the concurrent loop's, then each unrolled
    loop's), outermost most significant."""
    out = []
    for width in reversed(widths):
        column, digit = divmod(column, width)
        out.append(digit)
    return out[::-1]


def lane_element(a: ir.Access, unrolled: tuple[ir.Loop, ...], ordinals: list[int],
             root: ir.Loop | None = None, lane: int = 0) -> tuple | None:
    """The element ``a`` names in the lane of ``ordinals`` (one per loop of
    ``unrolled``) and the ``lane`` of the concurrent loop ``root`` (its iterator ``v``
    then ``v + lane * step``, ``v`` the step's first iteration, in every lane): its
    member and the affine form of each subscript, or None when a subscript reads an
    iterator whose start is a min/max of several expressions."""
    env: dict[str, E.Expr] = {}
    if root is not None and lane:
        env[root.var] = E.add(E.var(root.var), E.const(lane * root.step))
    unknown: set[str] = set()
    for loop, ordinal in zip(unrolled, ordinals):
        if len(loop.init) != 1:
            unknown.add(loop.var)
            continue
        start = E.substitute(loop.init[0], env)
        env[loop.var] = E.simplify(E.add(start, E.const(ordinal * loop.step)))
        if E.variables(start) & unknown:
            unknown.add(loop.var)
    forms = []
    for e in a.index:
        if E.variables(e) & unknown:
            return None
        value = E.simplify(E.substitute(e, env))
        form = E.affine_form(value)
        forms.append(("tree", value) if form is None else (
            "affine", tuple(sorted((v, c) for v, c in form[0].items() if c)), form[1]))
    return a.field, tuple(forms)


def forwarded_arrays(kernel: ir.Kernel) -> dict:
    """Per coordinate of a concurrent loop where the tool forwards (:mod:`.forwarding`:
    a :func:`forwarding_loop` that the IR holds once), the arrays it forwards there
    (:func:`forwarding_arrays` of every array the loop touches, registers included:
    another name may reach those too)."""
    found = list(regions(kernel))
    copies = Counter(r.loop.coord for r in found)
    arrays = {a.name: a for a in kernel.arrays}
    return {r.loop.coord: forwarding_arrays(arrays, r.loop, kernel) for r in found
            if copies[r.loop.coord] == 1 and forwarding_loop(r.loop)}


def affine_in_every_lane(a: ir.Access, lanes: tuple[ir.Loop, ...],
                         ordinals: list[tuple[int, ...]] | None) -> bool:
    """Every subscript of ``a`` is affine in each lane of the loops ``lanes`` (their
    iterators at their values there: :func:`.forwarding.lane_element`), as the model
    and the checker require of a write they tell apart from a read, as LLVM's BasicAA
    does (``poly.aliasing``): ``acc[i % 16]`` and ``acc[(i + 1) % 16]`` in two lanes of
    an unroll factor may alias, though the run kept them one apart in every step;
    ``acc[(2*o + l) / 2]`` is ``acc[o]`` in both lanes of ``l``.  ``ordinals``: the
    lanes', :func:`lane_ordinals`; lanes whose values are not constants, or more than
    :data:`MAX_LANES_AFFINE` of them (None), keep the run's distances (true as
    before)."""
    if ordinals is None:
        return True
    return all(element is not None and all(form[0] == "affine" for form in element[1])
               for element in (lane_element(a, lanes, list(o)) for o in ordinals))


def lane_ordinals(lanes: tuple[ir.Loop, ...]) -> list[tuple[int, ...]] | None:
    """Each lane's ordinals of the loops ``lanes`` (outermost first), their starts
    and bounds folded with the outer lanes' values; None where one is no constant or
    past :data:`MAX_LANES_AFFINE` lanes."""
    combos: list[tuple[tuple[int, ...], dict[str, E.Expr]]] = [((), {})]
    for loop in lanes:
        if len(loop.init) != 1 or len(loop.bound) != 1:
            return None
        grown = []
        for ordinals, env in combos:
            start, end = (E.simplify(E.substitute(e, env)) for e in (loop.init[0],
                                                                    loop.bound[0]))
            if not (isinstance(start, E.Const) and isinstance(end, E.Const)):
                return None
            for k in range(max(0, (end.value - start.value) // loop.step + 1)):
                grown.append((ordinals + (k,), env | {
                    loop.var: E.const(start.value + k * loop.step)}))
        if len(grown) > MAX_LANES_AFFINE:
            return None
        combos = grown
    return [ordinals for ordinals, _ in combos]
