"""The k axis: one speculative config becomes one config per draft length k (issue 16).

A config expanded for k is named ``NAME-kK`` (``draft-k4``: the ``draft`` config with 4 draft tokens per
step). The embedded engine (:func:`specscope.engine.get_config`) and the vLLM recipes
(:meth:`specscope.launch.recipes.RecipeBook.get`) both resolve such a name from the base config, so each k is
started and measured like any other config. This module spells and parses the names, and is the one home of what a
draft length is (:data:`K_MAX`, :func:`is_draft_length`): ``--k``, a config name's k (bench naming, the import's k
check, the report's and predict's k column through :func:`specscope.stats.server_spec.spec_k`) and a k the server
facts state all read it here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from specscope.errors import ConfigError

__all__ = ["K_MAX", "is_draft_length", "k_name", "split_k_name", "parse_k_list", "expand_k"]

#: The longest draft per verify step believed as a k (tokens), wherever a k comes from: ``--k``, a config name's
#: ``-kK``, a k the server facts or the responses state. What the engines accept: vLLM's ``num_speculative_tokens``
#: only > 0 (``vllm/config/speculative.py`` ``SpeculativeConfig``, ``Field(gt=0)``), llama.cpp's
#: ``--spec-draft-n-max`` any int and its ``--spec-ngram-mod-n-max`` 0..1024 (``common/arg.cpp`` at 0017d6fb; default
#: 64) -- 1024 is the one bound an engine states, so a k up to it is one a server can run (64 would have made the
#: report forget the k of an ngram-mod server at n-max 128). Past it a number is no draft length
#: (``mtp-k`` and 30 nines, a date ``run-k20261206``): sized into lists of k positions it made report exit 3 and
#: predict run out of memory (issue 37).
K_MAX = 1024

#: ``NAME-kK``: a base, ``-k``, a whole number without a leading zero and with at most as many digits as K_MAX (so a
#: long run of digits is never handed to ``int()``); the k itself is then checked against K_MAX.
_K_NAME = re.compile(rf"(?P<base>.+)-k(?P<k>[1-9][0-9]{{0,{len(str(K_MAX)) - 1}}})")

#: an entry of ``--k``: ASCII digits (``str.isdigit`` takes ``²``, which ``int()`` refuses), no more than K_MAX has
_DIGITS = re.compile(rf"[0-9]{{1,{len(str(K_MAX))}}}")


def is_draft_length(k: object, least: int = 1) -> bool:
    """``k`` is a draft length: an int in ``least``..:data:`K_MAX` (a bool is no count). ``least`` 0 where a stated
    k of 0 means "drafts nothing" (server facts)."""
    return isinstance(k, int) and not isinstance(k, bool) and least <= k <= K_MAX


def k_name(base: str, k: int) -> str:
    """The name of config ``base`` at draft length ``k`` tokens: ``draft``, 4 -> ``draft-k4``."""
    return f"{base}-k{k}"


def split_k_name(name: str) -> tuple[str, int | None]:
    """The one reading of the k a config name carries: ``"draft-k4"`` -> ``("draft", 4)``; ``(name, None)`` when
    the name carries none.

    The grammar is the one :func:`k_name` writes (``bench --k``) and the engine and the recipes resolve: ``BASE-kK``
    with a non-empty base and K a draft length (:func:`is_draft_length`, 1..:data:`K_MAX`, no leading zero). So
    ``mtpk3`` and ``k3`` (no ``-k`` after a base), ``mtp-k0`` and ``mtp-k03``, ``mtp-k1025`` and ``mtp-k`` followed
    by 30 nines or a date (``run-k20261206``) carry no k: the name is its own base.
    """
    m = _K_NAME.fullmatch(name)
    if m is None or not is_draft_length(int(m.group("k"))):
        return name, None
    return m.group("base"), int(m.group("k"))


def parse_k_list(text: str | None, what: str = "--k") -> tuple[int, ...]:
    """``"1,2,4"`` -> ``(1, 2, 4)`` (sorted); ``None`` or empty -> ``()``. ``what``: the option named in the error
    (``--k``, ``--holdout``).

    Raises:
        ConfigError: an entry that is not a draft length (a whole number in 1..K_MAX), or a k given twice (refused,
            as a repeated rate or concurrency level is: ``--k 2,2`` was silently read as ``--k 2``).
    """
    if not text:
        return ()
    out: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        if not (_DIGITS.fullmatch(part) and is_draft_length(int(part))):
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
