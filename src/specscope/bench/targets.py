"""Servers a bench run measures; moved to :mod:`specscope.targets` (shared with ``gate``), re-exported here.

Same names as before: ``ServerTarget`` (the :class:`specscope.seam.ServerTarget` protocol plus
``describe()``, the alias of ``facts()`` that the bench runner calls),
``ExternalServer``, ``embedded_target``, ``launched_target``, ``embedded_config_names``, ``recipe_names``,
and ``parse_server_specs`` (``--server`` entries -> ``{name: url}``).
"""

from __future__ import annotations

from typing import Any, Protocol

from specscope import seam
from specscope.targets import (
    ExternalServer,
    embedded_config_names,
    embedded_target,
    launched_target,
    open_target,
    parse_servers,
    recipe_names,
)

__all__ = [
    "ExternalServer",
    "ServerTarget",
    "embedded_config_names",
    "embedded_target",
    "launched_target",
    "open_target",
    "parse_server_specs",
    "recipe_names",
]


class ServerTarget(seam.ServerTarget, Protocol):
    """A :class:`specscope.seam.ServerTarget` with ``describe()`` (= ``facts()``), as every target here has."""

    def describe(self) -> dict[str, Any]:
        """Manifest facts (the same dict as ``facts()``)."""
        ...


def parse_server_specs(specs: list[str]) -> dict[str, str]:
    """``["http://h:8000"]`` -> {"server": url}; ``["mtp3=http://h:8000", "base=http://h:8001"]`` -> by name.

    Raises:
        ConfigError: a name repeats, or an entry is not a URL.
    """
    return parse_servers(specs)
