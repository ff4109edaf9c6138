"""The k axis: one speculative config becomes one config per draft length k (issue 16).

A config expanded for k is named ``NAME-kK`` (``draft-k4``: the ``draft`` config with 4 draft tokens per
step). The embedded engine (:func:`specscope.engine.get_config`) and the vLLM recipes
(:meth:`specscope.launch.recipes.RecipeBook.get`) both resolve such a name from the base config, so each k is
started and measured like any other config. This module only spells and parses the names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from specscope.errors import ConfigError

__all__ = ["K_MAX", "k_name", "split_k_name", "parse_k_list", "expand_k"]

#: The largest draft length accepted on the axis (llama.cpp's ``--spec-draft-n-max`` bound).
K_MAX = 64

_K_NAME = re.compile(r"^(?P<base>.+)-k(?P<k>[1-9][0-9]*)$")


def k_name(base: str, k: int) -> str:
    """The name of config ``base`` at draft length ``k`` tokens: ``draft``, 4 -> ``draft-k4``."""
    return f"{base}-k{k}"


def split_k_name(name: str) -> tuple[str, int | None]:
    """``"draft-k4"`` -> ``("draft", 4)``; a name without a k suffix -> ``(name, None)``."""
    m = _K_NAME.match(name)
    if m is None:
        return name, None
    return m.group("base"), int(m.group("k"))


def parse_k_list(text: str | None, what: str = "--k") -> tuple[int, ...]:
    """``"1,2,4"`` -> ``(1, 2, 4)`` (sorted); ``None`` or empty -> ``()``. ``what``: the option named in the error
    (``--k``, ``--holdout``).

    Raises:
        ConfigError: an entry that is not a whole number in 1..K_MAX, or a k given twice (refused, as a repeated
            rate or concurrency level is: ``--k 2,2`` was silently read as ``--k 2``).
    """
    if not text:
        return ()
    out: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        if not part.isdigit() or not 1 <= int(part) <= K_MAX:
            raise ConfigError(
                f"{what} takes draft lengths in tokens",
                found=text,
                expected=f"comma-separated whole numbers 1..{K_MAX}",
                fix=f"e.g. {what} 1,2,4",
            )
        if int(part) in out:
            raise ConfigError(
                f"{what} gives k={int(part)} twice",
                found=text,
                expected="each draft length once",
                fix="drop the repeat",
            )
        out.add(int(part))
    return tuple(sorted(out))


def expand_k(configs: Iterable[str], ks: Iterable[int], speculative: Callable[[str], bool]) -> tuple[str, ...]:
    """Each config for which ``speculative(name)`` holds becomes one config per k (in the order of ``ks``);
    the others (the baseline) stay as they are. ``ks`` empty: ``configs`` unchanged.

    >>> expand_k(["base", "draft"], [1, 2], lambda n: n != "base")
    ('base', 'draft-k1', 'draft-k2')
    """
    ks = tuple(ks)
    out: list[str] = []
    for name in configs:
        if ks and speculative(name):
            out.extend(k_name(name, k) for k in ks)
        else:
            out.append(name)
    return tuple(out)
