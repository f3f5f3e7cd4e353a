"""``python -m arraypart``: the command line."""

import sys

from .launch import main

sys.exit(main())
