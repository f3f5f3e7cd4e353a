"""``#pragma HLS ...`` lines: parsing, validation, located errors.

Syntax as Vitis HLS accepts it: ``#pragma HLS <directive> key=value ... flag ...``
(``AP`` and ``AUTOPILOT`` spell ``HLS`` too);
the directive, keys and flags are case-insensitive, ``key = value`` may have blanks
around ``=``.  An integer value may name an integer ``#define`` or constant.  The
lines come from clang's token stream (:func:`.pragmatext.pragma_lines`).
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, replace
from typing import Mapping

from ..errors import Coord, KernelError, warning_text
from ..ir import PARTITION_TYPES, PORT_MODELS, PartitionPragma
from . import cnodes as N
from .cexpr import int_text

# The pragma namespaces Vitis HLS reads as its own: `#pragma AP` and `#pragma AUTOPILOT`
# are Vivado HLS's older spellings of `#pragma HLS` (its clang's HandleXlxPragma).
HLS_PREFIXES = ("hls", "ap", "autopilot")
LOOP_DIRECTIVES = ("pipeline", "unroll")
DEFAULT_II = 1
COMPLETE_UNROLL = 0
DEFAULT_PARTITION_TYPE = "complete"  # Vitis's default for array_partition
DEFAULT_PARTITION_DIM = 1  # Vitis's default for array_partition
KEY_SPELLING = {"ii": "II"}  # how Vitis documents a key, for messages
MAX_PRAGMA_VALUE = 2 ** 31 - 1  # Vitis reads pragma integers as a C int
# Storage types Vitis accepts that arraypart has no port model for, and what they are.
UNMODELLED_STORAGE = {"fifo": "a FIFO"}
_OPTION_RE = re.compile(r"\s*=\s*")
# ``variable=din, dout``: blanks around a list's commas keep it one word (and code
# generation splits such a list at them).
LIST_COMMA = re.compile(r"\s*,\s*")
# ``#pragma HLS if (condition) <directive> ...`` (UG1399, "Conditional Control of
# Pragmas"): the directive applies where the constant condition holds.  A condition
# nests parentheses two deep at most here.
CONDITION = r"if\s*\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*"
_CONDITIONED = re.compile(rf"^(\s*\w+\s+){CONDITION}", re.IGNORECASE)
# Spaces around an operator inside a value (``max = c_size * c_size``) keep it one word.
_OPERATOR_RE = re.compile(r"(?<=[\w)])\s*([*/+-])\s*(?=[\w(])")
# Every directive Vitis HLS reads (UG1399, "HLS Pragmas"), the deprecated ones included.
KNOWN_DIRECTIVES = (
    "aggregate", "alias", "allocation", "array_map", "array_partition", "array_reshape",
    "array_stencil", "bind_op", "bind_storage", "cache", "data_pack", "dataflow",
    "dependence", "disaggregate", "expression_balance", "function_instantiate", "inline",
    "interface", "latency", "loop_flatten", "loop_merge", "loop_tripcount", "occurrence",
    "performance", "pipeline", "protocol", "reset", "resource", "shared", "stable",
    "stable_content", "stream", "top", "unroll")
# How close a misspelling must be to a directive for the warning to suggest it
# (difflib's ratio; its own default cut-off).
SUGGESTION_CUTOFF = 0.6
# The legacy ``resource core=`` names of memories: RAM_1P_BRAM, ROM_NP_LUTRAM, RAM_T2P...
MEMORY_CORE = re.compile(r"(ram|rom)_(1p|2p|s2p|t2p|np)(?:_(\w+))?", re.IGNORECASE)


def pragma_int(written: str, constants) -> int | None:
    """A pragma's integer value: an expression of literals and named constants with
    ``+ - * /`` and parentheses (``c_chunk_sz * c_chunk_sz / (c_size_max * c_size_max)``;
    ``/`` truncates as C's does; a name may be qualified, ``CONFIG_T::n_in``); None when
    it is anything else, divides by zero or is negative.  The text is read token by token as C's: a number C does not read
    (``1_0``, which Python would) is no value."""
    parts, text, at = [], written.strip(), 0
    qualified: dict[str, int | None] = {}  # CONFIG_T::n as a Python name of its own
    while at < len(text):
        token = _PRAGMA_TOKEN.match(text, at)
        if token is None:
            return None
        name, number, operator = token.groups()
        value = None if number is None else int_text(number)
        if number is not None and value is None:
            return None
        if name is not None and "::" in name:
            qualified[name] = constants.get(name)
            name = f"_qualified{list(qualified).index(name)}"
        parts.append(name or operator or str(value))
        at = token.end()
    if qualified:
        constants = {**constants, **{f"_qualified{k}": v
                                     for k, v in enumerate(qualified.values())}}
    python = " ".join(parts)
    try:
        tree = ast.parse(python, mode="eval").body
    except SyntaxError:
        return None
    value = _pragma_value(tree, constants)
    return value if value is not None and value >= 0 else None


def pragma_condition(written: str, constants) -> bool | None:
    """The truth of a conditional pragma's condition: integers and named constants
    under ``+ - * / ( )``, the comparisons and ``&& || !`` (C's meaning); None when it
    is anything else (a template parameter, a call)."""
    python = written.replace("&&", " and ").replace("||", " or ")
    python = re.sub(r"!(?!=)", " not ", python)
    try:
        tree = ast.parse(python.strip(), mode="eval").body
    except SyntaxError:
        return None
    return _truth(tree, constants)


def _truth(node: ast.AST, constants) -> bool | None:
    if isinstance(node, ast.BoolOp):
        values = [_truth(v, constants) for v in node.values]
        if None in values:
            return None
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        value = _truth(node.operand, constants)
        return None if value is None else not value
    if isinstance(node, ast.Compare) and len(node.ops) == 1 \
            and type(node.ops[0]) in _COMPARISONS:
        a = _pragma_value(node.left, constants)
        b = _pragma_value(node.comparators[0], constants)
        return None if a is None or b is None else _COMPARISONS[type(node.ops[0])](a, b)
    value = _pragma_value(node, constants)
    return None if value is None else value != 0


_COMPARISONS = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
                ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
                ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}


def _c_divide(a: int, b: int) -> int | None:
    """C's ``a / b``: truncated toward zero."""
    if b == 0:
        return None
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


_PRAGMA_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                     ast.Mult: lambda a, b: a * b, ast.Div: _c_divide}
# A pragma value's tokens: a name, a number (int_text reads C's: hex, octal, binary,
# u/l suffixes), an operator or a parenthesis.
_PRAGMA_TOKEN = re.compile(r"\s*(?:([A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)|(\d\w*)|([-+*/()]))\s*")


def _pragma_value(node: ast.AST, constants) -> int | None:
    if isinstance(node, ast.BinOp) and type(node.op) in _PRAGMA_OPERATORS:
        a, b = _pragma_value(node.left, constants), _pragma_value(node.right, constants)
        return None if a is None or b is None else _PRAGMA_OPERATORS[type(node.op)](a, b)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        a = _pragma_value(node.operand, constants)
        return None if a is None else -a if isinstance(node.op, ast.USub) else a
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


@dataclass(frozen=True, slots=True)
class HlsPragma:
    """One ``#pragma HLS`` line: ``kind`` (lower case), ``key=value`` options (keys in
    lower case, values as written) and bare ``flags`` (lower case)."""

    kind: str
    options: tuple[tuple[str, str], ...]
    flags: tuple[str, ...]
    node: N.Pragma

    def option(self, key: str) -> str | None:
        return dict(self.options).get(key)


class PragmaReader:
    """Parses pragma nodes and locates their options in the user's source lines."""

    def __init__(self, filename: str, lines: list[str], constants: Mapping[str, int]):
        self._filename = filename
        self._lines = lines
        self._constants = constants

    @property
    def constants(self) -> Mapping[str, int]:
        """The integer ``#define``s and constants option values may name."""
        return self._constants

    # ------------------------------------------------------------ parsing

    def parse(self, node: N.Pragma) -> HlsPragma | None:
        """The HLS pragma ``node`` holds, or None for a non-HLS pragma or a conditional
        one whose condition is false (its kind ``if`` when arraypart cannot tell)."""
        text = node.line.text
        conditioned = _CONDITIONED.match(text)
        if conditioned is not None and conditioned.group(1).strip().lower() in HLS_PREFIXES:
            holds = pragma_condition(conditioned.group(2), self._constants)
            if holds is None:
                return HlsPragma("if", (("condition", conditioned.group(2).strip()),), (),
                                 node)
            if not holds:
                return None
            text = conditioned.group(1) + text[conditioned.end():]
        words = _OPERATOR_RE.sub(r"\1", LIST_COMMA.sub(",", _OPTION_RE.sub("=", text)))
        words = words.split()
        if len(words) < 2 or words[0].lower() not in HLS_PREFIXES:
            return None
        options, flags = [], []
        for word in words[2:]:
            key, eq, value = word.partition("=")
            if eq:
                options.append((key.lower(), value))
            else:
                flags.append(word.lower())
        return HlsPragma(words[1].lower(), tuple(options), tuple(flags), node)

    def of_function(self, func: N.FuncDef) -> list[HlsPragma]:
        """The HLS pragmas among the statements of ``func``'s body (Vitis reads a
        function's directives anywhere there)."""
        items = func.body.items if func.body is not None else ()
        found = (self.parse(n) for n in items if isinstance(n, N.Pragma))
        return [p for p in found if p is not None]

    @staticmethod
    def each_variable(pragma: HlsPragma, key: str = "variable") -> tuple[HlsPragma, ...]:
        """``pragma`` once per name of its ``variable=`` list (or ``key=``'s:
        INTERFACE's ``port=``): Vitis HLS reads ``variable=din,dout`` as one pragma on
        each (its clang front end, ``getSubExprOfVariable`` in ParseXlxPragma.cpp,
        splits the comma expression); ``(pragma,)`` when it names one or none."""
        listed = pragma.option(key)
        if listed is None or "," not in listed:
            return (pragma,)
        return tuple(replace(pragma, options=tuple(
            (k, name if k == key else v) for k, v in pragma.options))
            for name in listed.split(",") if name)

    def coord(self, pragma: HlsPragma, key: str | None = None) -> Coord:
        """Where ``key=`` (or, without a key, the ``#``) of ``pragma`` is written."""
        c = pragma.node.coord
        fallback = c
        if c.file != self._filename or not 1 <= c.line <= len(self._lines):
            return fallback
        text = self._lines[c.line - 1]
        pattern = r"#" if key is None else rf"\b{re.escape(key)}\s*="
        match = re.search(pattern, text, re.IGNORECASE)
        return Coord(c.file, c.line, match.start() + 1) if match else fallback

    def error(self, pragma: HlsPragma, message: str, key: str | None = None):
        raise KernelError(self.coord(pragma, key), message)

    def positive_int(self, pragma: HlsPragma, key: str, minimum: int = 1) -> int:
        """The integer value of option ``key`` (:func:`pragma_int`: ``factor=BS*2``)."""
        raw = pragma.option(key)
        value = pragma_int(raw, self._constants)
        if value is None or not minimum <= value <= MAX_PRAGMA_VALUE:
            what = "a positive" if minimum > 0 else "a non-negative"
            shown = KEY_SPELLING.get(key, key)
            self.error(pragma, f"{shown}= of {pragma.kind} must be {what} integer "
                               f"of at most {MAX_PRAGMA_VALUE}, got '{raw}'", key)
        return value

    # ------------------------------------------------------------ loop pragmas

    def pipeline_ii(self, pragma: HlsPragma) -> int | None:
        """``pipeline [II=k] [off]``: the target II, None when off."""
        if self.off(pragma):
            return None
        if pragma.option("ii") is None:
            return DEFAULT_II
        return self.positive_int(pragma, "ii")

    def unroll(self, pragma: HlsPragma) -> int | None:
        """``unroll [factor=k] [off[=true]]``: 0 complete, k > 1 partial, None not
        unrolled."""
        if self.off(pragma):
            return None
        if pragma.option("factor") is None:
            return COMPLETE_UNROLL
        factor = self.positive_int(pragma, "factor")
        return None if factor == 1 else factor

    def off(self, pragma: HlsPragma) -> bool:
        """``off``, or ``off=true`` as Vitis 2023's unroll spells it (``off=false``:
        on)."""
        value = pragma.option("off")
        if value is None:
            return "off" in pragma.flags
        if value.lower() not in ("true", "false"):
            self.error(pragma, f"off= of {pragma.kind} must be true or false, got "
                               f"'{value}'", "off")
        return value.lower() == "true"

    # ------------------------------------------------------------ array pragmas

    def target(self, pragma: HlsPragma, ranks: Mapping[str, int]) -> str:
        """The array named by ``variable=``."""
        name = pragma.option("variable")
        if name is None:
            self.error(pragma, f"{pragma.kind} needs variable=<array>")
        if name not in ranks:
            self.error(pragma, f"unknown array '{name}' in {pragma.kind}", "variable")
        return name

    def partition(self, pragma: HlsPragma, rank: int) -> PartitionPragma:
        """``array_partition [type=]cyclic|block|complete [factor=k] [dim=d] [off=true]``,
        and ``array_reshape`` with the same options."""
        kind = pragma.option("type")
        if kind is None:
            kind = next((f for f in pragma.flags if f in PARTITION_TYPES),
                        DEFAULT_PARTITION_TYPE)
        kind = kind.lower()
        if kind not in PARTITION_TYPES:
            self.error(pragma, f"unknown partition type '{kind}' (expected "
                               f"{', '.join(PARTITION_TYPES)})", "type")
        factor = 0
        if kind != "complete":
            if pragma.option("factor") is None:
                self.error(pragma, f"{kind} {pragma.kind} needs factor=<k>")
            factor = self.positive_int(pragma, "factor")
        dim = DEFAULT_PARTITION_DIM
        if pragma.option("dim") is not None:
            dim = self.positive_int(pragma, "dim", minimum=0)
            if dim > rank:
                self.error(pragma, f"dim={dim} is beyond the {rank} dimension(s) of "
                                   f"'{pragma.option('variable')}'", "dim")
        return PartitionPragma(kind, factor, dim, self.coord(pragma), self.off(pragma))

    def unknown_directive(self, pragma: HlsPragma) -> str | None:
        """A located warning for a directive Vitis HLS does not know (it ignores the
        pragma), naming the nearest known directive; None for a known one."""
        if pragma.kind in KNOWN_DIRECTIVES:
            return None
        if pragma.kind == "if":
            return warning_text(self.coord(pragma), (
                f"the condition ({pragma.option('condition')}) of this conditional pragma "
                "is not a constant arraypart can read (integers, #define and const names): "
                "the pragma is ignored"))
        close = difflib.get_close_matches(pragma.kind, KNOWN_DIRECTIVES, n=1,
                                          cutoff=SUGGESTION_CUTOFF)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return warning_text(self.coord(pragma), f"unknown directive '#pragma HLS "
                                                f"{pragma.kind}': ignored{hint}")

    def resource_storage(self, pragma: HlsPragma) -> tuple[str, str | None] | None:
        """The legacy ``resource variable=A core=RAM_1P_BRAM``: the port model and
        implementation it names, as ``bind_storage`` would give them; None for a
        core that is no memory (an operator such as ``Mul``)."""
        core = pragma.option("core")
        found = MEMORY_CORE.fullmatch(core) if core is not None else None
        if found is None:
            return None
        kind = f"{found.group(1)}_{found.group(2)}".lower()
        if kind not in PORT_MODELS:
            self.error(pragma, f"core '{core}' has no port model arraypart knows "
                               f"(expected one of {', '.join(PORT_MODELS)})", "core")
        impl = found.group(3)
        return kind, None if impl is None else impl.lower()

    def storage(self, pragma: HlsPragma) -> tuple[str, str | None]:
        """``bind_storage type=<port model> [impl=...]``: (type, impl)."""
        kind = self.storage_type(pragma, "type")
        if kind is None:
            self.error(pragma, "bind_storage needs type=<storage type>")
        impl = pragma.option("impl")
        return kind, None if impl is None else impl.lower()

    def storage_type(self, pragma: HlsPragma, key: str) -> str | None:
        """The port model ``key=`` names (``bind_storage type=``, ``INTERFACE
        storage_type=``), lower-cased; None when the option is absent."""
        kind = pragma.option(key)
        if kind is None:
            return None
        if kind.lower() in UNMODELLED_STORAGE:
            self.error(pragma, f"storage type '{kind}' ({UNMODELLED_STORAGE[kind.lower()]}) "
                               "has no port model in arraypart yet (it models "
                               f"{', '.join(PORT_MODELS)})", key)
        if kind.lower() not in PORT_MODELS:
            self.error(pragma, f"unknown storage type '{kind}' (expected "
                               f"{', '.join(PORT_MODELS)})", key)
        return kind.lower()
