"""The public-kernel corpus: its manifest, its files, and what clang and g++ make of it.

The corpus (``tests/data/public/``) is a set of HLS kernels written by others, kept byte for
byte as upstream has them. ``MANIFEST.toml`` lists, per kernel, its upstream repository,
commit, path and licence, its top function, the files it needs (with their sha256) and the
HLS constructs it uses. The kernel sources themselves are not committed: ``materialize``
copies them, and each source's licence text, out of the repository snapshots that the
``fetch`` tool brought to ``/work/.mirror`` and checks every file against its sha256.

Usage::

    python bench/corpus.py                  # table: clang and g++ verdicts, constructs
    python bench/corpus.py materialize      # write the corpus files from the mirrors
    python bench/corpus.py analyze          # arraypart compile on each kernel, g++ on
                                            # its output: analysed / located error / crash
    python bench/corpus.py --kernel ID ...  # only these kernels

Each kernel is (a) parsed by libclang with the bundled stand-in Vitis headers, the kernel's
own folder and its manifest include folders on the include path (C++14, or C99 for ``.c``),
and (b) checked by ``g++ -std=c++14 -fsyntax-only`` (a ``.c`` kernel also by ``gcc -std=c99``)
with the same include path. Constructs are found in the clang AST (and the pragma lines) of the
kernel's own files, never of the headers it takes from the system or the stand-ins.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "public"
MANIFEST = CORPUS / "MANIFEST.toml"
STANDINS = ROOT / "arraypart" / "include"
MIRRORS = Path("/work/.mirror")

CXX_STD = "c++14"
C_STD = "c99"
# Seconds one g++ syntax check may take before it counts as failed (the largest corpus
# kernel takes well under one second).
GXX_TIMEOUT_S = 60
# Seconds one testbench build (g++ with AddressSanitizer) or run may take.
TESTBENCH_TIMEOUT_S = 300

# Every construct name the table and the manifest use, in the order they are printed.
CONSTRUCTS = (
    "extern_c", "namespace", "using_namespace", "template", "auto", "constexpr", "struct",
    "reference_param",
    "pointer_param", "ap_int", "ap_fixed", "hls_stream", "hls_vector", "axis",
    "m_axi", "runtime_bound", "sub_function", "local_array", "memcpy", "while_loop",
    "multi_iterator_for", "label", "pragma_pipeline", "pragma_unroll",
    "pragma_array_partition", "pragma_dataflow", "pragma_tripcount", "directives_file",
)

PRAGMA_RE = re.compile(r"^\s*#\s*pragma\s+HLS\s+(\w+)(.*)$", re.IGNORECASE | re.MULTILINE)
TCL_DIRECTIVE_RE = re.compile(r"^\s*set_directive_(\w+)(.*)$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Source:
    """One upstream repository the corpus takes kernels from."""
    name: str
    repo: str
    commit: str
    license: str
    license_file: str


@dataclass(frozen=True, slots=True)
class Kernel:
    """One corpus kernel: ``path`` and every other path are relative to the corpus root."""
    id: str
    source: str
    path: str
    upstream_path: str
    top: str
    files: tuple[str, ...]
    include_dirs: tuple[str, ...]
    defines: tuple[str, ...]
    directives: str | None
    constructs: tuple[str, ...]

    @property
    def is_c(self) -> bool:
        return self.path.endswith(".c")


@dataclass(frozen=True, slots=True)
class Manifest:
    sources: dict[str, Source]
    kernels: tuple[Kernel, ...]
    sha256: dict[str, str]


def load_manifest(path: Path = MANIFEST) -> Manifest:
    data = tomllib.loads(path.read_text())
    sources = {s["name"]: Source(s["name"], s["repo"], s["commit"], s["license"],
                                 s["license_file"]) for s in data["source"]}
    kernels = tuple(Kernel(
        id=k["id"], source=k["source"], path=k["path"], upstream_path=k["upstream_path"],
        top=k["top"], files=tuple(k["files"]), include_dirs=tuple(k.get("include_dirs", ())),
        defines=tuple(k.get("defines", ())), directives=k.get("directives"),
        constructs=tuple(k.get("constructs", ()))) for k in data["kernel"])
    return Manifest(sources, kernels, dict(data["sha256"]))


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def needed_files(manifest: Manifest) -> list[str]:
    """Every corpus file: the kernels' files, directives files and licence texts."""
    paths = {f for k in manifest.kernels for f in k.files}
    paths |= {k.directives for k in manifest.kernels if k.directives}
    paths |= {f"{s.name}/{s.license_file}" for s in manifest.sources.values()}
    return sorted(paths)


def is_materialized(root: Path, manifest: Manifest) -> bool:
    return all((root / p).is_file() for p in needed_files(manifest))


def mirror_git_dir(source: Source, mirrors: Path = MIRRORS) -> Path:
    return mirrors / source.repo.replace("/", "+") / "repo"


def can_materialize(manifest: Manifest, mirrors: Path = MIRRORS) -> bool:
    return shutil.which("git") is not None and all(
        mirror_git_dir(s, mirrors).is_dir() for s in manifest.sources.values())


def materialize(dest: Path, manifest: Manifest, mirrors: Path = MIRRORS) -> list[str]:
    """Write every corpus file under ``dest`` from the mirrored upstream commits.

    Returns the paths whose content does not match the manifest's sha256 (empty when the
    corpus is byte-identical to upstream)."""
    mismatched = []
    for rel in needed_files(manifest):
        source = manifest.sources[rel.split("/", 1)[0]]
        upstream = rel.split("/", 1)[1]
        blob = subprocess.run(
            ["git", f"--git-dir={mirror_git_dir(source, mirrors)}", "show",
             f"{source.commit}:{upstream}"], capture_output=True, check=True).stdout
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)
        if rel in manifest.sha256 and hashlib.sha256(blob).hexdigest() != manifest.sha256[rel]:
            mismatched.append(rel)
    return mismatched


@lru_cache(maxsize=1)
def compiler_builtin_include() -> str | None:
    """GCC's own header folder (stddef.h, stdarg.h, ...).

    The PyPI libclang wheel ships libclang.so without clang's resource headers, so
    ``#include <stddef.h>`` fails unless some compiler's builtin headers are on the path."""
    gcc = shutil.which("gcc")
    if gcc is None:
        return None
    found = subprocess.run([gcc, "-print-file-name=include"], capture_output=True,
                           text=True).stdout.strip()
    return found if Path(found, "stddef.h").is_file() else None


def include_args(kernel: Kernel, root: Path) -> list[str]:
    kernel_dir = (root / kernel.path).parent
    args = [f"-I{STANDINS}", f"-I{kernel_dir}"]
    args += [f"-I{root / d}" for d in kernel.include_dirs]
    args += [f"-D{d}" for d in kernel.defines]
    return args


def clang_args(kernel: Kernel, root: Path) -> list[str]:
    lang = ["-x", "c", f"-std={C_STD}"] if kernel.is_c else ["-x", "c++", f"-std={CXX_STD}"]
    builtin = compiler_builtin_include()
    return lang + include_args(kernel, root) + (["-isystem", builtin] if builtin else [])


def parse(kernel: Kernel, root: Path, *, detailed: bool = False):
    """The libclang translation unit of a kernel and its errors as ``file:line:col: msg``."""
    from clang import cindex
    options = cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD if detailed else 0
    tu = cindex.Index.create().parse(str(root / kernel.path), args=clang_args(kernel, root),
                                     options=options)
    errors = [f"{d.location.file}:{d.location.line}:{d.location.column}: {d.spelling}"
              for d in tu.diagnostics if d.severity >= cindex.Diagnostic.Error]
    return tu, errors


def gxx_check(kernel: Kernel, root: Path) -> list[str]:
    """Error lines of ``g++ -std=c++14 -fsyntax-only``; empty when it passes. A C kernel is
    checked as C99 by gcc and also as C++14 by g++, since arraypart emits C++ from it."""
    commands = [["g++", f"-std={CXX_STD}", "-x", "c++"]]
    if kernel.is_c:
        commands.insert(0, ["gcc", f"-std={C_STD}", "-x", "c"])
    errors = []
    for command in commands:
        done = subprocess.run([*command, "-fsyntax-only", *include_args(kernel, root),
                               str(root / kernel.path)], capture_output=True, text=True,
                              timeout=GXX_TIMEOUT_S)
        if done.returncode != 0:
            errors += [f"{command[0]}: {line}" for line in done.stderr.splitlines()
                       if "error" in line] or [done.stderr]
    return errors


@lru_cache(maxsize=4096)
def _resolved(name: str) -> str:
    return str(Path(name).resolve())


def _own_file(cursor, own: set[str]) -> bool:
    loc = cursor.location
    return loc.file is not None and _resolved(loc.file.name) in own


def _walk(cursor):
    """The cursor and its descendants, except the elements of initializer lists (tables of
    thousands of constants that hold no construct and would dominate the walk)."""
    from clang.cindex import CursorKind
    yield cursor
    if cursor.kind == CursorKind.INIT_LIST_EXPR:
        return
    for child in cursor.get_children():
        yield from _walk(child)


def own_cursors(tu, own: set[str]):
    """Every cursor of the kernel's own files: subtrees declared in other files (the system
    and stand-in headers) are skipped whole, which keeps a walk of an <iostream> user fast."""
    for top_level in tu.cursor.get_children():
        if _own_file(top_level, own):
            yield from _walk(top_level)


def own_files(kernel: Kernel, root: Path) -> set[str]:
    return {str((root / f).resolve()) for f in kernel.files}


def find_top(tu, name: str, own: set[str]):
    """The definition of the top function ``name`` (inside extern "C" and namespaces)."""
    from clang.cindex import CursorKind
    scopes = (CursorKind.LINKAGE_SPEC, CursorKind.NAMESPACE, CursorKind.UNEXPOSED_DECL)
    todo = [c for c in tu.cursor.get_children() if _own_file(c, own)]
    while todo:
        c = todo.pop(0)
        if c.kind == CursorKind.FUNCTION_DECL and c.spelling == name and c.is_definition():
            return c
        if c.kind in scopes:
            todo[:0] = list(c.get_children())
    return None


def reachable_functions(top, own: set[str]):
    """``top`` and every function of the kernel's own files it calls, transitively, each
    with the list of its cursors (walked once)."""
    from clang.cindex import CursorKind
    callable_kinds = (CursorKind.FUNCTION_DECL, CursorKind.FUNCTION_TEMPLATE,
                      CursorKind.CXX_METHOD)
    seen, todo, result = {top.hash}, [top], []
    while todo:
        fn = todo.pop(0)
        cursors = list(_walk(fn))
        result.append((fn, cursors))
        for c in cursors:
            if c.kind != CursorKind.CALL_EXPR or c.referenced is None:
                continue
            target = c.referenced.get_definition() or c.referenced
            if target.kind in callable_kinds and target.hash not in seen and \
                    target.is_definition() and _own_file(target, own):
                seen.add(target.hash)
                todo.append(target)
    return result


def _called_definitions(fn, own: set[str]):
    """Functions defined in the kernel's own files that ``fn`` calls, transitively."""
    return [f for f, _ in reachable_functions(fn, own)[1:]]


def _type_names(cursor) -> str:
    return f"{cursor.type.spelling} {cursor.type.get_canonical().spelling}"


def constructs_of(kernel: Kernel, root: Path, tu) -> tuple[str, ...]:
    """The HLS constructs the kernel's own files use (names from ``CONSTRUCTS``)."""
    from clang.cindex import CursorKind, TypeKind
    own = own_files(kernel, root)
    found: set[str] = set()
    own_list = list(own_cursors(tu, own))
    type_text = " ".join(_type_names(c) for c in own_list
                         if c.kind in (CursorKind.VAR_DECL, CursorKind.PARM_DECL,
                                       CursorKind.FIELD_DECL, CursorKind.TYPEDEF_DECL,
                                       CursorKind.FUNCTION_DECL))
    type_text += " " + " ".join(c.spelling for c in own_list
                                if c.kind in (CursorKind.TYPE_REF, CursorKind.TEMPLATE_REF))
    for name, pattern in (("ap_int", r"\bap_u?int\b|\bap_u?int<"), ("ap_fixed", r"\bap_u?fixed"),
                          ("hls_stream", r"\bstream<"), ("hls_vector", r"hls::vector|\bvector<"),
                          ("axis", r"\bap_axi[su]\b|hls::axis\b")):
        if re.search(pattern, type_text):
            found.add(name)
    kinds = {c.kind for c in own_list}
    for kind, name in ((CursorKind.LINKAGE_SPEC, "extern_c"), (CursorKind.NAMESPACE, "namespace"),
                       (CursorKind.USING_DIRECTIVE, "using_namespace"),
                       (CursorKind.FUNCTION_TEMPLATE, "template"),
                       (CursorKind.CLASS_TEMPLATE, "template"),
                       (CursorKind.WHILE_STMT, "while_loop"), (CursorKind.DO_STMT, "while_loop"),
                       (CursorKind.LABEL_STMT, "label")):
        if kind in kinds:
            found.add(name)
    top = find_top(tu, kernel.top, own)
    text = "\n".join((root / f).read_text(errors="replace") for f in kernel.files)
    if re.search(r"\b(auto|constexpr)\b", text):  # tokenizing every declaration is slow
        for c in own_list:
            if c.kind == CursorKind.VAR_DECL:
                words = _words_before_name(c)
                found.update(w for w in ("auto", "constexpr") if w in words)
    if top is not None:
        for p in top.get_arguments():
            if p.type.kind == TypeKind.LVALUEREFERENCE:
                found.add("reference_param")
            if p.type.kind == TypeKind.POINTER:
                found.add("pointer_param")
        functions = reachable_functions(top, own)
        if len(functions) > 1:
            found.add("sub_function")
        for fn, cursors in functions:
            params = {c.hash for c in cursors if c.kind == CursorKind.PARM_DECL}
            for c in cursors:
                if c.kind in (CursorKind.VAR_DECL, CursorKind.PARM_DECL) and \
                        _own_record(c.type, own):
                    found.add("struct")
                if c.kind == CursorKind.VAR_DECL and c.type.kind == TypeKind.CONSTANTARRAY:
                    found.add("local_array")
                elif c.kind == CursorKind.CALL_EXPR and c.spelling == "memcpy":
                    found.add("memcpy")
                elif c.kind == CursorKind.FOR_STMT:
                    _for_constructs(c, params, found)
    pragmas = [(m.group(1).lower(), m.group(2)) for m in PRAGMA_RE.finditer(text)]
    if kernel.directives:
        directives_text = (root / kernel.directives).read_text(errors="replace")
        pragmas += [(m.group(1).lower(), m.group(2)) for m in
                    TCL_DIRECTIVE_RE.finditer(directives_text)]
        found.add("directives_file")
    for word, rest in pragmas:
        if word in ("pipeline", "unroll", "dataflow"):
            found.add(f"pragma_{word}")
        elif word in ("array_partition", "array_reshape"):
            found.add("pragma_array_partition")
        elif word == "loop_tripcount":
            found.add("pragma_tripcount")
        elif word == "interface" and re.search(r"\bm_axi\b", rest, re.IGNORECASE):
            found.add("m_axi")
    return tuple(name for name in CONSTRUCTS if name in found)


def _words_before_name(var_decl) -> set[str]:
    """The tokens of a declaration before its name (``const auto x``: const, auto)."""
    words = set()
    for token in var_decl.get_tokens():
        if token.spelling == var_decl.spelling:
            break
        words.add(token.spelling)
    return words


def _own_record(type_, own: set[str]) -> bool:
    """Whether a variable of this type holds a struct or class the kernel declares itself
    (through arrays, pointers and references; ap_int and hls::stream are not)."""
    from clang.cindex import TypeKind
    wrappers = {TypeKind.CONSTANTARRAY: "element_type", TypeKind.INCOMPLETEARRAY: "element_type",
                TypeKind.VARIABLEARRAY: "element_type",
                TypeKind.DEPENDENTSIZEDARRAY: "element_type"}
    pointers = (TypeKind.POINTER, TypeKind.LVALUEREFERENCE, TypeKind.RVALUEREFERENCE)
    t = type_.get_canonical()
    while t.kind in wrappers or t.kind in pointers:
        t = (t.element_type if t.kind in wrappers else t.get_pointee()).get_canonical()
    return t.kind == TypeKind.RECORD and _own_file(t.get_declaration(), own)


def _for_constructs(loop, params: set, found: set[str]) -> None:
    """Runtime bounds (a parameter in the condition) and several iterators in one ``for``."""
    from clang.cindex import CursorKind
    children = list(loop.get_children())
    for child in children:
        if child.kind == CursorKind.DECL_STMT and \
                sum(1 for d in child.get_children() if d.kind == CursorKind.VAR_DECL) > 1:
            found.add("multi_iterator_for")
        if child.kind == CursorKind.BINARY_OPERATOR and _is_comparison(child):
            if any(r.kind == CursorKind.DECL_REF_EXPR and r.referenced is not None and
                   r.referenced.hash in params for r in _walk(child)):
                found.add("runtime_bound")
        if child.kind == CursorKind.BINARY_OPERATOR and _operator_spelling(child) == ",":
            found.add("multi_iterator_for")


def _operator_spelling(binop) -> str:
    """The operator of a BINARY_OPERATOR cursor (libclang >= 17 has ``binary_operator``)."""
    if hasattr(binop, "binary_operator"):
        spelled = {"Comma": ",", "LT": "<", "LE": "<=", "GT": ">", "GE": ">=", "NE": "!=",
                   "EQ": "=="}
        return spelled.get(binop.binary_operator.name, binop.binary_operator.name)
    lhs = next(binop.get_children(), None)
    tokens = [t.spelling for t in binop.get_tokens()]
    skip = len(list(lhs.get_tokens())) if lhs is not None else 0
    return tokens[skip] if skip < len(tokens) else ""


def _is_comparison(binop) -> bool:
    return _operator_spelling(binop) in ("<", "<=", ">", ">=", "!=")


@dataclass(frozen=True, slots=True)
class Verdict:
    kernel: Kernel
    clang_errors: tuple[str, ...]
    gxx_errors: tuple[str, ...]
    constructs: tuple[str, ...]
    top_found: bool


def examine(kernel: Kernel, root: Path, *, with_gxx: bool = True) -> Verdict:
    tu, errors = parse(kernel, root)
    top_found = find_top(tu, kernel.top, own_files(kernel, root)) is not None
    constructs = constructs_of(kernel, root, tu)
    gxx = gxx_check(kernel, root) if with_gxx else []
    return Verdict(kernel, tuple(errors), tuple(gxx), constructs, top_found)


# Short column heads for the construct table.
ABBREV = {
    "extern_c": "exC", "namespace": "ns", "using_namespace": "use", "template": "tpl",
    "auto": "aut", "constexpr": "cex",
    "struct": "str", "reference_param": "ref", "pointer_param": "ptr", "ap_int": "api",
    "ap_fixed": "apf", "hls_stream": "stm", "hls_vector": "vec", "axis": "axs", "m_axi": "max",
    "runtime_bound": "rtb", "sub_function": "sub", "local_array": "arr", "memcpy": "cpy",
    "while_loop": "whl", "multi_iterator_for": "mif", "label": "lbl", "pragma_pipeline": "pip",
    "pragma_unroll": "unr", "pragma_array_partition": "prt", "pragma_dataflow": "dfl",
    "pragma_tripcount": "trc", "directives_file": "tcl",
}


def print_table(verdicts: list[Verdict], out=sys.stdout) -> None:
    width = max(len(v.kernel.id) for v in verdicts)
    heads = " ".join(ABBREV[c] for c in CONSTRUCTS)
    print(f"{'kernel':<{width}} clang g++  top  {heads}", file=out)
    for v in verdicts:
        marks = " ".join(f"{'x' if c in v.constructs else '.':>3}" for c in CONSTRUCTS)
        print(f"{v.kernel.id:<{width}} {'ok' if not v.clang_errors else 'ERR':<5} "
              f"{'ok' if not v.gxx_errors else 'ERR':<4} {'ok' if v.top_found else '??':<4} "
              f"{marks}", file=out)
    total = len(verdicts)
    print(f"\n{total} kernels; clang parses {sum(not v.clang_errors for v in verdicts)}, "
          f"g++ accepts {sum(not v.gxx_errors for v in verdicts)}", file=out)
    for c in CONSTRUCTS:
        print(f"  {ABBREV[c]} {c}: {sum(c in v.constructs for v in verdicts)}", file=out)
    for v in verdicts:
        for e in v.clang_errors[:3]:
            print(f"clang: {e}", file=out)
        for e in v.gxx_errors[:3]:
            print(f"g++: {e}", file=out)


# Seconds one ``arraypart compile`` of a corpus kernel may take (its solver gets less).
ARRAYPART_TIMEOUT_S = 120
SOLVER_TIME_LIMIT_S = 20


@dataclass(frozen=True, slots=True)
class Outcome:
    """What ``arraypart compile`` made of one corpus kernel.

    ``status``: ``banked`` (every pipelined loop at its target II, none of target 1
    held by a recurrence through memory), ``missed`` (analysed, some loop misses it), ``error`` (exit 2: a located error),
    ``crash`` (anything else: a traceback, a signal, a timeout)."""
    kernel: Kernel
    status: str
    message: str  # the first error line, or the loops' IIs
    gxx_ok: bool | None  # g++ accepts the emitted .cpp (None: nothing emitted)
    contended: bool  # some pipelined loop has more than one access to an on-chip array
    testbench: str | None = None  # TESTBENCH_VERDICTS, None: not run
    # a missed contended kernel, re-run with --replace-partitions: whether arraypart's own
    # banking (instead of the partitions the kernel fixes) reaches every target II
    own_banking_reaches: bool | None = None
    seconds: float = 0.0  # wall clock of the (first) arraypart compile


# Exit 1 is also a time limit that ended a search for a cheaper banking: a kernel whose
# every loop reaches its target II (report.json) counts as banked either way.
STATUS_OF_EXIT = {0: "banked", 1: "missed", 2: "error"}


def arraypart_args(kernel: Kernel, root: Path) -> list[str]:
    args = ["--top", kernel.top, "--time-limit", str(SOLVER_TIME_LIMIT_S)]
    args += [f"-I{root / d}" for d in kernel.include_dirs]
    args += [f"-D{d}" if "=" in d else f"-D{d}=1" for d in kernel.defines]
    if kernel.directives:
        args += ["--directives", str(root / kernel.directives)]
    return args


def run_arraypart(kernel: Kernel, root: Path, workdir: Path) -> Outcome:
    """``arraypart compile`` on one kernel, in its own process (a crash or a hang there
    is a finding, not the end of the run), then g++ on what it emitted.  A contended
    kernel that misses a target II runs once more with ``--replace-partitions``: the
    kernel's own partitions are kept by default (DESIGN §1), so only that run says
    whether arraypart's banking reaches the target."""
    outcome = _compile(kernel, root, workdir / kernel.id)
    if outcome.status != "missed" or not outcome.contended:
        return outcome
    again = _compile(kernel, root, workdir / "replaced" / kernel.id, "--replace-partitions")
    return replace(outcome, own_banking_reaches=again.status == "banked")


_RECURRENCE = re.compile(r"warning: loop (\S+): .*\(a (?:possible )?recurrence through "
                         r"memory\)")


def _recurrent_loops(report: dict) -> set[str]:
    """Loops with a recurrence through memory (report.json's warnings): the HLS tool
    waits for the previous iteration's write, whatever the ports allow."""
    return {m.group(1) for w in report.get("warnings", []) if (m := _RECURRENCE.search(w))}


def _reaches(loop: dict, recurrent: set[str]) -> bool:
    """The loop reaches its target II: under the scheduling rule, and at a target of 1
    without a recurrence through memory (a read waits a write's latency)."""
    return loop["achieved_ii"] <= loop["target_ii"] and not (
        loop["target_ii"] == 1 and loop["name"] in recurrent)


def _compile(kernel: Kernel, root: Path, out: Path, *extra: str) -> Outcome:
    command = [sys.executable, "-m", "arraypart", "compile", str(root / kernel.path),
               "-o", str(out), *arraypart_args(kernel, root), *extra]
    started = time.monotonic()
    try:
        run = subprocess.run(command, capture_output=True, text=True,
                             timeout=ARRAYPART_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return Outcome(kernel, "crash", f"timeout after {ARRAYPART_TIMEOUT_S} s", None, False,
                       seconds=ARRAYPART_TIMEOUT_S)
    seconds = time.monotonic() - started
    status = STATUS_OF_EXIT.get(run.returncode, "crash")
    if "Traceback" in run.stderr:
        status = "crash"
    lines = [l for l in run.stderr.splitlines() if "error" in l.lower()] or \
        run.stderr.splitlines()[-1:]
    message = lines[0] if lines else ""
    report_path = out / "report.json"
    if status in ("banked", "missed") and report_path.is_file():
        report = json.loads(report_path.read_text())
        loops = report.get("loops", [])
        recurrent = _recurrent_loops(report)
        if all(_reaches(l, recurrent) for l in loops):
            status = "banked"
        elif status == "banked":
            status = "missed"  # at II 1 under the rule, not in the HLS tool
        message = " ".join(f"{l['name']}:{l['achieved_ii']}/{l['target_ii']}"
                           f"{'r' if l['name'] in recurrent else ''}" for l in loops)
        emitted = next((f for f in sorted(out.glob("*.cpp"))
                        if not f.name.endswith("_tb.cpp")), None)
        gxx_ok = emitted is not None and _gxx_accepts(emitted, kernel, root)
        verdict = run_testbench(out, kernel, root) if gxx_ok else None
        return Outcome(kernel, status, message, gxx_ok, _contended(report), verdict,
                       seconds=seconds)
    return Outcome(kernel, status, message, None, False, seconds=seconds)


def run_testbench(out: Path, kernel: Kernel, root: Path) -> str:
    """Build the emitted testbench with the banked kernel under AddressSanitizer and
    run it: ``pass`` (banked matches original), ``fail`` (a mismatch, or a memory
    error in either), ``build`` (it does not build)."""
    bench = next(out.glob("*_tb.cpp"))
    banked = out / bench.name.replace("_tb.cpp", ".cpp")
    binary = out / "tb"
    command = ["g++", f"-std={CXX_STD}", "-O1", "-fsanitize=address", "-I", str(out),
               str(bench), str(banked), "-o", str(binary), *include_args(kernel, root)]
    try:
        if subprocess.run(command, capture_output=True, timeout=TESTBENCH_TIMEOUT_S
                          ).returncode != 0:
            return "build"
        # in its own folder: some originals write files where they run (hier_func4)
        run = subprocess.run([str(binary)], capture_output=True, text=True, cwd=out,
                             timeout=TESTBENCH_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "fail"
    return "pass" if run.returncode == 0 and "PASS" in run.stdout else "fail"


def _contended(report: dict) -> bool:
    """Some pipelined loop accesses an on-chip array more than once in one cycle."""
    return any(a.get("max_concurrent", 0) > 1 and a.get("bundle") is None
               for a in report.get("arrays", []))


def _gxx_accepts(emitted: Path, kernel: Kernel, root: Path) -> bool:
    command = ["g++", f"-std={CXX_STD}", "-fsyntax-only", "-x", "c++", str(emitted),
               *include_args(kernel, root)]
    try:
        return subprocess.run(command, capture_output=True,
                              timeout=GXX_TIMEOUT_S).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def print_outcomes(outcomes: list[Outcome], out=sys.stdout) -> None:
    width = max(len(o.kernel.id) for o in outcomes)
    for o in outcomes:
        gxx = {None: "-", True: "ok", False: "ERR"}[o.gxx_ok]
        busy = "x" if o.contended else "."
        tb = o.testbench or "-"
        own = " [--replace-partitions: every target II]" if o.own_banking_reaches else ""
        print(f"{o.kernel.id:<{width}} {o.status:<7} {gxx:<4} {tb:<5} {busy} "
              f"{o.message[:150]}{own}", file=out)
    total = len(outcomes)
    count = {s: sum(o.status == s for o in outcomes) for s in ("banked", "missed", "error",
                                                               "crash")}
    analysed = count["banked"] + count["missed"]
    emitted = [o for o in outcomes if o.gxx_ok is not None]
    print(f"\n{total} kernels: {analysed} analysed ({100 * analysed / total:.0f}%: "
          f"{count['banked']} at every target II, {count['missed']} missing one), "
          f"{count['error']} located errors, {count['crash']} crashes; g++ accepts "
          f"{sum(bool(o.gxx_ok) for o in emitted)} of {len(emitted)} emitted kernels",
          file=out)
    ran = [o for o in outcomes if o.testbench is not None]
    print(f"testbench (ASan): {sum(o.testbench == 'pass' for o in ran)} of {len(ran)} pass "
          f"(banked = original on random inputs)", file=out)
    slowest = max(outcomes, key=lambda o: o.seconds)
    median = statistics.median(o.seconds for o in outcomes)
    print(f"compile wall clock: median {median:.1f} s, slowest "
          f"{slowest.kernel.id} {slowest.seconds:.1f} s (solver limit {SOLVER_TIME_LIMIT_S} s)",
          file=out)
    busy = [o for o in outcomes if o.contended]
    reached = sum(o.status == "banked" for o in busy)
    own = reached + sum(bool(o.own_banking_reaches) for o in busy)
    print(f"{len(busy)} with an on-chip array accessed more than once per cycle: "
          f"{reached} at every target II as written, {own} with arraypart's own banking "
          f"(--replace-partitions)", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", nargs="?", choices=("table", "materialize", "analyze"),
                        default="table")
    parser.add_argument("--root", type=Path, default=CORPUS, help="corpus folder")
    parser.add_argument("--kernel", action="append", help="only this kernel id (repeatable)")
    parser.add_argument("--no-gxx", action="store_true", help="skip the g++ syntax check")
    args = parser.parse_args(argv)
    manifest = load_manifest()
    if args.action == "materialize":
        bad = materialize(args.root, manifest)
        for rel in bad:
            print(f"{rel}: sha256 differs from the manifest", file=sys.stderr)
        print(f"wrote {len(needed_files(manifest))} files under {args.root}")
        return 1 if bad else 0
    if not is_materialized(args.root, manifest):
        print(f"{args.root}: corpus files missing; run `python bench/corpus.py materialize`",
              file=sys.stderr)
        return 2
    kernels = [k for k in manifest.kernels if not args.kernel or k.id in args.kernel]
    if args.action == "analyze":
        with tempfile.TemporaryDirectory() as work, ThreadPoolExecutor(2) as pool:
            outcomes = list(pool.map(lambda k: run_arraypart(k, args.root, Path(work)),
                                     kernels))
        print_outcomes(outcomes)
        return 0
    print_table([examine(k, args.root, with_gxx=not args.no_gxx) for k in kernels])
    return 0


if __name__ == "__main__":
    sys.exit(main())
