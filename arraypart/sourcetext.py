"""How a kernel's bytes become text and back.

A kernel is UTF-8 text, but a comment or string literal may hold bytes of another
encoding (GBK and Big5 comments are common in HLS code), which C compilers accept as
they stand.  Such a byte is decoded as one lone surrogate (Python's ``surrogateescape``)
and encoded back to itself, so every text arraypart writes keeps the user's bytes, and
a byte offset that libclang gives is the offset in ``text.encode("utf-8", KEEP_BYTES)``
(one character, one column, per byte that is not UTF-8).  Every conversion between a
kernel's text and its bytes passes ``errors=KEEP_BYTES``.
"""

KEEP_BYTES = "surrogateescape"


def clang_view(data: bytes) -> bytes:
    """``data`` as libclang is given it: each byte that is not UTF-8 replaced by one
    ``?``, at the same offset.  libclang's Python bindings decode every spelling as
    strict UTF-8, so a token holding such a byte (a GBK string literal) ended in an
    internal error; arraypart itself reads and edits ``data``, never the view."""
    text = data.decode(errors=KEEP_BYTES)
    return text.encode(errors="replace") if not text.isascii() else data
