"""Interruptions as exceptions: SIGTERM and SIGHUP end a run like Ctrl-C does.

Python turns SIGINT into :class:`KeyboardInterrupt`; :func:`install` makes SIGTERM
and SIGHUP raise :class:`Terminated` (a ``KeyboardInterrupt``), so every ``finally``
and ``except BaseException`` cleanup runs for them too.  :func:`deferred` holds all
three back around a few renames that must happen together (the commit of an output
folder) and re-raises the first one afterwards.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
from contextlib import contextmanager

#: How long after an interruption was swallowed it is delivered again (the hook that
#: noticed it must have returned by then).
REDELIVERY_DELAY_S = 0.01
#: The signals that end a run with cleanup (SIGINT is Python's own KeyboardInterrupt).
HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived; ``signum`` says which (exit status 128 + signum)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise(signum, frame):
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def _raise_once(signum, frame):
    """:func:`_raise`, ignoring every later signal: the supervisor passes on the Ctrl-C
    the terminal also sent this process, and a second interruption must not cut the
    cleanup of the first short."""
    ignore()
    _raise(signum, frame)


def install(*, once: bool = False) -> None:
    """Make SIGTERM and SIGHUP raise :class:`Terminated` (main thread only; a
    signal the parent set to be ignored stays ignored, as shells expect), and make
    an interruption that lands where Python cannot raise (a weakref callback, a
    ``__del__``: "Exception ignored in ...") arrive again instead of being lost.
    With ``once`` (the supervised worker) the first of SIGINT, SIGTERM and SIGHUP is
    raised and the others are ignored from then on."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in HANDLED if once else (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) not in (signal.SIG_IGN, _raise_once):
            signal.signal(signum, _raise_once if once else _raise)
    if getattr(sys.unraisablehook, "__func__", sys.unraisablehook) is not _redeliver:
        _redeliver.previous = sys.unraisablehook
        sys.unraisablehook = _redeliver


def _redeliver(unraisable) -> None:
    """``sys.unraisablehook``: an interruption raised where it could not propagate is
    signalled to the main thread again, from another thread a moment later, so that
    it is raised at the next safe point and not inside this hook (where it would be
    lost again)."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        _redeliver.previous(unraisable)
        return
    signum = getattr(unraisable.exc_value, "signum", signal.SIGINT)
    try:
        later = threading.Timer(REDELIVERY_DELAY_S, _thread.interrupt_main, (signum,))
        later.daemon = True
        later.start()
    except BaseException:  # noqa: BLE001 - a second interruption: the first suffices
        pass


def ignore() -> None:
    """Ignore SIGINT, SIGTERM and SIGHUP from now on (the run is over)."""
    if threading.current_thread() is threading.main_thread():
        for signum in HANDLED:
            signal.signal(signum, signal.SIG_IGN)


def exit_status(error: KeyboardInterrupt) -> int:
    """The shell's status for a run ended by ``error``: 128 + the signal number."""
    return 128 + getattr(error, "signum", signal.SIGINT)


@contextmanager
def deferred():
    """Run the block with SIGINT, SIGTERM and SIGHUP held back; the first that arrived
    is raised when the block ends (as its exception).  Outside the main thread, where
    Python delivers no signals, the block just runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = {signum: signal.getsignal(signum) for signum in HANDLED}
    for signum in HANDLED:
        if previous[signum] != signal.SIG_IGN:
            signal.signal(signum, lambda s, frame: arrived.append(s))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if arrived:
        first = arrived[0]
        handler = previous[first]
        if callable(handler) and handler is not _raise:
            handler(first, None)  # default_int_handler, _raise_once, or the caller's own
        _raise(first, None)
