"""``environment``: the jinja2 environment arraypart's templates render in.

The templates ship as the package ``arraypart.templates`` (the repository's
``templates/`` folder) and are read through :mod:`importlib.resources`, so they load
from an installed wheel as well as from a checkout.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources

import jinja2


def _load(name: str) -> str:
    return resources.files("arraypart.templates").joinpath(name).read_text(encoding="utf-8")


@cache
def environment(filters: tuple[tuple[str, Callable[[str], str]], ...] = ()) -> jinja2.Environment:
    """The environment with ``filters`` (name, function) added; built once per process
    and set of filters, so that each template is compiled once (compiling one costs
    more than rendering it)."""
    env = jinja2.Environment(loader=jinja2.FunctionLoader(_load),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True,
                             autoescape=False)
    env.filters.update(filters)
    return env
