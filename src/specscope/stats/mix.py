"""Traffic mixes: parsing them, and the per-round figures a mix's speedup rests on.

* **Token mix** (``--mix prose=0.2,code=0.3,edit=0.5``): each workload w gets a share m_w of the *output tokens*.
  Serving them takes ``sum_w m_w / rate_w`` seconds per token, so the mix's rate is the harmonic form
  ``H = 1 / sum_w (m_w / rate_w)`` (tokens/s) and the speedup of config X over the baseline B is
  ``S_mix = H_X / H_B = sum_w (m_w / B_w) / sum_w (m_w / X_w)``.
* **Level mix** (``--level-mix 1=0.6,4=0.4``): traffic that spends a share t_n of its wall time with n requests in
  flight serves ``sum_n t_n * H(n)`` tokens per second of wall time (H at each level from the token mix, equal token
  shares without one).
* **Rounds.** A mix's interval is the t-interval on the log of its per-round ratios
  (:func:`specscope.stats.speedup.log_ratio_interval`), as for one comparison: round r of a mix is repeat r of
  every workload (and level) in it (the config cell's repeat index of each pair that
  :func:`specscope.stats.speedup.paired_rounds` kept), so a round is resampled with all its parts. A repeat that
  some part lacks (a cold start left out, a failed cell) is no round of the mix: pairing parts by position instead
  would put repeat 1 of one workload beside repeat 0 of another and move the mix outside its parts' range.

A mix is read by the one NAME=VALUE list parser (:func:`specscope.values.parse_pairs`: no empty item, each name
once), its shares finite and >= 0, its levels whole numbers >= 1. Shares that do not sum to 1 are normalised and the
normalisation is said (:attr:`Shares.note`). A refused value's fix is a command that runs: the caller passes its
command line so far (``specscope advise RUN``) and the run's workloads, and the fix is that command with an equal
mix of them (:func:`equal_mix`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from specscope.errors import ConfigError
from specscope.values import parse_pairs

__all__ = [
    "Shares",
    "equal_mix",
    "parse_mix",
    "require_workloads",
    "parse_level_mix",
    "mix_rate",
    "RoundPairs",
    "common_rounds",
    "mix_round_ratios",
    "level_mix_round_ratios",
]

K = TypeVar("K", str, int)


@dataclass(frozen=True)
class Shares(Generic[K]):
    """Shares normalised to sum 1 (``shares``), as typed (``given``), and what they are shares of (``of``)."""

    shares: dict[K, float]
    given: dict[K, float]
    of: str

    @property
    def note(self) -> str:
        """ "" when the typed shares summed to 1; else the normalisation, e.g. ``the --mix shares sum to 0.8;
        normalised to prose=0.62, code=0.38``."""
        total = sum(self.given.values())
        if math.isclose(total, 1.0, rel_tol=1e-9, abs_tol=1e-9):
            return ""
        listing = ", ".join(f"{k}={v:.2f}" for k, v in self.shares.items())
        return f"the {self.of} shares sum to {total:g}, not 1; normalised to {listing}"


def _share(of: str, fix: str) -> Callable[[str], float]:
    """The reader of one share of ``of`` (a finite number >= 0; shares are normalised afterwards)."""

    def read(text: str) -> float:
        try:
            share = float(text)
        except ValueError:
            share = -1.0
        if not math.isfinite(share) or share < 0:
            raise ConfigError(
                f"a share of the {of} must be a finite number >= 0",
                found=text,
                expected="NAME=SHARE with SHARE >= 0 (the shares are normalised to sum 1)",
                fix=fix,
            )
        return share

    return read


def _level(text: str, fix: str) -> int:
    """A ``--level-mix`` level: a whole number >= 1."""
    try:
        level = int(text)
    except ValueError:
        level = 0
    if level < 1:
        raise ConfigError(
            "a level of the --level-mix must be a whole number >= 1",
            found=text,
            expected="LEVEL=SHARE with LEVEL a measured concurrency level",
            fix=fix,
        )
    return level


def _parse(text: str, of: str, key: Callable[[str], K], example: str, command: str) -> Shares[K]:
    """``text`` read by the one NAME=VALUE list parser (:func:`specscope.values.parse_pairs`: no empty item, each
    item NAME=VALUE, each name once), each share by :func:`_share`, each name by ``key``; ``example``: a good value
    (``prose=0.5,code=0.5``), ``command``: the command line a fix completes."""
    fix = f"{command} {of} {example}".strip()
    given: dict[K, float] = {}
    for name, share in parse_pairs(text, of, example, _share(of, fix)).items():
        k = key(name)
        if k in given:
            raise ConfigError(f"{of} names {k!r} twice", found=text, expected="each name once", fix=fix)
        given[k] = share
    total = sum(given.values())
    if not math.isfinite(total):  # each share finite, their sum past a float: v / inf is 0 for every one
        raise ConfigError(
            f"the {of} shares sum past the largest number a float holds",
            found=text,
            expected="shares whose sum is a finite number (they are normalised to sum 1: 2,3,5 means 0.2,0.3,0.5)",
            fix=fix,
        )
    if total <= 0:
        raise ConfigError(
            f"a {of} needs a positive share",
            found=text,
            expected="shares summing to more than 0",
            fix=fix,
        )
    return Shares({k: v / total for k, v in given.items() if v > 0}, given, of)


def equal_mix(names: Sequence[object]) -> str:
    """Equal shares of ``names`` that read back exactly equal: ``"code=0.5,prose=0.5"`` where 1/n has two decimals,
    else each written as 1 (``"code=1,edit=1,prose=1"``: shares are normalised when read, :func:`parse_mix`), so
    the fix a command prints gives exactly the equal shares ``report`` uses by default: rounded decimals
    (``0.34,0.33,0.33``) gave figures that differ from the report's (new-user finding, 2026-12-05)."""
    n = len(names)
    share = f"{1 / n:g}" if n and 100 % n == 0 else "1"
    return ",".join(f"{name}={share}" for name in names)


def parse_mix(text: str, workloads: Sequence[str] | None = None, command: str = "") -> Shares[str]:
    """``"prose=0.2,code=0.3,edit=0.5"`` -> token shares per workload, normalised to sum 1.

    ``workloads``: the run's (checked, and the fix's example mix); ``command``: the command line the fix completes
    (``specscope advise runs/run-1``; "": the fix shows the option alone).

    Raises:
        ConfigError: an empty item, an item not NAME=SHARE, a negative or non-finite share, a repeated workload,
            all shares zero, shares whose sum is past a float, or (with ``workloads``) a workload the run does not have.
    """
    example = equal_mix(sorted(workloads)) if workloads else "prose=0.2,code=0.3,edit=0.5"
    shares = _parse(text, "--mix", str, example, command)
    if workloads is not None:
        require_workloads(shares.given, workloads, command=command)
    return shares


def parse_level_mix(text: str, levels: Sequence[int] | None = None, command: str = "") -> Shares[int]:
    """``"1=0.6,4=0.4"`` -> share of wall time per concurrency level, normalised to sum 1.

    ``levels``: the run's measured levels (the fix's example: equal shares of them); ``command``: the command line the
    fix completes (``specscope advise runs/run-1``; "": the fix shows the option alone).

    Raises:
        ConfigError: an empty item, an item not LEVEL=SHARE, a level not a whole number >= 1, a negative or
            non-finite share, a repeated level (``1`` and ``01`` too), all shares zero, or shares whose sum is past a
            float.
    """
    example = equal_mix(sorted(levels)) if levels else "1=0.6,4=0.4"
    fix = f"{command} --level-mix {example}".strip()
    return _parse(text, "--level-mix", lambda name: _level(name, fix), example, command)


def require_workloads(
    mix: Mapping[str, float], workloads: Sequence[str], where: str = "the run", *, command: str = ""
) -> None:
    """Raises ConfigError naming every workload of ``mix`` that is not one of ``workloads`` (``where``: whose);
    its fix is ``command`` with an equal mix of ``workloads`` (:func:`equal_mix`)."""
    missing = [w for w in mix if w not in workloads]
    if missing:
        names = ", ".join(repr(w) for w in missing)
        raise ConfigError(
            f"workload {names} of the --mix is not in {where}"
            if len(missing) == 1
            else f"workloads {names} of the --mix are not in {where}",
            found=", ".join(missing),
            expected=f"workloads of {where}: {', '.join(sorted(workloads))}",
            fix=f"{command} --mix {equal_mix(sorted(workloads))}".strip(),
        )


def mix_rate(rates: Sequence[float], shares: Sequence[float]) -> float:
    """The token mix's rate ``1 / sum_w (m_w / rate_w)`` (tokens/s) of per-workload ``rates`` (tokens/s, > 0)."""
    return 1.0 / sum(m / r for m, r in zip(shares, rates, strict=True))


RoundPairs = Mapping[int, tuple[float, float]]
"""One part's paired rounds: repeat index -> (config value, baseline value) (tokens/s)."""


def common_rounds(parts: Sequence[RoundPairs]) -> list[int]:
    """The repeat indices every part has, ascending (module docstring)."""
    if not parts:
        return []
    keys = set(parts[0])
    for p in parts[1:]:
        keys &= set(p)
    return sorted(keys)


def mix_round_ratios(pairs: Sequence[RoundPairs], shares: Sequence[float]) -> list[float]:
    """Per round (a repeat every workload has), ``S_mix`` from each workload's paired values (module docstring)."""
    out = []
    for r in common_rounds(pairs):
        x = mix_rate([p[r][0] for p in pairs], shares)
        b = mix_rate([p[r][1] for p in pairs], shares)
        out.append(x / b)
    return out


def level_mix_round_ratios(
    levels: Mapping[int, Sequence[RoundPairs]],
    token_shares: Sequence[float],
    time_shares: Mapping[int, float],
) -> list[float]:
    """Per round (a repeat every level and workload has), the level mix's ``sum_n t_n H_X(n) / sum_n t_n H_B(n)``
    from each level's per-workload paired values (module docstring)."""
    out = []
    for r in common_rounds([p for parts in levels.values() for p in parts]):
        x = sum(t * mix_rate([p[r][0] for p in levels[lev]], token_shares) for lev, t in time_shares.items())
        b = sum(t * mix_rate([p[r][1] for p in levels[lev]], token_shares) for lev, t in time_shares.items())
        out.append(x / b)
    return out
