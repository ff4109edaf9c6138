"""One parser for who serves the configs of a bench or gate run.

Vocabulary (the same in ``bench`` and ``gate``):

- ``--configs a,b`` (repeatable too: ``--configs a --configs b``): the config names.
- ``--server NAME=URL`` (repeatable): servers the user started; a bare ``URL`` takes the ``--configs`` name
  at its position, else ``server`` (one server) or ``server1``, ``server2``...
- ``--launch embedded`` (default): the embedded llama.cpp engine, one start per config;
  ``--launch vllm``: configs are recipe names (``--recipes FILE``, default the shipped recipes), launched
  one at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal
from urllib.parse import urlsplit

import httpx

from specscope.config import check_not_control
from specscope.errors import ConfigError
from specscope.values import check_name, csv_items

__all__ = [
    "LAUNCHERS",
    "RECIPE_LAUNCHER",
    "TargetPlan",
    "parse_configs",
    "parse_servers",
    "parse_targets",
    "url_problem",
]

#: The ``--launch`` that starts recipes (``--recipes FILE``) one at a time: its one spelling.
RECIPE_LAUNCHER: Final = "vllm"
#: What ``--launch`` accepts: the embedded engine (the default) or the recipe launcher.
LAUNCHERS = ("embedded", RECIPE_LAUNCHER)

Kind = Literal["embedded", "vllm", "external"]


@dataclass(frozen=True)
class TargetPlan:
    """Who serves which config.

    Attributes:
        kind: ``embedded``, ``vllm`` (recipes launched by specscope) or ``external`` (``--server`` URLs).
        configs: the config names in order, ``None`` when the command's default applies.
        servers: config name -> base URL (``external`` only).
        recipes: the recipes TOML for ``vllm`` (``None``: the file shipped with specscope).
        start_timeout_s: the longest wait for a launched server's ``/health`` (``--start-timeout``), seconds;
            ``None``: each engine's default.
    """

    kind: Kind
    configs: tuple[str, ...] | None = None
    servers: Mapping[str, str] = field(default_factory=dict)
    recipes: Path | None = None
    start_timeout_s: float | None = None

    def names(self, default: Iterable[str]) -> tuple[str, ...]:
        """The configs to run: the given ones, the servers' names, else ``default``."""
        if self.configs:
            return self.configs
        if self.servers:
            return tuple(self.servers)
        return tuple(default)


def parse_configs(values: str | Iterable[str] | None) -> tuple[str, ...] | None:
    """``"a,b"`` or ``["a,b", "c"]`` -> ``("a", "b", "c")``; ``None`` or empty -> ``None``.

    Raises:
        ConfigError: a name repeats.
    """
    if values is None:
        return None
    items = [values] if isinstance(values, str) else list(values)
    names = tuple(
        check_not_control(check_name(n, "--configs", "base,draft"), "--configs")
        for item in items
        for n in csv_items(item, "--configs", "base,draft")
    )
    if not names:
        return None
    if len(set(names)) != len(names):
        raise ConfigError(
            "--configs names repeat", found=",".join(names), expected="each config once", fix="drop the repeat"
        )
    return names


def parse_servers(specs: Iterable[str], names: tuple[str, ...] | None = None) -> dict[str, str]:
    """``["base=http://h:8000", "http://h:8001"]`` -> ``{name: url}`` (see the module doc for bare URLs).

    Raises:
        ConfigError: an entry is not an http(s) URL, has an empty name, two servers share a name, or a URL ends with
            an endpoint's path (:func:`_refuse_endpoint_path`).
    """
    specs = list(specs)
    out: dict[str, str] = {}
    for i, spec in enumerate(specs):
        name, sep, url = spec.partition("=")
        if not sep or name.startswith(("http://", "https://")):
            url = spec
            name = names[i] if names and i < len(names) else ("server" if len(specs) == 1 else f"server{i + 1}")
        if not url.startswith(("http://", "https://")):
            raise ConfigError(
                "--server must be a URL or NAME=URL",
                found=spec,
                expected="http://HOST:PORT or NAME=http://HOST:PORT",
                fix="e.g. --server base=http://127.0.0.1:8000",
            )
        if not name.strip():
            raise ConfigError(
                "--server has an empty config name",
                found=spec,
                expected="NAME=URL or URL",
                fix="e.g. --server mtp3=http://127.0.0.1:8000",
            )
        check_not_control(check_name(name, "--server", "mtp3=http://127.0.0.1:8000"), "--server")
        if name in out:
            raise ConfigError(
                "--server names repeat", found=name, expected="one URL per config name", fix="name them with NAME=URL"
            )
        problem = url_problem(url)
        if problem is not None:
            raise ConfigError(
                "--server URL is not valid", found=f"{url}: {problem}", expected="http://HOST:PORT", fix="fix the URL"
            )
        _refuse_endpoint_path(spec, name, url)
        out[name] = url
    return out


def url_problem(url: str) -> str | None:
    """Why ``url`` is no URL a request can go to (a host or port that is not one: ``[::zz]``, ``:99999``, a path
    starting ``:``, no host at all: ``http://``), else None: said where the option is read, not as a traceback at
    the first request. httpx takes
    some that the standard library's parser (endpoints.url_endpoint) or the socket refuse: ``[u:pw@h`` raised
    ValueError, a 20-digit port OverflowError at the connect; and refuses some the standard library takes
    (``::::``: a relative URL whose path starts with ``:``, InvalidURL at the first request)."""
    try:
        host = httpx.URL(url).host
        _ = urlsplit(url).port  # ValueError: not a URL, or a port out of 0-65535
    except (httpx.InvalidURL, ValueError) as exc:
        return str(exc)
    if not host:  # http://, http:///v1, http://:8000: httpx said "UnsupportedProtocol" at the first request
        return "it names no host"
    return None


def _refuse_endpoint_path(spec: str, name: str, url: str) -> None:
    """A ``--server`` URL that ends with an API path (``http://h:8000/v1/completions``) names one endpoint, not the
    server: its ``/v1/models`` and ``/metrics`` would be looked for under that path. Refused with the fix: the
    root URL and ``--endpoint PATH``.

    Raises:
        ConfigError: the URL ends with one of :data:`specscope.adapters.openai.endpoints.ENDPOINTS`.
    """
    from specscope.adapters.openai.endpoints import url_endpoint

    path = url_endpoint(url)
    if path is None:
        return
    root = url.rstrip("/").removesuffix(path)
    raise ConfigError(
        f"--server takes the server's URL, not an endpoint's: {path} is chosen with --endpoint",
        found=spec,
        expected="http://HOST:PORT (the server's root, or .../v1)",
        fix=f"--server {name}={root} --endpoint {path}",
    )


def parse_targets(
    *,
    configs: str | Iterable[str] | None = None,
    servers: Iterable[str] | None = None,
    launch: str = "embedded",
    recipes: Path | None = None,
) -> TargetPlan:
    """The :class:`TargetPlan` of a command line (see the module doc).

    Raises:
        ConfigError: an unknown ``--launch``, ``--server`` with ``--launch vllm``, ``--recipes`` without
            ``--launch vllm`` (nothing would read it), or a bad ``--server`` entry.
    """
    if launch not in LAUNCHERS:
        raise ConfigError.invalid_value("--launch", launch, f"one of {', '.join(LAUNCHERS)}", choices=LAUNCHERS)
    names = parse_configs(configs)
    specs = list(servers or ())
    recipe_launch = f"--launch {RECIPE_LAUNCHER}"  # the one launcher that reads --recipes
    if recipes is not None and (specs or launch != RECIPE_LAUNCHER):  # nothing else reads the file: never ignore it
        who = f"--server {' '.join(specs)}" if specs else f"--launch {launch}"
        raise ConfigError(
            f"--recipes applies to {recipe_launch} only",
            found=f"--recipes {recipes} with {who}",
            expected=f"--recipes FILE with {recipe_launch} (the recipes it starts)",
            fix="drop --recipes" + ("" if specs else f", or add {recipe_launch} to launch its recipes"),
        )
    if specs:
        if launch == RECIPE_LAUNCHER:
            raise ConfigError(
                f"--server and {recipe_launch} both choose who serves the configs",
                found=f"--server {' '.join(specs)} {recipe_launch}",
                expected="one of them",
                fix=f"drop {recipe_launch} to measure your servers, or drop --server to launch recipes",
            )
        return TargetPlan("external", names, parse_servers(specs, names))
    return TargetPlan(RECIPE_LAUNCHER if launch == RECIPE_LAUNCHER else "embedded", names, recipes=recipes)
