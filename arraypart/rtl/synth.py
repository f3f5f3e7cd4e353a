"""``synthesize``: yosys ``synth_xilinx`` on a memory's Verilog, counted as LUT/FF/BRAM/DSP.

The target is the UltraScale+ family (``-family xcup``) of the default part
(:data:`arraypart.codegen.DEFAULT_PART`).  Cells are counted as Vivado's utilization
report counts them: LUTs used as logic, plus LUTs used as distributed RAM or shift
registers (:data:`LUTS_PER_CELL`); flip-flops; BRAM18K (a RAMB36 is two); DSP slices.

Results are cached by the SHA-256 of the yosys version, the script and the design's
text (and init files), in ``$ARRAYPART_CACHE`` or the user's cache folder
(``$XDG_CACHE_HOME/arraypart`` or ``~/.cache/arraypart``), so a repeated run is instant.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .model import Memory
from .verilog import module_name, render

#: LUTs per distributed-RAM, ROM-free shift-register or LUT primitive of UltraScale+
#: (UG574: a RAM64M8 is the eight LUTs of one SLICEM, a RAM32M16 likewise; RAMnnX1D
#: pairs two LUTs; a 128- or 256-deep single-port RAM spans two or four LUTs).
LUTS_PER_CELL = {
    "RAM16X1S": 1, "RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1S": 2, "RAM256X1S": 4,
    "RAM512X1S": 8, "RAM16X1D": 2, "RAM32X1D": 2, "RAM64X1D": 2, "RAM128X1D": 4,
    "RAM256X1D": 8, "RAM32M": 4, "RAM64M": 4, "RAM32M16": 8, "RAM64M8": 8,
    "SRL16E": 1, "SRLC16E": 1, "SRLC32E": 1,
}
BRAM18K_PER_CELL = {"RAMB18E1": 1, "RAMB18E2": 1, "RAMB36E1": 2, "RAMB36E2": 2}
SCRIPT = ("read_verilog {file}; synth_xilinx -family xcup -flatten -noiopad -top {top}; "
          "tee -q -o {stat} stat")
#: Seed of the pseudo-random content given to ROM banks (a ROM's words are part of its
#: design: constant words would be optimized away).
ROM_SEED = 7


@dataclass(frozen=True, slots=True)
class Resources:
    """LUTs, flip-flops, 18Kb BRAMs and DSP slices of one memory; ``source`` says
    where the numbers come from (``yosys`` or ``model``)."""

    lut: int
    ff: int
    bram18k: int
    dsp: int
    source: str

    def to_json(self) -> dict:
        return asdict(self)

    def __add__(self, other: "Resources") -> "Resources":
        source = self.source if self.source == other.source else "mixed"
        return Resources(self.lut + other.lut, self.ff + other.ff,
                         self.bram18k + other.bram18k, self.dsp + other.dsp, source)


class SynthesisError(RuntimeError):
    """yosys is not installed (a failed synthesis of arraypart's own Verilog is an
    internal error)."""


def cache_dir() -> Path:
    env = os.environ.get("ARRAYPART_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arraypart"


@lru_cache(maxsize=1)
def yosys_version() -> str:
    try:
        return subprocess.run(["yosys", "-V"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as error:
        raise SynthesisError(f"yosys is not available: {error}") from None


def synthesize(mem: Memory, *, cache: Path | None = None) -> Resources:
    """yosys' count for ``mem``'s Verilog (cached)."""
    return synthesize_many([mem], cache=cache)[0]


def synthesize_many(mems: list[Memory], *, cache: Path | None = None) -> list[Resources]:
    """``synthesize`` for several memories in one yosys run (each memory is its own
    module, kept apart by ``keep_hierarchy``; the Xilinx cell library is read once)."""
    return synthesize_designs([design(mem) for mem in mems], cache=cache)


def design(mem: Memory) -> "_Design":
    """``mem``'s Verilog, top module and ROM files: plain data, to synthesize elsewhere
    (another process) with :func:`synthesize_designs`."""
    init = _rom_content(mem)
    text = render(mem, init={key: name for key, (name, _) in init.items()})
    return _Design(text, module_name(mem), {name: data for name, data in init.values()})


@dataclass(frozen=True)
class _Design:
    text: str
    top: str
    files: dict[str, str]

    def digest(self) -> str:
        h = hashlib.sha256()
        for part in (yosys_version(), SCRIPT, self.top, self.text, *sorted(self.files.items())):
            h.update(repr(part).encode())
        return h.hexdigest()


def synthesize_text(text: str, top: str, files: dict[str, str] | None = None, *,
                    cache: Path | None = None) -> Resources:
    """yosys' count for the Verilog ``text`` with top module ``top``; ``files`` are
    extra files (name -> text) the design reads, e.g. ``$readmemh`` content."""
    return synthesize_designs([_Design(text, top, files or {})], cache=cache)[0]


def synthesize_designs(designs: list[_Design], *, cache: Path | None = None) -> list[Resources]:
    folder = (cache or cache_dir()) / "synth"
    digests = [d.digest() for d in designs]
    results: dict[str, Resources] = {}
    todo = {}
    for d, digest in zip(designs, digests):
        entry = folder / f"{digest}.json"
        if entry.exists():
            results[digest] = Resources(**json.loads(entry.read_text())["resources"])
        else:
            todo[digest] = d
    if todo:
        stats = _run_yosys(todo)
        folder.mkdir(parents=True, exist_ok=True)
        for digest, stat in stats.items():
            results[digest] = count_cells(stat)
            entry = folder / f"{digest}.json"
            staging = entry.with_suffix(f".{os.getpid()}.tmp")
            staging.write_text(json.dumps({"resources": results[digest].to_json(),
                                           "stat": stat}))
            os.replace(staging, entry)
    return [results[d] for d in digests]


def _run_yosys(designs: dict[str, _Design]) -> dict[str, str]:
    """One yosys run over ``designs`` (digest -> design): digest -> its stat text."""
    texts, wrapper_ports, instances, names = [], [], [], {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for n, (digest, d) in enumerate(designs.items()):
            tag = f"u{n}_"
            top = f"{tag}{d.top}"
            names[top] = digest
            text = re.sub(r"\b(ap_mem_\w+)", lambda m: tag + m.group(1), d.text)
            for name, data in d.files.items():
                (tmp / f"{tag}{name}").write_text(data)
                text = text.replace(f'"{name}"', f'"{tag}{name}"')
            text = text.replace(f"module {top} (", f"(* keep_hierarchy *)\nmodule {top} (")
            texts.append(text)
            connections = []
            for direction, width, port in _top_ports(text, top):
                wire = f"{tag}{port}"
                wrapper_ports.append(f"{direction} wire {width} {wire}")
                connections.append(f".{port}({wire})")
            instances.append(f"{top} i_{top} ({', '.join(connections)});")
        wrapper = ("module ap_batch (\n    " + ",\n    ".join(wrapper_ports) + "\n);\n    "
                   + "\n    ".join(instances) + "\nendmodule\n")
        (tmp / "design.v").write_text("\n".join(texts) + "\n" + wrapper)
        script = SCRIPT.format(file="design.v", top="ap_batch", stat="stat.txt")
        run = subprocess.run(["yosys", "-q", "-p", script], cwd=tmp, capture_output=True,
                             text=True)
        if run.returncode != 0:  # arraypart's own Verilog: an internal error
            raise RuntimeError(f"yosys rejected arraypart's RTL model: "
                               f"{(run.stderr or run.stdout).strip()[-2000:]}")
        stat = (tmp / "stat.txt").read_text()
    sections = re.split(r"^=== (.+) ===$", stat, flags=re.M)
    found = {sections[i]: sections[i + 1] for i in range(1, len(sections) - 1, 2)}
    return {digest: found.get(top, "") for top, digest in names.items()}


def _top_ports(text: str, top: str) -> list[tuple[str, str, str]]:
    """``(direction, "[msb:0]" or "", name)`` of module ``top``'s ports."""
    header = text[text.index(f"module {top} ("):]
    header = header[:header.index(");")]
    return [(m.group(1), m.group(2) or "", m.group(3)) for m in re.finditer(
        r"(input|output) wire (\[\d+:0\] )?(\w+)", header)]


def count_cells(stat: str) -> Resources:
    """LUT/FF/BRAM18K/DSP of a yosys ``stat`` listing of Xilinx cells."""
    cells: dict[str, int] = {}
    for name, count in re.findall(r"^\s+([A-Z][A-Z0-9_]*)\s+(\d+)\s*$", stat, re.M):
        cells[name] = cells.get(name, 0) + int(count)
    lut = sum(n for c, n in cells.items() if re.fullmatch(r"LUT\d(_\d)?", c))
    lut += sum(LUTS_PER_CELL.get(c, 0) * n for c, n in cells.items())
    ff = sum(n for c, n in cells.items() if re.fullmatch(r"FD[A-Z]*", c))
    bram = sum(BRAM18K_PER_CELL.get(c, 0) * n for c, n in cells.items())
    dsp = sum(n for c, n in cells.items() if c.startswith("DSP48"))
    return Resources(lut, ff, bram, dsp, "yosys")


def _rom_content(mem: Memory) -> dict[tuple[int, int], tuple[str, str]]:
    """Pseudo-random words for every bank the loops only read (a ROM, or an array
    filled elsewhere): (copy, bank) -> (file name, text)."""
    if mem.writes:
        return {}
    rng = np.random.default_rng(ROM_SEED)
    out = {}
    for c in range(mem.copies):
        for b in range(mem.banks):
            words = rng.integers(0, 1 << min(mem.elem_bits, 62), size=mem.depth)
            out[c, b] = (f"rom_c{c}_b{b}.hex", "".join(f"{int(w):x}\n" for w in words))
    return out
