"""Old option names: hidden aliases of the one vocabulary (docs/cli.md), each printing one deprecation line.

An alias is never declared as an option (so ``--help`` shows only the current names); :class:`VocabCommand`, the
click command class of every ``specscope`` command, rewrites the old spelling on the command line before click
parses it and prints ``warning: --levels is deprecated: use --max-concurrency`` once on stderr. The same table
names the old keys of run files (:func:`key_aliases`: ``levels = [1]`` in a ``bench --run-file`` is read as
``max-concurrency`` with one deprecation line). ``bench``'s
aliases come from its option spec (:data:`specscope.bench.spec.BENCH_SPEC`, ``aliases``); the other commands'
are in :data:`ALIASES`. This module and the spec are the only places the old names are written.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click
import typer
import typer.core

from specscope.cli.empty_paths import refuse_empty_paths

__all__ = [
    "ALIASES",
    "FORMAT_VALUE_ALIASES",
    "Alias",
    "VocabCommand",
    "VocabGroup",
    "aliases_of",
    "key_aliases",
    "rewrite_args",
]


@dataclass(frozen=True)
class Alias:
    """An old flag and what it means now.

    Attributes:
        old: the old flag (``--levels``).
        new: the current flag (``--max-concurrency``).
        value: the old value in the new option's terms (None: the same text); with ``flag=True`` the old option
            takes no value.
        extra: more arguments the old flag implied (``--recipe NAME`` = ``--configs NAME --launch vllm``).
        flag: the old option is a switch (no value).
    """

    old: str
    new: str
    value: Callable[[str], str] | None = None
    extra: tuple[str, ...] = ()
    flag: bool = False


def _same(old: str, new: str) -> Alias:
    return Alias(old, new)


#: old ``-f`` value names -> the current ones.
FORMAT_VALUE_ALIASES = {"table": "text"}

#: command name -> its old flags (``bench``'s come from its spec).
ALIASES: dict[str, tuple[Alias, ...]] = {
    "advise": (
        _same("--concurrency", "--max-concurrency"),
        Alias("--slo-ttft", "--slo", value=lambda v: f"ttft={v}"),
        _same("--config", "--acceptance-config"),
    ),
    "gate": (
        _same("--config", "--configs"),
        Alias("--recipe", "--configs", extra=("--launch", "vllm")),
        Alias("--embedded", "--launch", value=lambda _: "embedded", flag=True),
        _same("--profile", "--run-file"),
        Alias("--print-profile", "--print-run-file", flag=True),
    ),
    "serve": (_same("--start-timeout-s", "--start-timeout"),),
    "predict": (Alias("--overhead-ms", "--overhead", value=lambda v: f"{v}ms"),),
}


def _bench_aliases() -> tuple[Alias, ...]:
    from specscope.bench.spec import BENCH_SPEC

    return tuple(Alias(old, o.flag) for o in BENCH_SPEC for old in o.aliases)


def aliases_of(command: str) -> tuple[Alias, ...]:
    """The old flags of ``command`` (its name, e.g. ``bench`` or ``prune-unindexed``)."""
    return _bench_aliases() if command == "bench" else ALIASES.get(command, ())


def key_aliases(command: str) -> dict[str, str]:
    """Old run-file key -> current key of ``command`` (``levels`` -> ``max-concurrency``): the plain renames of its
    aliases (an alias that changes the value or adds arguments has no run-file form)."""
    return {a.old[2:]: a.new[2:] for a in aliases_of(command) if a.value is None and not a.extra and not a.flag}


def rewrite_args(args: list[str], aliases: tuple[Alias, ...], warn: Callable[[str], None]) -> list[str]:
    """``args`` with every old flag in its current spelling; ``warn`` gets one line per old flag used.

    ``--old VALUE`` and ``--old=VALUE`` are both rewritten; nothing after ``--`` is touched.
    """
    table = {a.old: a for a in aliases}
    out: list[str] = []
    warned: set[str] = set()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out.extend(args[i:])
            break
        name, eq, inline = arg.partition("=")
        alias = table.get(name) if name.startswith("--") else None
        if alias is None:
            out.append(arg)
            i += 1
            continue
        if alias.old not in warned:
            warned.add(alias.old)
            warn(
                f"warning: {alias.old} is deprecated: use {alias.new}"
                + (" " + " ".join(alias.extra) if alias.extra else "")
            )
        if alias.flag:
            value, i = "", i + 1
        elif eq:
            value, i = inline, i + 1
        elif i + 1 < len(args):
            value, i = args[i + 1], i + 2
        else:  # the old flag without its value: let click say so under the new name
            out.append(alias.new)
            break
        new_value = alias.value(value) if alias.value is not None else value
        out.extend([alias.new] + ([new_value] if (new_value or not alias.flag) else []) + list(alias.extra))
    return out


def _warn(line: str) -> None:
    click.echo(line, err=True)


_TYPE_METAVARS = {"int": "N", "float": "X", "Path": "PATH", "str": "TEXT", "bool": ""}


def _kind_of(param: Any) -> str:
    """``int`` / ``float`` / ``Path`` / ``str`` / ``bool``: the value type typer read from the annotation."""
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    return getattr(annotation, "__name__", "")


def _usage(param: Any) -> Any:
    name = param.metavar if param.required else f"[{param.metavar}]"
    return lambda ctx: [name + ("..." if param.nargs != 1 else "")]


def _plain_flags(params: list[Any]) -> list[Any]:
    """``params`` with placeholders a person reads in ``--help``: nothing after a switch (no ``<bool>``), an
    argument by its own name with no type tag (``RUNS...``, not ``{runs}`` and ``<path>``), a kind for an option
    without a metavar (``N``, ``PATH``, ``TEXT``)."""
    for p in params:
        if p.param_type_name == "argument":
            if p.metavar is None:
                p.metavar = (p.name or "value").upper()
            p.display_type_rich = lambda ctx: None  # the name says it; typer would add <path>
            p.get_usage_pieces = _usage(p)  # RUNS... and [RUN]; typer writes a required one {runs}
        elif p.metavar is None:
            p.metavar = "" if getattr(p, "is_flag", False) else _TYPE_METAVARS.get(_kind_of(p), "VALUE")
    return params


def reflow(text: str | None) -> str | None:
    """A help text with each paragraph on one line, so ``--help`` wraps it at the terminal's width and not where the
    source wrapped it (typer's rich help keeps single newlines). A paragraph whose first line is indented or marked
    ``\\b`` (click's "keep as written") stays as written: examples, tables."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p if p[:1] in (" ", "\b") else " ".join(p.split()) for p in paragraphs)


class VocabCommand(typer.core.TyperCommand):
    """A typer command that accepts its old flags (:data:`ALIASES`), each with one deprecation line, shows
    switches without a ``<bool>`` placeholder, and wraps its help paragraphs at the terminal (:func:`reflow`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_flags(super().get_params(ctx))

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer's own (vendored) click Context
        args = rewrite_args(list(args), aliases_of(self.name or ""), _warn)
        refuse_empty_paths(self.params, args)
        return super().parse_args(ctx, args)

    @property
    def short_help(self) -> str | None:
        """What ``specscope --help`` lists: the given short help, else the help's first sentence on one line."""
        given: str | None = self.__dict__.get("_short_help")
        return given or (first_sentence(self.help) if self.help else None)

    @short_help.setter
    def short_help(self, value: str | None) -> None:
        self.__dict__["_short_help"] = value


def first_sentence(text: str) -> str:
    """The first sentence of a help text, on one line (``specscope --help`` lists each command by it)."""
    flat = " ".join(text.split("\n\n")[0].split())
    head, dot, _ = flat.partition(". ")
    return head + "." if dot else flat


class VocabGroup(typer.core.TyperGroup):
    """The ``specscope`` group (and ``surgery``): switches shown without a ``<bool>`` placeholder, help paragraphs
    wrapped at the terminal (:func:`reflow`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_flags(super().get_params(ctx))
