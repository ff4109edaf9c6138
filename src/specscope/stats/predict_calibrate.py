"""The per-drafted-token overhead of the run-less prediction: given, or fitted on published measured rates.

The pure bandwidth model (:mod:`specscope.stats.predict_published`, overhead 0) over-predicts a real server: seed
003's inputs give 43.98 tok/s at k=5 where the seed measured 31.75, because each drafted token costs time the
bytes do not show (draft sampling, kernel launches, the wider verify batch). The step-time model of
:mod:`specscope.stats.predict` carries that cost as ``draft_overhead_s`` per drafted token. In the run-less mode it
comes from one of:

* ``--overhead`` (milliseconds per drafted token): the value ``specscope predict RUN`` prints per config;
* ``--fit-k 1=20.00,2=26.48`` (k = measured tok/s, published): fitted by least squares on those k
  (:func:`specscope.stats.predict.fit_overhead_s`); the other k are then predicted out of sample.

``--compare k=rate,...`` (published measured tok/s) gives each predicted k an error ``predicted / measured - 1``
(fraction); a fitted k's error is in-sample and its row says ``fitted``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from specscope.errors import ConfigError
from specscope.stats.predict import OVERHEAD_HELD_AT_ZERO, StepModel, fit_overhead_s, tokens_per_step
from specscope.values import csv_items

__all__ = ["Calibration", "parse_k_rates", "fitted_overhead_s", "calibration_note"]


@dataclass(frozen=True)
class Calibration:
    """How the run-less prediction gets its draft overhead and what it is checked against.

    Attributes:
        overhead_s: a given overhead (seconds per drafted token), or None.
        fit_tok_s: k -> published measured decode rate (tokens/s) to fit the overhead on; empty: no fit.
        compare_tok_s: k -> published measured decode rate (tokens/s) to print each row's error against.
    """

    overhead_s: float | None = None
    fit_tok_s: Mapping[int, float] = field(default_factory=dict)
    compare_tok_s: Mapping[int, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.overhead_s is not None and self.fit_tok_s:
            raise ConfigError(
                "--overhead and --fit-k both set the draft overhead",
                found=f"--overhead {self.overhead_s * 1e3:g}ms and --fit-k {_spell(self.fit_tok_s)}",
                expected="one of them",
                fix="drop --overhead to fit the overhead on --fit-k, or drop --fit-k to use the given one",
            )

    def measured(self, k: int) -> float | None:
        """The published measured rate at k (tokens/s): ``--compare`` first, else ``--fit-k``; None if neither."""
        return self.compare_tok_s.get(k, self.fit_tok_s.get(k))


def _spell(rates: Mapping[int, float]) -> str:
    return ",".join(f"{k}={v:g}" for k, v in sorted(rates.items()))


#: the largest single-stream decode rate a k=rate entry may state (tokens/s): 1e308 made every figure a 300-digit number
MAX_DECODE_TOK_S = 1e7
#: the smallest decode rate a user may state (tokens/s, one token in 1,000 s): --measured 1e-320 (a subnormal) made the
#: effective bandwidth 0 and the speedup a division by zero, exit 3; --compare 1=1e-320 an error of +inf% (attack53)
MIN_DECODE_TOK_S = 1e-3


def is_decode_rate(rate: float) -> bool:
    """Whether ``rate`` (tokens/s, one stream) is one a user may state: within [MIN_DECODE_TOK_S, MAX_DECODE_TOK_S]."""
    return MIN_DECODE_TOK_S <= rate <= MAX_DECODE_TOK_S


def parse_k_rates(text: str | None, option: str) -> dict[int, float]:
    """``"1=20.00,2=26.48"`` -> ``{1: 20.0, 2: 26.48}``: measured decode rates (tokens/s) by draft length k.

    ``None`` or empty -> ``{}``.

    Raises:
        ConfigError: an entry that is not ``k=rate`` with k a whole number >= 1 and a rate :func:`is_decode_rate`
            takes, or a k given twice.
    """
    out: dict[int, float] = {}
    for part in csv_items(text, option, "1=20.00,2=26.48") if text else ():
        k_text, sep, rate_text = part.partition("=")
        try:
            k, rate = int(k_text), float(rate_text)
        except ValueError:
            k, rate = 0, 0.0
        if not sep or k < 1 or not is_decode_rate(rate) or k in out:
            raise ConfigError(
                f"{option} takes measured tok/s by draft length k",
                found=text,
                expected=f"comma-separated k=tok/s, each k a whole number >= 1 once, each rate at least "
                f"{MIN_DECODE_TOK_S:g} and at most {MAX_DECODE_TOK_S:,.0f} (outside that it is a typo)",
                fix=f"e.g. {option} 1=20.00,2=26.48",
            )
        out[k] = rate
    return out


def fitted_overhead_s(model: StepModel, per_position: Sequence[float], fit_tok_s: Mapping[int, float]) -> float:
    """Least-squares overhead (seconds per drafted token) that makes ``model`` meet the rates of ``fit_tok_s``.

    Each k contributes ``(k, tokens_per_step(per_position, k), rate)`` to
    :func:`specscope.stats.predict.fit_overhead_s`: c = sum_j k_j r_j / sum_j k_j^2, r_j the measured step time
    ``tokens_per_step / rate`` minus the byte term ``(target + k x draft bytes) / effective bandwidth`` (s).
    """
    points = [(k, tokens_per_step(per_position, k), rate) for k, rate in sorted(fit_tok_s.items())]
    return fit_overhead_s(model, points)


def calibration_note(cal: Calibration, overhead_s: float, max_k: int) -> str | None:
    """The sentence that says where the overhead came from and which k are out of sample; None without one."""
    if cal.fit_tok_s:
        fitted = sorted(cal.fit_tok_s)
        held = [k for k in range(1, max_k + 1) if k not in cal.fit_tok_s]
        zero = f"; {OVERHEAD_HELD_AT_ZERO}" if overhead_s == 0.0 else ""
        return (
            f"draft overhead {overhead_s * 1e3:.3f} ms per drafted token, least squares on the measured rates at "
            f"k={','.join(map(str, fitted))} (rows 'fitted', errors in-sample); "
            + (f"k={','.join(map(str, held))} predicted out of sample" if held else "no k left out of the fit")
            + zero
        )
    if cal.overhead_s is not None:
        return f"draft overhead {overhead_s * 1e3:.3f} ms per drafted token, given (--overhead)"
    return None
