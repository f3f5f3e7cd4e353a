"""The console script ``arraypart``: interruptions handled from the first moment.

Importing the passes (numpy, isl, jinja2) takes most of a second; a Ctrl-C or SIGTERM
then must end the run with a message and status 128 + signal, not a traceback, so the
heavy import happens here, after the handlers are installed.
"""

from __future__ import annotations

import os
import sys

from . import interrupts

INTERNAL_ERROR = 3  # DESIGN §4 (cli.EXIT_INTERNAL, which may be what failed to import)


def main() -> int:
    status = None
    try:
        # inside the try: a SIGTERM may land while install() is still running, once
        # its handler is in place
        interrupts.install()
        from .cli import main as run  # noqa: PLC0415 - deliberately after install()
        status = run()
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
    # The run is over.  Python's shutdown restores the default signal actions before
    # the process ends, so a Ctrl-C in that moment would kill it (status -2) after a
    # run that succeeded: end now instead.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed pipe: nobody reads the rest
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
