"""Text inserted at byte offsets of the kernel text: the one kind of edit the
instrumentation (:mod:`.instrument`) makes (nothing is removed), and the namespace of
the recording calls it inserts.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..sourcetext import KEEP_BYTES

NAMESPACE = "::arraypart_trace::"


@dataclass(frozen=True, slots=True, order=True)
class Insert:
    """Text put at ``offset``; at one offset closers come before openers, inner
    closers before outer ones, outer openers before inner ones (``rank``)."""

    offset: int
    opener: bool
    rank: int
    text: str


def apply(data: bytes, inserts: list[Insert]) -> str:
    out, last = [], 0
    for ins in sorted(inserts):
        out.append(data[last:ins.offset])
        out.append(ins.text.encode(errors=KEEP_BYTES))
        last = ins.offset
    out.append(data[last:])
    return b"".join(out).decode(errors=KEEP_BYTES)
