"""The lowering's arrays and run-time sizes: part of :class:`.lower._Lowering`.

The top's array parameters by their interfaces, the file's and the functions' local
arrays (a sub-function's local renamed ``<name>_<function>`` when its name is taken),
their ``array_partition`` / ``bind_storage`` pragmas (a callee parameter's partition
applied to the array each call passes), the top's scalar parameters that bound loops or
indices as run-time sizes, the sizes a loop start or bound that is not affine stands
for (a product of sizes, a fresh size, :mod:`.fresh`), and after the body is lowered:
each pointer's extent, the fresh sizes' ranges and the sizes the IR uses.  The state these methods
share is :class:`.lower._Lowering`'s, documented there.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from typing import Iterator, Mapping

import clang.cindex as ci

from .. import expr as E
from ..errors import KernelError, warning_text
from ..ir import (PORT_MODELS, UNBOUNDED_SAMPLE, UNKNOWN_TEXT, Access, Array, If, Loop,
                  Node, Param, PartitionPragma, size_words)
from ..ir import accesses as all_accesses
from .calls import Binding, StreamPort, array_reference
from .cexpr import Bound, fold, interval
from . import cnodes as N
from . import fresh as F
from . import interfaces as I
from .declarations import (array_decl, element_type, field_array, integer_constant,
                           refuse_array_typedefs, struct_fields)
from .routed import routed_fields

POINTER_KIND = ci.TypeKind.POINTER
RECORD_TYPE_KIND = ci.TypeKind.RECORD
# A stream declared as a reference or a pointer names another (lower._stream_alias).
_ALIAS_KINDS = (POINTER_KIND, ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE)
# The FIFO a stream the kernel declares becomes (a dataflow channel): one element per
# cycle in and out, as an ap_fifo port.
LOCAL_STREAM_MODE = "ap_fifo"


# The pragmas of a function's array parameter that apply to the array a call passes,
# and the field of ir.Array that holds them.
PARAMETER_PRAGMAS = {"array_partition": "partitions", "array_reshape": "reshapes",
                     "bind_storage": "storage"}


# The elements a stream argument's FIFO model holds without a depth= (no storage: more
# than any pipeline iteration transfers, so that each transfer is an element of its own).
STREAM_EXTENT = 1024
# A depth= past this many elements (2^31 in student kernels) is no buffer the testbench
# can declare (it did not link): where every access's largest index is known, the
# extent is one past the largest (the kernel reaches no element beyond it).
MAX_DECLARED_DEPTH = 1 << 24


class MemoryLowering:
    """The arrays and run-time sizes of a :class:`.lower._Lowering` run."""

    def _collect_sizes(self) -> None:
        """The run-time sizes (module :mod:`.interfaces`): at least 0 when their type is
        unsigned (a signed one's least value is left to the polyhedral pass, as its
        largest is), at most the ``-D ARRAYPART_MAX_<name>`` value when one is given,
        within the bounds of the top's own ``assert`` statements."""
        for param in self._func.params:
            if param.name and param.name not in self._constants and I.is_size_candidate(
                    param, self._func.body):
                self._sizes[param.name] = param.coord
                high = I.type_bound(param)
                self._ranges[param.name] = (
                    None if param.ctype.integer.signed else 0, high)
                if high is not None:
                    self._size_sources[param.name] = (
                        f"its type {param.ctype.spelling} ({param.ctype.canonical_spelling})"
                        if param.ctype.spelling != param.ctype.canonical_spelling
                        else f"its type {param.ctype.spelling}")
        for name, high in I.define_bounds(self._constants, list(self._sizes)).items():
            self._ranges[name] = (self._ranges[name][0], high)
            self._size_sources[name] = f"-D {I.MAX_DEFINE_PREFIX}{name}"
        asserted = I.assert_bounds(self._func.body, self._constants, list(self._sizes))
        for name, (low, high, coord) in asserted.items():
            known_low, known_high = self._ranges[name]
            if high is not None and (known_high is None or high < known_high):
                self._size_sources[name] = f"the assert at {coord}"
            self._ranges[name] = (I.extreme(max, low, known_low),
                                  I.extreme(min, high, known_high))

    def _params(self, body: tuple[Node, ...]) -> tuple[Param, ...]:
        """The sizes the IR uses, each with the range known so far (the polyhedral pass
        bounds the others by the arrays they index)."""
        used = _used_variables(body)
        written = _written_arrays(body)
        for name in self._fresh:
            self._fresh_range(name, written)
        params = []
        for name, coord in self._sizes.items():
            if name not in used:
                continue
            low, high = self._ranges[name]
            if None not in (low, high) and high < low:
                raise KernelError(coord, f"run-time size {size_words(name)}: "
                                         f"{self._size_sources[name]} leaves it no value "
                                         f"from {low} up")
            params.append(Param(name, low, high, coord, self._size_sources.get(name),
                                lower_end=name in self._fresh and not self._fresh[name][2]))
        return tuple(params)

    def _fresh_range(self, name: str, written: set[str]) -> None:
        """A fresh size's range: its expression's interval over the sizes' final
        ranges, the value ranges of the opaque scalars it reads and the values of the
        tables it reads (arrays not among those ``written``), within what a
        LOOP_TRIPCOUNT said; the least value of an upper end (:mod:`.fresh`) at least
        0."""
        node, scope, upper, arrays = self._fresh[name]
        ranges = {**scope.ranges, **self._value_ranges(),
                  **{n: self._ranges[n] for n in self._sizes if n != name}}
        tables = {c_name: F.table_interval(self._array_decls[array].init,
                                           math.prod(self._arrays[array].shape))
                  for c_name, array in arrays.items() if array not in written}
        low, high = F.node_interval(node, replace(scope, ranges=ranges), ranges, tables)
        known_low, known_high = self._ranges[name]
        if upper:
            low = 0 if low is None or low < 0 else low
        if high is not None and (known_high is None or high < known_high):
            text = name.split(F.NAME_MARK)[0]
            self._size_sources[name] = ("the values it takes" if text == UNKNOWN_TEXT
                                        else f"the values '{text}' takes")
        elif known_high is not None:
            high = known_high
        if None not in (low, high) and high < low:
            low = high  # the loop never runs: one value stands for all
        self._ranges[name] = (low, high)

    def _collect_constants(self) -> None:
        self._add_constants(self._globals)
        self._file_constants = dict(self._constants)
        self._add_constants(n for n in N.walk(self._func.body) if isinstance(n, N.Decl))

    def _add_constants(self, decls) -> None:
        for decl in decls:
            value = integer_constant(decl, self._scope())
            if value is not None:
                self._constants[decl.name] = value

    def _collect_arrays(self) -> None:
        """The top's array parameters, the file's arrays, the top's local arrays; a
        header's array that a name of the top shadows is none of the kernel's."""
        refuse_array_typedefs(self._func)
        for param in self._func.params:
            member = I.stream_member(param)
            if member is not None:
                raise KernelError(param.coord, (
                    f"'{param.name}' holds an hls::stream ({param.name}.{member}): "
                    "arraypart does not model a stream inside a struct, and its testbench "
                    "could not copy one; pass the stream as an argument of its own"))
            if I.is_stream(param):
                self._streams |= {param.name}
                self._add_stream(param)
            elif param.is_array or I.is_unsized(param) or array_reference(param):
                self._add_parameter(param)
        shadowing = {p.name for p in self._func.params} | {
            n.name for n in N.walk(self._func.body) if isinstance(n, N.Decl)}
        for node in self._globals:
            if node.start < 0 and node.name in shadowing:
                continue
            if node.is_array:
                self._add_array(node, interface=False, file_scope=True)
                self._file_arrays[node.name] = Binding(node.name)
            self._file_arrays.update(self._add_struct_fields(node, file_scope=True))
        for node in N.walk(self._func.body):
            if isinstance(node, N.Decl) and I.is_stream(node):
                self._streams |= {node.name}
                if not stream_alias(node):
                    self._add_stream(node, local=True)
            elif isinstance(node, N.Decl) and not node.is_array:
                self._add_struct_fields(node)
            elif isinstance(node, N.Decl) and node.is_array:
                name = self._add_array(node, interface=False, local=True)
                if node.init is not None and _untexted(node.init):
                    self._keep_as_written(name, (
                        f"its initializer at {node.coord} is written in an included file "
                        "or a macro's body: write it in the kernel file to let arraypart "
                        "spread it over bank arrays"))

    def _add_stream(self, param: N.Decl, local: bool = False,
                    owner: str | None = None) -> None:
        """An ``hls::stream<T>`` parameter of the top (by reference or pointer) is a
        FIFO port (``Array.fifo``: its INTERFACE mode, ``axis`` by default); one the
        top or its sub-function ``owner`` declares (``local``: a channel between
        dataflow processes) is a FIFO of its own (:data:`LOCAL_STREAM_MODE`), one for
        every call of the function's text, named ``<name>_<owner>`` (``<name>_fifo``
        in the top; numbered) where another array has its name.  Either takes one
        element per cycle in and out, as an ``axis`` pointer is; its transfers
        (``read``, ``write``, ``>>``, ``<<``) are its accesses, at an element the model
        does not follow, one of ``depth=`` (else :data:`STREAM_EXTENT`) elements, so
        that the transfers of one iteration are distinct elements.  An array of
        streams (``hls::stream<int> in[4]``) is one such FIFO per stream: its first
        dimensions index the streams, each a bank of its own
        (:func:`arraypart.banking.fixed.unpartitioned`)."""
        found = I.stream_value_type(param)
        if found is None:
            return
        value, streams = found
        try:
            elem_type, bits = element_type(value, param.name, param.coord)
        except KernelError:  # a FIFO stores nothing arraypart prices
            elem_type, bits = value.spelling, 1
        iface = None if local else self._interfaces.get(param.name)
        mode = (LOCAL_STREAM_MODE if local else
                iface.mode if iface is not None and iface.fifo else I.STREAM_MODE)
        extent = iface.depth if iface is not None and iface.depth else STREAM_EXTENT
        name = param.name if not local else self._unused_name(  # another array's name
            param.name, _numbered(f"{param.name}_{owner or 'fifo'}"))
        self._arrays[name] = Array(name, streams + (extent,), elem_type, bits,
                                   not local, param.coord, fifo=mode, stream=True,
                                   partitionable=False)
        if local:
            self._stream_names[param.coord] = name
        if owner is None:
            self._stream_ports[param.name] = StreamPort(name)

    def _unused_name(self, name: str, candidates: Iterator[str]) -> str:
        """``name`` when no array has it, else the first of ``candidates`` none has."""
        return name if name not in self._arrays else next(
            c for c in candidates if c not in self._arrays)

    def _names_fifo(self, name: str | None, bindings: Mapping[str, Binding]) -> bool:
        """``name`` denotes a stream of the current function where ``bindings`` are the
        arrays in scope: one of its stream names that no array there takes (an array
        of another block may have the name)."""
        binding = bindings.get(name)
        return name in self._streams and (binding is None
                                          or self._arrays[binding.array].stream)

    def _add_parameter(self, param: N.Decl) -> None:
        """A pointer or array parameter by its interface: off-chip (m_axi) or on-chip;
        a pointer's first dimension is its extent, fixed after the body is lowered."""
        given = self._interfaces.get(param.name)
        iface = given or I.default_interface(param)
        unsized = I.is_unsized(param)
        if unsized:
            self._reached[param.name] = []
        self._add_array(param, interface=True, extent=1 if unsized else None)
        array = self._arrays[param.name]
        self._arrays[param.name] = replace(
            array, bundle=iface.bundle if iface.off_chip else None,
            fifo=iface.mode if iface.fifo else None, storage=iface.storage,
            partitionable=not (iface.off_chip or iface.fifo
                               or param.ctype.kind == POINTER_KIND),
            implied_bundle=given is None and iface.off_chip)

    def _fix_extents(self) -> None:
        """Each pointer or unsized parameter's first dimension: its INTERFACE depth
        (where it passes :data:`MAX_DECLARED_DEPTH`, the largest index reached when
        known), else one past the largest index its accesses reach (1 when it is only
        dereferenced, or unused); accesses in callees count, through the parameters
        bound to it."""
        for name, accesses in self._reached.items():
            param = next(p for p in self._func.params if p.name == name)
            iface = self._interfaces.get(name) or I.default_interface(param)
            highs = self._index_highs(accesses, {})
            sampled = None in highs and iface.off_chip and iface.depth is None
            if sampled:
                highs = self._sampled_highs(accesses)
            known = bool(highs) and None not in highs
            if iface.depth is not None and not (iface.depth > MAX_DECLARED_DEPTH and known):
                extent = iface.depth
            elif None in highs or not (highs or _only_dereferenced(self._func.body, name)):
                raise I.unknown_extent(name, iface.coord or param.coord, iface,
                                       rows=len(self._arrays[name].shape) > 1)
            else:
                extent = max([h + 1 for h in highs] + [1])
            array = self._arrays[name]
            self._arrays[name] = replace(array, shape=(extent,) + array.shape[1:],
                                         sampled_extent=sampled)

    def _register_ports(self, body: tuple[Node, ...]) -> None:
        """Each pointer parameter whose every access, in the top and the functions
        it calls, is of element 0 (``*p``, ``p[0]``, ``p->f``) at a constant index is
        the register port :func:`.interfaces.register_mode` gives it, when it gives
        one (``Array.register``): no memory, no m_axi bundle.  A ``volatile`` one
        keeps its interface: each of its accesses is a transfer of its own (UG1399,
        "Multi-Access Pointers on the Interface"), which a register port does not
        model."""
        kinds: dict[str, set[str]] = {}
        scalar: dict[str, bool] = {}
        for access in all_accesses(body):
            kinds.setdefault(access.array, set()).add(access.kind)
            scalar[access.array] = scalar.get(access.array, True) and all(
                i == E.const(0) for i in access.index)
        for param in self._func.params:
            array = self._arrays.get(param.name)
            if (array is None or not array.interface or array.shape != (1,) or array.volatile
                    or param.ctype.kind != POINTER_KIND or not scalar.get(param.name)):
                continue
            mode = I.register_mode(self._interfaces.get(param.name),
                                   frozenset(kinds[param.name]))
            if mode is not None:
                self._arrays[param.name] = replace(array, register=mode, bundle=None,
                                                   implied_bundle=False)

    def _index_highs(self, accesses, sampled: dict[str, Bound]) -> list[int | None]:
        """The largest first index of each access (None: irregular or unbounded),
        the sizes in their ranges (those of ``sampled`` in theirs)."""
        sizes = {**{n: self._ranges[n] for n in self._sizes}, **sampled}
        highs = []
        for index, ranges, ends in accesses:
            ranges = {**ranges, **sizes}
            for var, (init, bound, step) in ends.items():  # again, from the sizes' now
                ranges[var] = self._iterator_range(init, bound, step, ranges)
            highs.append(None if index is None else interval(index, ranges)[1])
        return highs

    def _sampled_highs(self, accesses) -> list[int | None]:
        """An off-chip pointer's indices with the sizes that nothing bounds taken up to
        :data:`arraypart.ir.UNBOUNDED_SAMPLE` (None: irregular): a provisional extent,
        which the polyhedral pass sets from the sizes' ranges once it has bounded them
        (``Array.sampled_extent``)."""
        open_sizes = {n: (low or 0, UNBOUNDED_SAMPLE) for n, (low, high) in
                      self._ranges.items() if n in self._sizes and high is None}
        return self._index_highs(accesses, open_sizes)

    def _add_array(self, decl: N.Decl, *, interface: bool, extent: int | None = None,
                   owner: str | None = None, taken: Mapping[str, Binding] = {},
                   local: bool = False, file_scope: bool = False) -> str:
        """Add the array ``decl`` declares (``extent``: its first size, for a pointer);
        its IR name: its own, or for a local of the sub-function ``owner`` whose name
        another array has, ``<name>_<owner>`` (numbered until free).  ``taken``: the
        names already declared in its function.  A ``local`` (declared in a function
        body) may share its name with another local of its function, declared in
        another block: it is a memory of its own, the first one's IR name with ``_2``
        (``_3``, ...), which :meth:`_statement` binds to the name where its block
        declares it.  A ``file_scope`` array of the kernel's text keeps its declaration
        (``Array.file_scope``), as a header's does (``Array.header``)."""
        name, first = decl.name, None
        mine = (name in self._arrays and not self._arrays[name].stream
                and (owner is None or name in taken))
        if mine:
            first = taken[name].array if name in taken else name
            if not (local and first in self._local_names.values()):
                where = (f" (first at {self._array_decls[first].coord})"
                         if self._array_decls[first].coord != decl.coord else "")
                raise KernelError(decl.coord, f"array '{decl.name}' is declared twice{where}: "
                                              "a function's arrays, its parameters and the "
                                              "file's arrays need distinct names")
        name = self._unused_name(name, (f"{first}_{k}" for k in itertools.count(2)) if mine
                                 else _numbered(decl.name if owner is None
                                                else f"{decl.name}_{owner}"))
        array = array_decl(decl, interface=interface, extent=extent)
        if decl.start < 0:  # declared in a header: its text is not rewritten
            array = replace(array, header=True)
        elif file_scope:
            array = replace(array, file_scope=True)
        self._arrays[name] = replace(array, name=name) if name != decl.name else array
        self._array_decls[name] = decl
        if local:
            self._local_names[decl.coord] = name
        return name

    def _add_struct_fields(self, decl: N.Decl, *, owner: str | None = None,
                           file_scope: bool = False) -> dict[str, Binding]:
        """The array fields of the struct variable ``decl``
        (:func:`.declarations.struct_fields`), each an array named by the struct's IR
        name and its path (``w.buf``; ``w_<owner>.buf`` for a local of the
        sub-function ``owner`` whose name another struct's fields have, numbered
        until free), by the names its text gives them (``w.buf``); those of a local of
        the top that the emission may store apart from the struct are routed
        (:func:`.routed.routed_fields`)."""
        fields = struct_fields(decl)
        if not fields:
            return {}
        taken = {name.split(".")[0] for name in self._arrays if "." in name}
        stem = next(c for c in itertools.chain(
            (decl.name,), _numbered(decl.name if owner is None else f"{decl.name}_{owner}"))
            if c not in taken)
        # a local of the top is rewritten by its text's name, which its IR name keeps
        routed = (routed_fields(self._func, decl, dict(fields), self._unsynthesized_text())
                  if owner is None and not file_scope and stem == decl.name else frozenset())
        found = {}
        for path, t in fields:
            array = replace(field_array(decl, path, t, f"{stem}.{path}"),
                            member_routed=path in routed)
            if decl.start < 0:
                array = replace(array, header=True)
            elif file_scope:
                array = replace(array, file_scope=True)
            self._arrays[array.name] = array
            self._array_decls[array.name] = decl
            found[f"{decl.name}.{path}"] = Binding(array.name)
        self._struct_fields[decl.coord] = found
        return found

    def _unsynthesized_text(self) -> bytes:
        """The text of the top's body that conditional compilation leaves out, its
        ranges a line apart."""
        body = self._func.body
        return b"\n".join(self._source[lo:hi] for lo, hi in self._unsynthesized
                          if body.start <= lo < body.end)

    def _declared(self, decl: N.Decl) -> dict[str, Binding]:
        """The arrays a local declaration makes visible from there to the end of its
        block: its own (by its place, ``_local_names``), a struct's array fields."""
        found = dict(self._struct_fields.get(decl.coord, {}))
        if decl.coord in self._local_names:
            found[decl.name] = Binding(self._local_names[decl.coord])
        return found

    def _apply_dependence(self, pragma, seen: Mapping[str, Binding]) -> None:
        """``dependence variable=A inter false`` (``type=inter dependent=false`` since
        Vitis 2021.1): the user states that A carries no dependence between
        iterations."""
        binding = seen.get(pragma.option("variable") or "")
        inter = "inter" in pragma.flags or (pragma.option("type") or "").lower() == "inter"
        false = "false" in pragma.flags or (
            pragma.option("dependent") or "").lower() == "false"
        if binding is not None and inter and false:
            array = self._arrays[binding.array]
            self._arrays[binding.array] = replace(array, independent=True)

    def _apply_array_pragmas(self, body: N.Node, names: Mapping[str, Binding],
                             parameters: frozenset = frozenset()) -> None:
        """``array_partition``, ``array_reshape``, ``bind_storage`` and the legacy
        ``resource core=`` of a memory in ``body`` (a function's); unknown directives are
        warned about.
        ``names``: the arrays its text names; ``parameters``: its array parameters,
        which other functions' arrays stand for (an ``array_partition`` of one is applied
        at each call, :meth:`_apply_parameter_pragmas`)."""
        for node, seen in _scoped_pragmas(body, names, self._declared):
            pragma = self._pragmas.parse(node)
            if pragma is None:
                continue
            unknown = self._pragmas.unknown_directive(pragma)
            if unknown is not None:
                self._warnings.append(unknown)
            for one in self._pragmas.each_variable(pragma):
                self._apply_array_pragma(one, seen, parameters)

    def _apply_array_pragma(self, pragma, seen: Mapping[str, Binding],
                            parameters: frozenset) -> None:
        """One pragma of :meth:`_apply_array_pragmas` on (at most) one array."""
        ranks = {c_name: len(self._arrays[b.array].shape) for c_name, b in seen.items()}
        storage = None
        if pragma.kind == "resource" and pragma.option("variable") in ranks:
            storage = self._pragmas.resource_storage(pragma)
            if storage is None:
                return
        elif pragma.kind == "dependence":
            self._apply_dependence(pragma, seen)
            return
        elif pragma.kind == "cache":
            self._warnings.append(warning_text(self._pragmas.coord(pragma), (
                f"the cache of port '{pragma.option('port')}' is not modelled: each "
                "access counts as a transfer on its bundle, so a loop that the cache "
                "serves may reach a better II in Vitis than arraypart reports")))
            return
        elif pragma.kind == "array_map":
            self._warnings.append(_array_map_warning(self._pragmas.coord(pragma), pragma))
            return
        elif pragma.kind == "loop_merge":
            if self._pragmas.off(pragma):
                return  # loop_merge off: the loops stay apart, as modelled
            self._warnings.append(warning_text(self._pragmas.coord(pragma), (
                "loop_merge is not modelled: arraypart banks the loops of this scope "
                "as separate loops; where Vitis merges them, their accesses share an "
                "iteration and the IIs reported need not hold (merge them by hand to "
                "have them banked together)")))
            return
        elif pragma.kind not in ("array_partition", "array_reshape", "bind_storage"):
            return
        if self._names_fifo(pragma.option("variable"), seen):
            return  # an array of FIFOs: one FIFO per element whatever its pragmas
        if pragma.option("variable") in parameters:
            return  # applied at each call (_apply_parameter_pragmas)
        variable = pragma.option("variable") or ""
        fields = [k for k in seen if k.startswith(variable + ".")]
        if variable not in ranks and fields and pragma.kind != "bind_storage":
            self._partitioned_whole(pragma, variable, {k: seen[k].array for k in fields})
            return
        if variable not in ranks and ("." in variable or self._struct_variable(variable)):
            self._warnings.append(warning_text(self._pragmas.coord(pragma, "variable"), (
                f"{pragma.kind} of {'member' if '.' in variable else 'struct'} "
                f"'{variable}' stays as written: arraypart does not bank an array "
                "inside a struct")))
            return
        name = seen[self._pragmas.target(pragma, ranks)].array
        array = self._arrays[name]
        if pragma.kind == "array_partition":
            partition = self._pragmas.partition(pragma, len(array.shape))
            self._set_partitioning(replace(array, partitions=array.partitions + (partition,)))
        elif pragma.kind == "array_reshape" and not array.memory:
            self._warnings.append(warning_text(self._pragmas.coord(pragma), (
                f"array_reshape of {name}, which is an interface port (m_axi or a "
                "FIFO), not an on-chip memory: ignored")))
        elif pragma.kind == "array_reshape":
            reshape = self._pragmas.partition(pragma, len(array.shape))
            if not reshape.off:  # off=true: no reshape
                self._set_partitioning(replace(array, reshapes=array.reshapes + (reshape,),
                                               partitionable=False))
        else:
            kind, impl = storage or self._pragmas.storage(pragma)
            self._arrays[name] = replace(array, storage=kind, storage_impl=impl)

    def _partitioned_whole(self, pragma, variable: str, fields: Mapping[str, str]) -> None:
        """An ``array_partition`` (``array_reshape``) of a whole struct variable: what
        Vitis makes of its array fields is not modelled, so each keeps its text's
        banking, one memory as arraypart counts it (``ir.Array.kept_banking``: no
        pragma of ours on a field contradicts the user's), with a warning."""
        where = self._pragmas.coord(pragma, "variable")
        for written, name in fields.items():
            self._arrays[name] = replace(self._arrays[name], kept_banking=(
                f"is an array field of struct '{variable}', which the {pragma.kind} at "
                f"{where} partitions whole, as arraypart does not model (partition the "
                f"field itself, variable={written}, to let arraypart bank it)"))
        self._warnings.append(warning_text(where, (
            f"{pragma.kind} of struct '{variable}' stays as written: arraypart does not "
            f"model a partition of a whole struct, and counts its array fields "
            f"({', '.join(sorted(fields))}) as one memory each; partition a field itself "
            f"(variable={min(fields)}) to let arraypart bank it")))

    def _struct_variable(self, name: str) -> bool:
        """``name`` is declared in the function as a struct that is no array (eddl's
        ``pixel_out_t bias`` with ``dim=0``), whose array fields, if any, arraypart
        does not model (:func:`.declarations.struct_fields`)."""
        return any(isinstance(n, N.Decl) and n.name == name and not n.is_array
                   and n.ctype is not None and n.ctype.canonical_kind == RECORD_TYPE_KIND
                   for n in N.walk(self._func.body))

    def _apply_parameter_pragmas(self, callee: N.FuncDef,
                                 bound: Mapping[str, Binding]) -> None:
        """An ``array_partition`` (or ``array_reshape``, ``bind_storage``) of an array
        parameter of ``callee`` partitions (reshapes, binds) the array the call passes,
        as Vitis carries it to the caller's array.  Where the call passes rows
        (``Ql[i]`` of ``Ql[8][16]``: ``p`` leading indices), dimension ``d`` of the
        parameter is dimension ``d + p`` of the array; a pointer at an offset into a
        row has no such dimension.  The same pragma twice is one, and a partition
        that another pragma of its kind contradicts is an error."""
        parsed = (self._pragmas.parse(n) for n in callee.nodes if isinstance(n, N.Pragma))
        for pragma in (one for p in parsed if p is not None
                       for one in self._pragmas.each_variable(p)):
            if pragma.kind not in PARAMETER_PRAGMAS or pragma.option("variable") not in bound:
                continue
            variable = pragma.option("variable")
            binding = bound[variable]
            if binding.offset != E.Const(0) or (binding.field and binding.prefix):
                what = ("an array field of an element of" if binding.field
                        else "a pointer at an offset into")
                self._pragmas.error(pragma, f"{pragma.kind} on '{variable}', which this "
                                            f"call binds to {what} array "
                                            f"'{binding.array}': arraypart reads an "
                                            "argument's partition as one of the whole "
                                            "array the call passes or of its rows, and "
                                            "this argument is neither; place it where "
                                            f"'{binding.array}' is defined", "variable")
            if pragma.kind == "bind_storage":
                self._apply_parameter_storage(pragma, binding.array)
            else:
                self._apply_parameter_partition(pragma, binding.array, len(binding.prefix))

    def _apply_parameter_partition(self, pragma, name: str, rows: int) -> None:
        """One ``array_partition`` or ``array_reshape`` of a parameter on the array
        ``name`` a call passes, whose first ``rows`` dimensions the call fixes
        (:meth:`_apply_parameter_pragmas`)."""
        variable = pragma.option("variable")
        array = self._arrays[name]
        field = PARAMETER_PRAGMAS[pragma.kind]
        given = getattr(array, field)
        new = []
        for partition in _caller_partitions(
                self._pragmas.partition(pragma, len(array.shape) - rows), rows,
                len(array.shape)):
            if (partition.type, partition.factor, partition.dim) in [
                    (p.type, p.factor, p.dim) for p in given]:
                continue
            clash = next((p for p in given if 0 in (p.dim, partition.dim)
                          or p.dim == partition.dim), None)
            if clash is not None:
                self._pragmas.error(pragma, _clash_text(pragma.kind, variable, name,
                                                        partition, clash), "variable")
            new.append(partition)
            given += (partition,)
        if rows and new:
            dims = ("dimension " if len(new) == 1 else "dimensions ") + " and ".join(
                str(p.dim) for p in new)
            self._warnings.append(warning_text(new[0].coord, (
                f"{pragma.kind} on '{variable}' is read as one of {dims} of array "
                f"'{name}', whose rows the call passes: Vitis applies a "
                "partition of an argument to the array the caller passes, so it banks "
                f"every row of '{name}' alike")))
        changes = {field: given}
        if field == "reshapes":
            changes["partitionable"] = False
        self._set_partitioning(replace(array, **changes))

    def _apply_parameter_storage(self, pragma, name: str) -> None:
        """A ``bind_storage`` of a parameter (FINN's ``memory_resource(buf, ...)``) on
        the on-chip array ``name`` a call passes, as UG1399 lets it name a function's
        argument.  Where another bind_storage (at the array's definition, in another
        callee) gives the array another type, a located warning, and the array keeps
        the type with fewer ports (:func:`_fewer_ports`): no II it reports needs the
        other's ports."""
        variable = pragma.option("variable")
        array = self._arrays[name]
        if array.interface:
            self._pragmas.error(pragma, (
                f"bind_storage on '{variable}', which this call binds to '{name}', a "
                "port of the top: give its storage with '#pragma HLS INTERFACE "
                f"port={name} storage_type=...' in the top"), "variable")
        kind, impl = self._pragmas.storage(pragma)
        if array.storage is None or (array.storage, array.storage_impl) == (kind, impl):
            self._arrays[name] = replace(array, storage=kind, storage_impl=impl)
            return
        kept = _fewer_ports(array.storage, kind)
        self._warnings.append(warning_text(self._pragmas.coord(pragma, "variable"), (
            f"bind_storage on '{variable}' binds array '{name}' as {kind}"
            f"{f' impl={impl}' if impl else ''}, which another bind_storage binds as "
            f"{array.storage}{f' impl={array.storage_impl}' if array.storage_impl else ''}: "
            f"arraypart models and emits {kept}, the type with fewer ports (give the "
            "array one storage type)")))
        if kept != array.storage:
            self._arrays[name] = replace(array, storage=kind, storage_impl=impl)

    def _set_partitioning(self, array: Array) -> None:
        """Record ``array`` with its partitions and reshapes, less each array_partition
        of a dimension that an array_reshape also takes, with a located warning: Vitis
        applies one of the two to a dimension, and arraypart models the reshape's words
        alone, so the partition leaves the model and the emitted code (the report, the
        kernel's comment and the emitted pragmas named it while only the reshape was
        emitted, probe 36 F4).  A partition ``off=true`` asks for no banks: it stays."""
        reshaped = array.reshaped_dims()
        dims = range(len(array.shape))
        kept = []
        for p in array.partitions:
            taken = sorted(reshaped & frozenset(dims if p.dim == 0 else (p.dim - 1,)))
            if p.off or not taken:
                kept.append(p)
                continue
            reshape = next(r for r in array.reshapes
                           if r.dim == 0 or r.dim - 1 in taken)
            what = "dimension" if len(taken) == 1 else "dimensions"
            self._warnings.append(warning_text(p.coord, (
                f"array_partition of {array.name} is dropped: {array.name} is also "
                f"reshaped on {what} {', '.join(str(d + 1) for d in taken)} "
                f"(array_reshape at {reshape.coord}), and Vitis applies one of the two "
                "per dimension; arraypart keeps the reshape, models its words alone and "
                "leaves this partition out of the emitted code")))
        self._arrays[array.name] = replace(array, partitions=tuple(kept))

    def _product_size(self, node: N.Node) -> tuple[E.Expr] | None:
        """A bound ``a * b`` of sizes (and constants) is not affine; its value is a size
        of its own, named by the product (``size*size``), that the loop's LOOP_TRIPCOUNT
        or the arrays it indexes bound.  None for any other expression."""
        leaves = _product_leaves(node)
        if (leaves is None or not any(isinstance(leaf, N.Id) for leaf in leaves)
                or len(self._calls) > 1):
            return None  # sizes are the top function's parameters
        words = []
        for leaf in leaves:
            if isinstance(leaf, N.Id) and leaf.name in self._sizes:
                words.append(leaf.name)
            elif (value := fold(leaf, self._scope())) is not None and value >= 0:
                words.append(str(value))
            else:
                return None
        # a name is a size's name in isl too, which refuses one that starts as a number
        name = "*".join(sorted(words, key=lambda word: word[0].isdigit()))
        if name not in self._sizes:
            self._sizes[name] = node.coord
            self._ranges[name] = (0, None)
        return (E.var(name),)

    def _fresh_size(self, node: N.Node, what: str, body: list[N.Node], *,
                    upper: bool) -> tuple[E.Expr]:
        """A loop ``what`` (start or bound) that is not affine, as a fresh size
        (:mod:`.fresh`): ranged by interval arithmetic where it can be, else left to
        LOOP_TRIPCOUNT and the arrays.  ``upper``: the end that widens the domain as it
        grows (its least value may then be taken as 0)."""
        name = F.size_name(node, self._source)
        text = name.split(F.NAME_MARK)[0]
        text = "" if text == UNKNOWN_TEXT else f" '{text}'"  # the error is at the expression
        changed = F.changed_names(node, body, self._scalars | set(self._sizes),
                                  self._callees)
        if changed:
            names = ", ".join(f"'{n}'" for n in changed)
            raise KernelError(node.coord, (
                f"loop {what}{text} is not affine and the loop changes {names}: "
                "arraypart can stand for a loop's start or bound by a size of its own "
                "only when the loop leaves what it reads unchanged (else write it as an "
                "affine expression, or a min()/max() of such)"))
        if not upper and self._unrolled:
            raise KernelError(node.coord, (
                f"loop {what}{text} is not affine and the loop lies in an unrolled "
                "loop, whose lanes would run it from different values together: give "
                "it an affine start"))
        if name not in self._sizes:
            self._sizes[name] = node.coord
            self._ranges[name] = (0, None) if upper else (None, None)
            arrays = {c_name: self._visible[c_name].array for c_name in (
                N.ref_name(r) for r in N.outer_array_refs(node)) if c_name in self._visible}
            # an opaque scalar reads as its value range (k = 0 or k = 1 on two paths)
            self._fresh[name] = (node, self._range_scope(), upper, arrays)
        return (E.var(name),)


def _caller_partitions(partition: PartitionPragma, rows: int,
                       rank: int) -> tuple[PartitionPragma, ...]:
    """``partition`` of a parameter that a call binds to rows of a rank-``rank``
    array, the first ``rows`` indices fixed: dimension ``d`` of the parameter is
    dimension ``d + rows`` of the array, and ``dim=0`` (every dimension of the
    parameter) is each of dimensions ``rows + 1 .. rank`` (a whole array, ``rows``
    0: the pragma itself)."""
    if not rows:
        return (partition,)
    dims = range(rows + 1, rank + 1) if partition.dim == 0 else (partition.dim + rows,)
    return tuple(replace(partition, dim=d) for d in dims)


def _clash_text(kind: str, variable: str, name: str, partition: PartitionPragma,
                clash: PartitionPragma) -> str:
    """The error for a parameter's ``partition`` of array ``name`` that the pragma
    ``clash`` (at the array's definition or on another function's parameter)
    contradicts."""
    return (f"{kind} on '{variable}' ({_written_partition(partition)} of '{name}') "
            f"contradicts the pragma at {clash.coord} ({_written_partition(clash)}): "
            f"Vitis documents no rule for which of two partitions of one array wins, "
            f"so arraypart cannot tell the banks; keep one of the two (delete the "
            f"other, or write the same type, factor and dim in both)")


def _written_partition(partition: PartitionPragma) -> str:
    """``cyclic factor=4 dim=1`` as a pragma writes it."""
    factor = f" factor={partition.factor}" if partition.factor else ""
    return f"{partition.type}{factor} dim={partition.dim}"


def _array_map_warning(coord, pragma) -> str:
    """ARRAY_MAP (Vivado HLS; later Vitis releases dropped it) makes several arrays one
    memory, whose ports their accesses then share: arraypart banks each array as its
    own memory, so an II it reports for a loop that uses two of them may not hold."""
    variable = pragma.option("variable") or "?"
    instance = pragma.option("instance") or "?"
    return warning_text(coord, (
        f"array_map of '{variable}' into '{instance}' is not modelled: arraypart banks "
        f"'{variable}' as a memory of its own and keeps the pragma; where Vivado HLS maps "
        f"the arrays into one memory, a loop that accesses two of them shares its ports, "
        f"so the II reported for it need not hold (remove the array_map to have each "
        f"array banked as reported)"))


def _fewer_ports(first: str, second: str) -> str:
    """Of two port models, the one that serves less: fewer ports, then fewer that
    read, then fewer that write (ram_s2p before ram_2p, ram_1p before both); an
    unbounded count (rom_np) counts as more than any."""
    def serves(name: str) -> tuple[float, float, float]:
        model = PORT_MODELS[name]
        read = math.inf if model.read_only is None else model.read_only
        return (model.read_write + read + model.write_only, model.read_write + read,
                model.read_write + model.write_only)
    return min((first, second), key=serves)


def _numbered(stem: str) -> Iterator[str]:
    """``stem``, ``stem2``, ``stem3``, ..."""
    yield stem
    yield from (f"{stem}{k}" for k in itertools.count(2))


def _untexted(init: N.Node) -> bool:
    """Some element of the initializer ``init`` has no text of its own in the kernel
    file (``{`` / ``#include "coef.inc"`` / ``}``, a macro's body)."""
    if isinstance(init, N.InitList):
        return any(_untexted(item) for item in init.exprs)
    return init.start < 0 or init.end <= init.start


def stream_alias(decl: N.Decl) -> bool:
    """A declared stream is a reference or pointer to another (no FIFO of its own)."""
    return decl.ctype.clang.kind in _ALIAS_KINDS


def _used_variables(nodes: tuple[Node, ...]) -> set[str]:
    """Every variable of the loop bounds, guards and indices of ``nodes``."""
    used: set[str] = set()
    for node in nodes:
        if isinstance(node, Loop):
            for e in node.init + node.bound:
                used |= E.variables(e)
            used |= _used_variables(node.body)
        elif isinstance(node, If):
            for conj in node.cond or ():
                for c in conj:
                    used |= E.variables(c.expr)
            for access in node.cond_accesses:
                used |= _index_variables(access)
            used |= _used_variables(node.then + node.orelse)
        else:
            for access in node.accesses:
                used |= _index_variables(access)
    return used


def _written_arrays(nodes: tuple[Node, ...]) -> set[str]:
    """The arrays some access of ``nodes`` writes."""
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, Loop):
            found |= _written_arrays(node.body)
        elif isinstance(node, If):
            found |= _written_arrays(node.then + node.orelse)
        else:
            found |= {a.array for a in node.accesses if a.kind == "write"}
    return found


def _index_variables(access: Access) -> set[str]:
    return set().union(*(E.variables(e) for e in access.index if e is not None))


def _only_dereferenced(body: N.Node, name: str) -> bool:
    """Every use of ``name`` in ``body`` (if any) is ``*name``: element 0 alone."""
    uses = sum(1 for n in N.walk(body) if isinstance(n, N.Id) and n.name == name)
    derefs = sum(1 for n in N.walk(body) if isinstance(n, N.UnaryOp) and n.op == "*"
                 and isinstance(n.expr, N.Id) and n.expr.name == name)
    return uses == derefs


def _product_leaves(node: N.Node) -> list[N.Node] | None:
    """The factors of ``a * b * ...`` (at least two), else None."""
    if not (isinstance(node, N.BinaryOp) and node.op == "*"):
        return None
    leaves = []
    for side in (node.left, node.right):
        inner = _product_leaves(side)
        leaves += inner if inner is not None else [side]
    return leaves


def _scoped_pragmas(node: N.Node, names: Mapping[str, Binding],
                    declared) -> Iterator[tuple[N.Pragma, Mapping[str, Binding]]]:
    """Each pragma under ``node`` (pre-order) with the arrays its place sees: a local
    declaration binds the names ``declared`` gives for it from there to the end of
    its block."""
    if isinstance(node, N.Pragma):
        yield node, names
    elif isinstance(node, N.Compound):
        for item in node.items:
            if isinstance(item, N.DeclList):
                names = {**names, **{k: v for d in item.decls
                                     for k, v in declared(d).items()}}
            yield from _scoped_pragmas(item, names, declared)
    else:
        for child in node.children():
            if child is not None:
                yield from _scoped_pragmas(child, names, declared)
