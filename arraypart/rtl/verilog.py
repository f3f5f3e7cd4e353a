"""``render``: the synthesizable Verilog of a :class:`~.model.Memory` (templates/memory.v.j2).

Nets, per lane k: ``l<k>_i<d>`` the element index, ``l<k>_bank`` and ``l<k>_off`` the
scheme's bank and offset (:func:`arraypart.expr.to_verilog`); per copy c, bank b and
port p: ``c<c>b<b>_h<k>`` lane k requests the bank, ``..._f<p>_<k>`` port p takes lane
k's request, ``..._v<p>_<k>`` port p serves lane k (its own request or a shared read),
``..._a<p>``, ``..._we<p>``, ``..._d<p>``, ``..._q<p>`` the port's address, write
enable, write data and read data.  The selection rule is in :mod:`.model`.
"""

from __future__ import annotations

from dataclasses import dataclass
from .. import expr as E
from ..scheme import index_var
from ..templating import environment
from .model import Memory, address_bits, bank_bits


@dataclass(frozen=True, slots=True)
class PortWiring:
    """One port of one bank instance: its role and nets (None: the role lacks it)."""

    role: str
    address: str
    write_enable: str | None
    write_data: str | None
    read_data: str | None


@dataclass(frozen=True, slots=True)
class BankInstance:
    name: str
    module: str
    ports: tuple[PortWiring, ...]
    init: str | None


def module_name(mem: Memory) -> str:
    """The memory's module: a Verilog identifier also for a struct's array field
    (``w.buf``: ``ap_mem_w__buf``)."""
    return f"ap_mem_{mem.name.replace('.', '__')}"


def port_list(mem: Memory, *, observe: bool = False) -> list[tuple[str, int, str]]:
    """``(direction, bits, name)`` of every port of ``render(mem, observe=...)``."""
    writer = _Writer(mem, observe, {})
    writer._inputs()
    out = []
    for decl in writer.ports:
        words = decl.split()
        bits = int(words[2][1:].split(":")[0]) + 1 if words[2].startswith("[") else 1
        out.append((words[0], bits, words[-1]))
    return out


def render(mem: Memory, *, observe: bool = False,
           init: dict[tuple[int, int], str] | None = None) -> str:
    """The Verilog text of ``mem``: the module ``ap_mem_<array>`` and its bank modules.

    ``observe`` adds outputs ``bank<k>``/``off<k>`` per lane (for simulation);
    ``init`` gives a ``$readmemh`` file per (copy, bank): required for ROMs (their
    content is part of the design), optional for RAMs.
    """
    writer = _Writer(mem, observe, init or {})
    return environment().get_template("memory.v.j2").render(writer.context())


class _Writer:
    """One rendering: ports, nets and bank instances of ``mem`` (local to a call)."""

    def __init__(self, mem: Memory, observe: bool, init: dict[tuple[int, int], str]):
        self.mem, self.observe, self.init = mem, observe, init
        self.drain = not any(lane.kind == "read" for lane in mem.lanes)
        self.ports: list[str] = ["input wire clk"]
        self.lines: list[str] = []
        self.readback: dict[int, list[tuple[str, str]]] = {}
        self.banks: list[BankInstance] = []
        self.aw, self.bw, self.w = address_bits(mem), bank_bits(mem), mem.elem_bits

    def context(self) -> dict:
        mem = self.mem
        self._inputs()
        for k in range(len(mem.lanes)):
            self._lane(k)
        for c in range(mem.copies):
            for b in range(mem.banks):
                self._bank(c, b)
        self._read_data()
        if self.drain:
            self._drain()
        modules = {}
        for inst in self.banks:
            modules.setdefault(inst.module, inst)
        return {"top": module_name(mem), "ports": self.ports, "lines": self.lines,
                "banks": self.banks, "modules": list(modules.values()),
                "depth": mem.depth, "aw": self.aw, "width": self.w,
                "style": mem.ram_style, "writable": mem.writes, "array": mem.name,
                "scheme": mem.banking.scheme.describe()}

    # ---------------------------------------------------------------- inputs and lanes

    def _inputs(self) -> None:
        mem = self.mem
        for group in mem.groups:
            for port, _ in group.vars:
                lo, hi = mem.ranges[port]
                self.ports.append(f"input wire [{E.range_bits(lo, hi) - 1}:0] {port}")
        for k, lane in enumerate(mem.lanes):
            self.ports.append(f"input wire en{k}")
            for e in lane.index:
                if isinstance(e, E.Var) and e.name not in _group_ports(mem):
                    self.ports.append(f"input wire [{E.range_bits(*mem.ranges[e.name]) - 1}:0] "
                                      f"{e.name}")
            if lane.kind == "write":
                self.ports.append(f"input wire [{self.w - 1}:0] wd{k}")
            else:
                self.ports.append(f"output wire [{self.w - 1}:0] rd{k}")
            if self.observe:
                self.ports.append(f"output wire [{self.bw - 1}:0] bank{k}")
                self.ports.append(f"output wire [{self.aw - 1}:0] off{k}")

    def _lane(self, k: int) -> None:
        mem, lane = self.mem, self.mem.lanes[k]
        xr = mem.element_ranges(lane)
        names = {}
        for d, e in enumerate(lane.index):
            v = E.to_verilog(e, mem.ranges, prefix=f"l{k}_t{d}_")
            lo, hi = xr[index_var(d)]
            self.lines.extend(v.wires)
            names[index_var(d)] = f"l{k}_i{d}"
            self.lines.append(f"wire [{E.range_bits(lo, hi) - 1}:0] l{k}_i{d} = "
                              f"{_slice(v, E.range_bits(lo, hi))};")
        off = E.to_verilog(mem.offset_formula, xr, names.get, prefix=f"l{k}_o")
        self.lines.extend(off.wires)
        self.lines.append(f"wire [{self.aw - 1}:0] l{k}_off = {_slice(off, self.aw)};")
        if lane.static:
            self.lines.append(f"wire [{self.bw - 1}:0] l{k}_bank = "
                              f"{self.bw}'d{lane.static_bank};")
        else:
            bank = E.to_verilog(mem.bank_formula, xr, names.get, prefix=f"l{k}_b")
            self.lines.extend(bank.wires)
            self.lines.append(f"wire [{self.bw - 1}:0] l{k}_bank = {_slice(bank, self.bw)};")
        if self.observe:
            self.lines.append(f"assign bank{k} = l{k}_bank;")
            self.lines.append(f"assign off{k} = l{k}_off;")

    # ---------------------------------------------------------------- one bank's selects

    def _bank(self, c: int, b: int) -> None:
        mem = self.mem
        cands = mem.candidates(c, b)
        roles = mem.roles(c, b)
        pre = f"c{c}b{b}_"
        for k in cands:
            lane = mem.lanes[k]
            request = f"en{k}" if lane.static else f"en{k} & (l{k}_bank == {self.bw}'d{b})"
            self.lines.append(f"wire {pre}h{k} = {request};")
        served: dict[int, list[str]] = {k: [] for k in cands}
        wiring = []
        port_lanes = mem.port_lanes(c, b)
        for p, role in enumerate(roles):
            mine = port_lanes[p]
            priority = any(k in lanes for lanes in port_lanes[p + 1:] for k in mine)
            takes = []
            for k in mine:
                free = f"{pre}h{k}" + "".join(f" & ~{s}" for s in served[k])
                self.lines.append(f"wire {pre}r{p}_{k} = {free};")
                take = f"{pre}r{p}_{k}" + "".join(f" & ~{pre}r{p}_{j}" for j in takes
                                                   ) if priority else f"{pre}r{p}_{k}"
                self.lines.append(f"wire {pre}f{p}_{k} = {take};")
                takes.append(k)
            address = _or_select([(f"{pre}f{p}_{k}", f"l{k}_off") for k in mine], self.aw,
                                 alone=True)
            self.lines.append(f"wire [{self.aw - 1}:0] {pre}a{p} = {address};")
            writes = [k for k in mine if mem.lanes[k].kind == "write"]
            reads = [k for k in mine if mem.lanes[k].kind == "read"]
            we = dw = q = None
            if "w" in role:
                we, dw = f"{pre}we{p}", f"{pre}d{p}"
                self.lines.append(f"wire {we} = {_or([f'{pre}f{p}_{k}' for k in writes])};")
                data = _or_select([(f"{pre}f{p}_{k}", f"wd{k}") for k in writes], self.w,
                                  alone=True)
                self.lines.append(f"wire [{self.w - 1}:0] {dw} = {data};")
            if "r" in role:
                q = f"{pre}q{p}"
                self.lines.append(f"wire [{self.w - 1}:0] {q};")
                for k in reads:
                    via = f"{pre}v{p}_{k}"
                    twins = [j for j in reads if j != k and self.mem.may_coincide(j, k)]
                    if priority and twins:
                        same = " | ".join(f"({pre}f{p}_{j} & (l{j}_off == l{k}_off))"
                                          for j in twins)
                        share = f"{pre}h{k}" + "".join(f" & ~{s}" for s in served[k])
                        self.lines.append(f"wire {via} = {pre}f{p}_{k} | ({share} & ({same}));")
                    else:
                        self.lines.append(f"wire {via} = {pre}f{p}_{k};")
                    self.readback.setdefault(k, []).append((via, q))
            for k in mine:
                served[k].append(f"{pre}v{p}_{k}" if mem.lanes[k].kind == "read" and q
                                 else f"{pre}f{p}_{k}")
            wiring.append(PortWiring(role, f"{pre}a{p}", we, dw, q))
        module = self._bank_module(c, b)
        self.banks.append(BankInstance(f"bank_c{c}_b{b}", module, tuple(wiring),
                                       self.init.get((c, b))))

    def _bank_module(self, c: int, b: int) -> str:
        roles = "_".join(self.mem.roles(c, b))
        if (c, b) in self.init:
            return f"{module_name(self.mem)}_rom_c{c}_b{b}"
        return f"{module_name(self.mem)}_ram_{roles}"

    def _drain(self) -> None:
        """A memory the loops only write is read elsewhere: each bank's first
        read-write port (else its first read port) becomes an output, so synthesis
        keeps the banks."""
        for inst in self.banks:
            q = next((p.read_data for p in inst.ports if p.read_data and p.write_enable),
                     next((p.read_data for p in inst.ports if p.read_data), None))
            if q is not None:
                self.ports.append(f"output wire [{self.w - 1}:0] drain_{inst.name}")
                self.lines.append(f"assign drain_{inst.name} = {q};")

    def _read_data(self) -> None:
        """Each read lane's data: the port that served it, selected a cycle later."""
        for k, lane in enumerate(self.mem.lanes):
            if lane.kind != "read":
                continue
            sources = self.readback.get(k, [])
            if len(sources) == 1:
                self.lines.append(f"assign rd{k} = {sources[0][1]};")
                continue
            picks = []
            for n, (via, q) in enumerate(sources):
                self.lines.append(f"reg l{k}_s{n};")
                self.lines.append(f"always @(posedge clk) l{k}_s{n} <= {via};")
                picks.append((f"l{k}_s{n}", q))
            self.lines.append(f"assign rd{k} = {_or_select(picks, self.w)};")


def _group_ports(mem: Memory) -> set[str]:
    return {port for g in mem.groups for port, _ in g.vars}


def _or(terms: list[str]) -> str:
    return " | ".join(terms) if terms else "1'b0"


def _or_select(pairs: list[tuple[str, str]], width: int, *, alone: bool = False) -> str:
    """``OR over (select ? value : 0)``: an AND-OR multiplexer with one-hot selects.
    ``alone``: a single value needs no gate (an address or write data matters only
    while its port is enabled)."""
    if not pairs:
        return f"{width}'d0"
    if alone and len(pairs) == 1:
        return pairs[0][1]
    return " | ".join(f"({{{width}{{{s}}}}} & {v})" for s, v in pairs)


def _slice(v: E.Verilog, width: int) -> str:
    """``v`` as ``width`` bits (its value is known to fit)."""
    if v.lo == v.hi:
        return f"{width}'d{v.lo % (1 << width)}"
    if v.width == width:
        return v.result
    if v.width > width:
        return f"{v.result}[{width - 1}:0]"
    return f"{{{width - v.width}'d0, {v.result}}}" if v.lo >= 0 else (
        f"{{{{{width - v.width}{{{v.result}[{v.width - 1}]}}}}, {v.result}}}")
