"""The console script ``arraypart``: interruptions handled from the first moment.

The run happens in a worker process that :mod:`arraypart.supervisor` watches, so that
a signal or the time limit ends it within about a second even inside one long isl or
clang call.  Importing the passes (numpy, isl, jinja2) takes most of a second; a
Ctrl-C or SIGTERM then must end the run with a message and status 128 + signal, not a
traceback (and not "internal error" from an extension module whose initialisation it
interrupted), so the worker holds signals back until the import is done.
"""

from __future__ import annotations

import os
import signal
import sys


def _end_before_the_run(signum: int, frame) -> None:
    """A signal while the supervisor itself is imported: no run has begun, nothing was
    written; end with the status a signal gives, without a traceback."""
    os.write(2, b"arraypart: interrupted before the run began; nothing was written\n")
    os._exit(128 + signum)


# first of all, before the imports below (a Ctrl-C there printed a traceback); a
# signal the caller ignores (bash's background jobs ignore SIGINT) stays ignored
for _signal in (signal.SIGINT, signal.SIGTERM):
    if signal.getsignal(_signal) is not signal.SIG_IGN:
        signal.signal(_signal, _end_before_the_run)

from typing import NoReturn  # noqa: E402 - after the handlers, on purpose

from . import interrupts, supervisor  # noqa: E402

INTERNAL_ERROR = 3  # DESIGN §4 (cli.EXIT_INTERNAL, which may be what failed to import)


def main() -> NoReturn:
    supervisor.end(supervisor.supervise(_worker))


def _worker(resume: supervisor.Resume | None) -> int:
    """The run (in the worker): the command line's status, or 128 + signal.  A
    ``resume`` carries what a killed worker's solver had found (see
    :mod:`arraypart.supervisor`)."""
    status = None
    try:
        # inside the try: a signal lands as soon as the handlers are in place
        interrupts.install(once=True)
        supervisor.unblock()
        with interrupts.deferred():
            from .cli import main as run  # noqa: PLC0415 - deliberately after install()
        status = run(resume=resume)
        interrupts.ignore()
    except KeyboardInterrupt as error:
        interrupts.ignore()
        if status is None:  # else it came after the run had ended, output whole
            print("arraypart: interrupted; nothing was written", file=sys.stderr)
            status = interrupts.exit_status(error)
    except Exception as error:  # noqa: BLE001 - a broken install: no traceback either
        print(f"arraypart: internal error: {type(error).__name__}: {error} "
              "(please report this)", file=sys.stderr)
        status = INTERNAL_ERROR
    return status


if __name__ == "__main__":
    sys.exit(main())
