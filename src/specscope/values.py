"""One parser per kind of value a person types: durations, rates, sizes, bandwidths, lists and NAME=VALUE lists.

Every command reads a kind of value through the one function here, so each accepts the same units and refuses
the same way: a :class:`~specscope.errors.ConfigError` with what was found, what was expected and the fix (exit 2).

- **Durations** (:func:`parse_duration_s`): a bare number is seconds; units ``ns``, ``us`` (``µs``), ``ms``, ``s``,
  ``m`` (``min``), ``h``, ``d``, also combined as Prometheus writes them (``1m30s``). Result in seconds;
  :func:`duration_text` writes one back (``120ms``).
- **Rates** (:func:`parse_rate_per_s`, :func:`parse_rate_list`): events per second, a bare number or with ``/s``.
- **Sizes** (:func:`parse_bytes`): ``17.61GB`` (decimal prefixes, powers of 1000), ``0.79GiB`` (binary, powers of
  1024: IEC 80000-13, as pydantic's ``ByteSize`` reads them); a bare number is bytes.
- **Bandwidths** (:func:`parse_bandwidth`): a size per second, ``273GB/s``, ``4.8TB/s``, ``800GiB/s``, ``273GBps``, or a
  device name from a table the caller passes (the audit's ``NAMED_BANDWIDTHS_BYTES_PER_S``).
- **Lists** (:func:`csv_items`, :func:`parse_int_list`, :func:`parse_float_list`): comma-separated, none empty.
- **NAME=VALUE lists** (:func:`parse_pairs`): ``a=1,b=2`` or repeated ``--opt a=1 --opt b=2``; each value read by
  the parser of its kind.
- **Fractions** (:func:`parse_fraction`): ``0.05`` or ``5%``, in ``[0, 1)``.
- **Text widths** (:func:`parse_width`): a whole number of characters, :data:`MIN_WIDTH` to :data:`MAX_WIDTH`.
- **Ratios written** (:func:`ratio_text`): a speedup or a concurrency, ``1.23x``, ``0.0077x`` (a tiny ratio keeps
  two significant digits, never ``0.00x``).
- **Token counts** (:func:`parse_token_count`): ``2k`` = 2048 tokens (1k = 1024, as context windows are sized), or
  a bare whole number of tokens.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from specscope.errors import ConfigError
from specscope.textsafe import clip

__all__ = [
    "BYTE_UNITS",
    "apply_only",
    "ascii_number",
    "stray_character",
    "empty_path_error",
    "check_name",
    "check_api_key",
    "count_noun",
    "percent_text",
    "DURATION_UNITS_S",
    "OVERHEAD_BOUNDS_S",
    "SLO_BOUNDS_S",
    "parse_slo_s",
    "STEP_BYTES_BOUNDS",
    "TIMEOUT_BOUNDS_S",
    "MAX_RATE_PER_S",
    "MAX_WIDTH",
    "MIN_RATE_PER_S",
    "MIN_WIDTH",
    "csv_items",
    "duration_text",
    "parse_bandwidth",
    "parse_bytes",
    "parse_duration_s",
    "parse_float_list",
    "parse_fraction",
    "parse_int_list",
    "parse_pairs",
    "parse_rate_list",
    "parse_rate_per_s",
    "parse_token_count",
    "parse_width",
    "ratio_text",
]

T = TypeVar("T")

#: duration unit -> seconds (``us`` and ``µs`` are microseconds, ``m`` and ``min`` minutes).
DURATION_UNITS_S: dict[str, float] = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "min": 60.0,
    "h": 3600.0,
    "d": 86400.0,
}
#: a whole number's text: ASCII digits (at most 100: past that no count or level is meant), an optional leading -
_WHOLE = re.compile(r"-?[0-9]{1,100}")
_NUMBER = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[+-]?[0-9]+)?"
_DURATION_PART = re.compile(rf"({_NUMBER})\s*(ns|us|µs|ms|min|s|m|h|d)", re.IGNORECASE)
_DURATION = re.compile(rf"(?:\s*{_NUMBER}\s*(?:ns|us|µs|ms|min|s|m|h|d)\s*)+", re.IGNORECASE)
_DURATION_EXAMPLES = "a number of seconds or a number with a unit (ns, us, ms, s, m, h, d), e.g. 30s, 500ms, 2us, 1m30s"


def _refuse(what: str, found: object, expected: str, example: str) -> ConfigError:
    return ConfigError(f"{what} takes {expected.split(':')[0]}", found=found, expected=expected, fix=example)


#: the (lowest, highest) duration an option of each meaning can take, in seconds; outside, a typo. ``1e-300s`` as
#: an SLO printed "SLO of 1e-291ns" and as a read timeout failed every request at once.
#: An SLO (a TTFT or a time per output token): 1 us (below any server's token time by a thousandfold) to 1 day.
SLO_BOUNDS_S = (1e-6, 86400.0)
#: A timeout (a read, a stall, a start, a parse): 1 ms (below a loopback round trip's scheduling noise) to 1 day.
TIMEOUT_BOUNDS_S = (1e-3, 86400.0)
#: A draft overhead per drafted token: 0 (none) or 1 ns to 1 s (a token's draft costs less than a whole step).
OVERHEAD_BOUNDS_S = (1e-9, 1.0)


def parse_duration_s(
    text: str | float | int,
    what: str = "a duration",
    *,
    allow_zero: bool = False,
    bounds: tuple[float, float] | None = None,
    unit: str | None = None,
) -> float:
    """``"500ms"`` -> 0.5; ``"2us"`` -> 2e-06; ``"1m30s"`` -> 90.0; ``"30"`` (or 30) -> 30.0 (seconds).

    ``what`` names the option in the error (``--read-timeout``); ``allow_zero`` accepts 0; ``bounds`` (low, high),
    e.g. :data:`SLO_BOUNDS_S` or :data:`TIMEOUT_BOUNDS_S`, are the durations the option's meaning allows (0 stays
    allowed with ``allow_zero``). ``unit`` (``"ms"``): the option's scale is not seconds, so a bare number other
    than 0 (``--overhead 7.5``) is refused with the fix ``7.5ms``, never read as seconds.

    Raises:
        ConfigError: not a duration, not finite, not positive (zero allowed with ``allow_zero``), outside
            ``bounds``, or a bare number where ``unit`` is given.
    """
    if unit is not None and isinstance(text, str) and re.fullmatch(_NUMBER, text.strip()) and float(text) != 0:
        raise ConfigError(
            f"{what} takes a duration with its unit",
            found=text,
            expected=f"a number and a unit (ns, us, ms, s), e.g. {text.strip()}{unit}: a bare number would be seconds",
            fix=f"write the unit: {what} {text.strip()}{unit}",
        )
    seconds: float | None
    if isinstance(text, bool):
        seconds = None
    elif isinstance(text, int | float):
        seconds = float(text)
    elif not isinstance(text, str):  # a list or a table from a run file
        seconds = None
    else:
        s = text.strip()
        if re.fullmatch(_NUMBER, s, re.IGNORECASE):
            seconds = float(s)
        elif _DURATION.fullmatch(s):
            seconds = sum(float(n) * DURATION_UNITS_S[u.lower()] for n, u in _DURATION_PART.findall(s))
        else:
            seconds = None
    ok = seconds is not None and seconds == seconds and seconds != float("inf")
    if ok and seconds is not None and (seconds < 0 or (seconds == 0 and not allow_zero)):
        raise _out_of_bound(what, text, allow_zero, "a duration", "30s, 500ms or 2us", "30s")
    if not ok or seconds is None:
        raise ConfigError(
            f"{what} takes a {'non-negative' if allow_zero else 'positive'} duration",
            found=text,
            expected=_DURATION_EXAMPLES,
            fix="write a number and a unit, e.g. 30s, 500ms or 2us",
        )
    if bounds is not None and not (allow_zero and seconds == 0) and not bounds[0] <= seconds <= bounds[1]:
        low, high = (duration_text(b) for b in bounds)
        raise ConfigError.out_of_bounds(
            what,
            f"{what} takes a duration from {low} to {high}",
            found=f"{text} ({duration_text(seconds)})",
            expected=f"a duration from {low} to {high}"
            + (" (or 0)" if allow_zero else "")
            + f"; {'below' if seconds < bounds[0] else 'above'} that it is a typo",
            fix=f"check the number and its unit (ns, us, ms, s, m, h, d): the nearest allowed is "
            f"{duration_text(min(max(seconds, bounds[0]), bounds[1]))}",
        )
    return seconds


def parse_slo_s(text: str | float | int, what: str = "--slo") -> float:
    """An SLO target (``tpot=50ms``'s ``50ms``) -> seconds, the one reading of every command's ``--slo`` (bench,
    advise): within :data:`SLO_BOUNDS_S`, and a bare number (``50``) refused with the fix ``50ms``, never read as
    seconds (a run file's TOML number stays seconds).

    Raises:
        ConfigError: not a duration, outside :data:`SLO_BOUNDS_S`, or a bare number.
    """
    return parse_duration_s(text, what, bounds=SLO_BOUNDS_S, unit="ms")


def ratio_text(x: float, decimals: int = 2) -> str:
    """A ratio (a speedup, a concurrency: the ``x`` unit) as printed everywhere: ``1.2345`` -> ``"1.23x"``.

    ``decimals`` decimals while the ratio is at least ``10 ** (1 - decimals)`` (0.1 for two); a smaller one keeps two
    significant digits (``0.004`` -> ``"0.004x"``, ``0.00767`` -> ``"0.0077x"``), so a tiny ratio never reads as
    ``0.00x``; below 1e-9, scientific (``"3.0e-12x"``). Zero is ``"0.00x"``.
    """
    size = abs(x)
    if size == 0 or size >= 10 ** (1 - decimals) or not math.isfinite(x):
        return f"{x:.{decimals}f}x"
    if size < 1e-9:
        return f"{x:.1e}x"
    places = 1 - math.floor(math.log10(size))  # two significant digits
    text = f"{x:.{places}f}"
    while places > decimals and text.endswith("0"):
        text, places = text[:-1], places - 1
    return f"{text}x"


def percent_text(fraction: float | None, digits: int = 1) -> str:
    """0.475 -> ``"47.5%"``: a fraction (an acceptance rate, a coefficient of variation) as every screen shows it,
    ``digits`` decimals; None (absent, never 0) or NaN -> ``"—"``. JSON keeps the fraction."""
    if fraction is None or fraction != fraction:
        return "—"
    return f"{fraction * 100:.{digits}f}%"


def _out_of_bound(what: str, text: object, allow_zero: bool, kind: str, examples: str, example: str) -> ConfigError:
    """The refusal of a zero or negative value of ``kind`` (a duration, a byte size) for option or field ``what``:
    "must be > 0" (">= 0" with ``allow_zero``), naming the option in the fix when ``what`` is one."""
    bound = ">= 0" if allow_zero else "> 0"
    above = "zero or more" if allow_zero else "above zero"
    size = kind.rsplit(" ", 1)[-1]
    return ConfigError.out_of_bounds(
        what,
        f"{what} must be {bound}",
        found=str(text),
        expected=f"{kind} {bound}, e.g. {examples}",
        fix=f"give {what} a {size} {above}, e.g. {what} {example}"
        if what.startswith("--")
        else f"give a {size} {above}, e.g. {example}",
    )


def duration_text(seconds: float) -> str:
    """0.12 -> ``"120ms"``, 1e-06 -> ``"1us"``, 2.5 -> ``"2.5s"``, 90 -> ``"90s"``: a duration in the largest unit
    of ``s``, ``ms``, ``us``, ``ns`` that keeps it >= 1 (three significant digits; whole seconds from 1000 s), as
    :func:`parse_duration_s` reads it back."""
    for unit in ("s", "ms", "us", "ns"):
        value = seconds / DURATION_UNITS_S[unit]
        if abs(value) >= 1 or unit == "ns":
            return f"{value:.3g}{unit}" if abs(value) < 1000 else f"{value:.0f}{unit}"
    raise AssertionError("unreachable")  # pragma: no cover


#: the request rates an open loop can keep (per second): one request per 1000 s (below it a cell of even a few
#: prompts runs for hours, and ``1e-300`` put the second request 1e300 s out) to 100,000/s (ten times the most the
#: client has sent, 9,347 requests/s on one core in benchmarks/RESULTS.md: above it the schedule cannot be kept).
MIN_RATE_PER_S = 1e-3
MAX_RATE_PER_S = 1e5


def parse_rate_per_s(text: str | float | int, what: str = "a rate") -> float:
    """``"2"``, ``"2/s"`` or 2 -> 2.0 (per second), :data:`MIN_RATE_PER_S` to :data:`MAX_RATE_PER_S`.

    Raises:
        ConfigError: not a positive finite number (optionally followed by ``/s``), or outside the bounds.
    """
    value: float | None = None
    if isinstance(text, int | float) and not isinstance(text, bool):
        value = float(text)
    elif isinstance(text, str):
        s = text.strip().lower().removesuffix("/s").strip()
        value = float(s) if re.fullmatch(_NUMBER, s) else None
    if value is None or not MIN_RATE_PER_S <= value <= MAX_RATE_PER_S:
        positive = value is not None and 0 < value < float("inf")
        expected = (
            f"a number per second from {MIN_RATE_PER_S:g} (one request per 1000 s) to "
            f"{MAX_RATE_PER_S:,.0f} (ten times what the client can send), e.g. 2 or 2/s"
        )
        fix = f"e.g. {what} 2" if what.startswith("-") else "write a rate in that range, e.g. 2"
        if positive:  # read, but out of bounds
            message = f"{what} takes a rate from {MIN_RATE_PER_S:g} to {MAX_RATE_PER_S:,.0f} per second"
            raise ConfigError.out_of_bounds(what, message, found=text, expected=expected, fix=fix)
        found = stray_character(text, _NUMBER_CHARS | set("/sS ")) if isinstance(text, str) else text
        raise ConfigError(f"{what} takes a positive rate", found=found, expected=expected, fix=fix)
    return value


def csv_items(text: str, what: str, example: str = "1,2,4") -> list[str]:
    """``" 1, 2,4"`` -> ``["1", "2", "4"]``: the items of a comma-separated option value, stripped.

    The one splitter of every comma list a user types, so ``1,,2``, ``1,2,`` or an empty value is never taken
    as a shorter list.

    Raises:
        ConfigError: an empty item (``what`` names the option, ``example`` is a good value).
    """
    items = [x.strip() for x in text.split(",")]
    if not all(items):
        raise ConfigError(
            f"{what} has an empty item",
            found=repr(text),
            expected=f"comma-separated values, none empty, e.g. {what} {example}",
            fix="remove the extra comma (or give the missing value)",
        )
    return items


def empty_path_error(what: str, example: str | None = None) -> ConfigError:
    """The refusal of an empty path (``-o ""``: an unset shell variable; ``Path("")`` would read the current folder),
    for every command's path options and arguments (:mod:`specscope.cli.empty_paths`, bench's option spec)."""
    return ConfigError(
        f"{what} is an empty path",
        found='"" (an empty argument: an unset shell variable?)',
        expected=f"a path, e.g. {example}" if example else f"a path for {what}",
        fix="give the path (check the variable that should hold it); an empty path is never read as the current folder",
    )


def ascii_number(value: object) -> str:
    """``value`` as the text a number option reads; ``ValueError`` when it holds a character outside ASCII.

    Python's ``int()`` and ``float()`` read other scripts' digits (``int("٣") == 3``) while the commands whose values
    typer checks refuse them: every number a command reads goes through this first, so one spelling is one value.
    """
    text = str(value)
    if not text.isascii() or "_" in text:  # int("1_0") == 10: a digit separator is no part of a typed number
        raise ValueError(text)
    return text


#: the characters a number's text may hold: digits, sign, point, exponent (``_`` too is refused: ``int("1_0")`` is 10)
_NUMBER_CHARS = frozenset("0123456789+-.eE")


def stray_character(text: object, allowed: Iterable[str] = _NUMBER_CHARS) -> str:
    """What is wrong in a number's text, for an error's ``found``: ``"3²"`` -> ``"3² (the character '²', U+00B2, is
    not a digit 0-9)"``; ``text`` unchanged when every character is ``allowed`` (the number is wrong, not a
    character), or when ``text`` is not text (a run file's list or float: its type is named)."""
    if not isinstance(text, str):
        return f"{text!r} ({type(text).__name__})"
    stray = next((c for c in text if c not in allowed), None)
    if stray is None:
        return text
    return f"{text} (the character {stray!r}, U+{ord(stray):04X}, is not a digit 0-9)"


def _items(value: str | Iterable[object], what: str, example: str) -> list[object]:
    """A comma list typed as text, or the items of a list (a TOML run file), each comma-split if text."""
    if isinstance(value, str):
        return list(csv_items(value, what, example))
    out: list[object] = []
    for v in value:
        out.extend(csv_items(v, what, example) if isinstance(v, str) else [v])
    return out


def parse_int_list(
    value: str | Iterable[object],
    what: str,
    example: str = "1,2,4",
    *,
    distinct: bool = False,
    bounds: tuple[int, int] | None = None,
) -> tuple[int, ...]:
    """``"1,2,4"`` (or ``[1, 2, 4]``) -> (1, 2, 4); ``distinct``: a number given twice is refused (concurrency
    levels, as :func:`parse_rate_list` refuses a rate given twice). Each item is ASCII digits, a leading ``-``
    allowed (``3²``, ``٣``, ``1_0``, ``+3`` and ``1.5`` are refused, naming the character). ``bounds`` (lowest,
    highest): the range the option takes, named in the error (the caller checks it, in its own words).

    Raises:
        ConfigError: an empty item or one that is not a whole number (found: the item and its stray character);
            with ``distinct``, a repeat.
    """
    items = _items(value, what, example)
    numbers: list[int] = []
    for x in items:
        if isinstance(x, int) and not isinstance(x, bool):
            numbers.append(x)
        elif isinstance(x, str) and _WHOLE.fullmatch(x.strip()):
            numbers.append(int(x))
        else:
            span = f" {bounds[0]}..{bounds[1]}" if bounds else ""
            raise ConfigError(
                f"{what} takes comma-separated whole numbers",
                found=stray_character(value, "0123456789-, ") if isinstance(value, str) else stray_character(x),
                expected=f"comma-separated whole numbers{span} in digits 0-9, e.g. {example}",
                fix=f"write each number in digits 0-9: {what} {example}",
            )
    if distinct and len(set(numbers)) != len(numbers):
        raise ConfigError(
            f"{what} gives a value twice",
            found=value,
            expected=f"distinct values, e.g. {example}",
            fix="drop the repeat",
        )
    return tuple(numbers)


def parse_float_list(value: str | Iterable[object], what: str, example: str = "0,0.6,1.0") -> tuple[float, ...]:
    """``"0,0.6"`` (or ``[0, 0.6]``) -> (0.0, 0.6).

    Raises:
        ConfigError: an empty item or one that is not a number.
    """
    items = _items(value, what, example)
    try:
        if any(isinstance(x, bool) for x in items):
            raise ValueError
        return tuple(float(ascii_number(x)) for x in items)
    except ValueError:
        raise ConfigError(
            f"{what} takes comma-separated numbers",
            found=stray_character(value, _NUMBER_CHARS | {",", " "}) if isinstance(value, str) else value,
            expected=f"comma-separated numbers in digits 0-9, e.g. {example}",
            fix=f"write each number in digits 0-9: {what} {example}",
        ) from None


def parse_rate_list(value: str | Iterable[object], what: str, example: str = "1,2,4") -> tuple[float, ...]:
    """``"1,2,4"`` -> (1.0, 2.0, 4.0) per second: distinct positive rates (:func:`parse_rate_per_s` each).

    Raises:
        ConfigError: an item that is not a positive rate, or a rate given twice.
    """
    rates = tuple(parse_rate_per_s(x, what) for x in _items(value, what, example))  # type: ignore[arg-type]
    if len(set(rates)) != len(rates):
        raise ConfigError(
            f"{what} gives a rate twice", found=value, expected=f"distinct rates, e.g. {example}", fix="drop the repeat"
        )
    return rates


def parse_pairs(
    value: str | Iterable[str] | Mapping[str, object],
    what: str,
    example: str,
    read: Callable[[Any], T] | None = None,
    *,
    names: Iterable[str] | None = None,
) -> dict[str, T]:
    """``"a=1,b=2"`` or ``["a=1", "b=2"]`` (or a TOML table) -> ``{"a": read("1"), "b": read("2")}``.

    ``read`` parses each value (default: the text itself): its text, or a TOML table's number as the number (a run
    file's ``slo = {tpot = 0.05}`` is seconds, while ``--slo tpot=0.05`` is refused for its missing unit); ``names``,
    when given, are the only names allowed.
    A repeated option (``--metrics a=X --metrics a=Y``) is kept as a list only by callers that ask for it
    (:func:`specscope.bench.counters_source.parse_metrics_specs`); here a name given twice is refused.

    Raises:
        ConfigError: an item without ``=``, an empty name or value, a name given twice, or a name not allowed.
    """
    pairs: list[tuple[str, object]]
    if isinstance(value, Mapping):
        pairs = [(str(k), v) for k, v in value.items()]
    else:
        pairs = []
        for item in [value] if isinstance(value, str) else list(value):
            for part in csv_items(item, what, example):
                name, eq, text = part.partition("=")
                if not eq or not name.strip() or not text.strip():
                    raise ConfigError(
                        f"{what} takes NAME=VALUE items",
                        found=part,
                        expected=f"e.g. {what} {example}",
                        fix="write NAME=VALUE",
                    )
                pairs.append((name.strip(), text.strip()))
    allowed = None if names is None else tuple(names)
    out: dict[str, T] = {}
    for name, raw in pairs:
        if name in out:
            raise ConfigError(f"{what} names {name!r} twice", found=value, expected="each name once", fix="drop one")
        if allowed is not None and name not in allowed:
            if what.startswith("-"):  # an option: the one wording of a value outside its choices
                expected = f"NAME=VALUE with NAME one of {', '.join(allowed)}"
                raise ConfigError.invalid_value(
                    what, f"{name}={raw}", expected, choices=allowed, fix=f"e.g. {what} {example}"
                )
            raise ConfigError.unknown(f"name in {what}", name, allowed, fix=f"e.g. {what} {example}")
        try:
            number = isinstance(raw, int | float) and not isinstance(raw, bool)  # a TOML table's number: as it is
            out[name] = read(raw if number else str(raw)) if read is not None else raw  # type: ignore[assignment]
        except ConfigError as e:
            raise _pair_value_error(e, what, name, str(raw), example) from None
    return out


def _pair_value_error(e: ConfigError, what: str, name: str, raw: str, example: str) -> ConfigError:
    """``e``, the refusal of the value ``raw`` of item ``name`` of the NAME=VALUE option ``what``, restated as an item:
    found ``name=raw``, and a fix whose example is an item (``e.g. --slo tpot=30s``, never ``--slo 30s``, which the
    option refuses), else ``example``'s item of that name."""
    found = e.found
    if isinstance(found, str) and found.startswith(raw):
        found = f"{name}={found}"
    elif found is None or str(found) == raw:
        found = f"{name}={raw}"
    fix = e.fix or ""
    lone = re.compile(rf"((?:e\.g\.|write the unit:) {re.escape(what)} )(?![^\s,;=]*=)")
    if lone.search(fix):
        fix = lone.sub(rf"\g<1>{name}=", fix)
    elif f"{what} " not in fix:  # a fix that names the option already shows it whole
        item = next((p for p in example.split(",") if p.partition("=")[0] == name), example)
        fix = f"{fix} (as an item: e.g. {what} {item})" if fix else f"e.g. {what} {item}"
    return ConfigError(e.message, found=found, expected=e.expected, fix=fix)


_BYTES_RE = re.compile(rf"^\s*(-?{_NUMBER})\s*([kmgtp]i?)?b?\s*$", re.IGNORECASE)
_PREFIX = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15}
_PREFIX |= {"ki": 1024.0, "mi": 1024.0**2, "gi": 1024.0**3, "ti": 1024.0**4, "pi": 1024.0**5}
#: the units :func:`parse_bytes` reads (its prefix table), as a message names them: ``B, KB, ..., KiB, ...``
BYTE_UNITS = ", ".join(p.upper()[:1] + p[1:] + "B" for p in _PREFIX)


#: the bytes a decode step of a served model reads (``predict --bytes-per-step``): 1 MB (below the smallest
#: model served, tens of MB quantized) to 1 PB; outside, a typo: ``1e-300B`` printed a roofline of "inf tok/s".
STEP_BYTES_BOUNDS = (1e6, 1e15)


def parse_bytes(
    text: str | float | int,
    what: str = "a byte size",
    *,
    allow_zero: bool = False,
    bounds: tuple[float, float] | None = None,
) -> float:
    """``"17.61GB"`` -> 17.61e9, ``"1GiB"`` -> 1073741824.0, ``850`` -> 850.0 (bytes).

    ``what`` names the option in the error (``--draft-bytes``); ``allow_zero`` accepts 0 (an n-gram drafter reads
    no draft weights); ``bounds`` (low, high), e.g. :data:`STEP_BYTES_BOUNDS`, the sizes the option's meaning allows.

    Raises:
        ConfigError: not a size, not positive (zero allowed with ``allow_zero``), or outside ``bounds``.
    """
    value: float | None = None
    if isinstance(text, int | float) and not isinstance(text, bool):
        value = float(text)
    elif isinstance(text, str) and (m := _BYTES_RE.match(text)):
        value = float(m.group(1)) * _PREFIX[(m.group(2) or "").lower()]
    low_ok = value is not None and (value > 0 or (allow_zero and value == 0))
    if value is not None and value < float("inf") and not low_ok:
        raise _out_of_bound(what, text, allow_zero, "a byte size", "17.61GB, 850MB or 0.79GiB", "0.85GB")
    if value is not None and not math.isfinite(value):  # 1e300GB (past any float), nan, inf
        raise ConfigError(
            f"{what} takes a finite byte size",
            found=f"{text} (more bytes than a number holds)" if value == float("inf") else f"{text} (not a number)",
            expected="a size such as 17.61GB, 850MB or 0.79GiB",
            fix=f"check the number and its unit ({BYTE_UNITS}), e.g. 17.61GB",
        )
    if value is None or not low_ok or not value < float("inf"):
        kind = "non-negative" if allow_zero else "positive"
        example = f"{what} 0.85GB" if what.startswith("--") else "0.85GB"
        raise ConfigError(
            f"{what} takes a {kind} byte size",
            found=text,
            expected="a size such as 17.61GB, 850MB or 0.79GiB" + (" (0: nothing read)" if allow_zero else ""),
            fix=f"write the number with a unit ({BYTE_UNITS}), e.g. {example}",
        )
    if bounds is not None and not (allow_zero and value == 0) and not bounds[0] <= value <= bounds[1]:
        low, high = (
            f"{b / 1e6:g}MB" if b < 1e9 else f"{b / 1e12:g}TB" if b < 1e15 else f"{b / 1e15:g}PB" for b in bounds
        )
        raise ConfigError.out_of_bounds(
            what,
            f"{what} takes a size from {low} to {high}",
            found=f"{text} ({value:g} bytes)",
            expected=f"a size from {low} to {high}; {'below' if value < bounds[0] else 'above'} that it is a typo",
            fix=f"check the number and its unit ({BYTE_UNITS}), e.g. 17.61GB",
        )
    return value


_BW_RE = re.compile(rf"^\s*({_NUMBER})\s*([kmgtp]i?)?b(?:/s|ps)\s*$", re.IGNORECASE)


def parse_bandwidth(text: str, what: str = "--bandwidth", named: Mapping[str, float] | None = None) -> float:
    """Bytes per second from ``"273GB/s"``, ``"4.8TB/s"``, ``"800 GiB/s"`` or a name in ``named`` (``h200``).

    Raises:
        ConfigError: not a bandwidth and not a known name.
    """
    table = dict(named or {})
    key = text.strip().lower().replace("_", "-").replace(" ", "-")
    if key in table:
        return table[key]
    m = _BW_RE.match(text)
    value = float(m.group(1)) * _PREFIX[(m.group(2) or "").lower()] if m else None
    if value is None or not MIN_BANDWIDTH_BYTES_PER_S <= value <= MAX_BANDWIDTH_BYTES_PER_S:
        names = f", or one of {', '.join(sorted(table))}" if table else ""
        raise ConfigError(
            f"{what} takes a bandwidth",
            found=text,
            expected=f"a size per second from 1MB/s to 1PB/s, e.g. 273GB/s, 4.8TB/s{names}",
            fix=f"pass {what} 273GB/s",
        )
    return value


#: the bandwidths a memory can have (bytes/s): 1 MB/s (below any memory a model is served from) to 1 PB/s (above any
#: accelerator's, 8 TB/s in 2026). Outside, a typo: ``1e-300B/s`` printed "inf%" of a roofline of 0 tok/s.
MIN_BANDWIDTH_BYTES_PER_S = 1e6
MAX_BANDWIDTH_BYTES_PER_S = 1e15


#: the narrowest text width (characters) a table can be printed in: a column of a short value and its borders.
MIN_WIDTH = 40
#: the widest text width (characters) accepted.
MAX_WIDTH = 1000


def parse_width(value: str | int, what: str = "--width") -> int:
    """``"120"`` (or 120) -> 120: a text width in characters, :data:`MIN_WIDTH` to :data:`MAX_WIDTH`.

    Raises:
        ConfigError: not a whole number, or outside the bounds (a narrower table cuts every value).
    """
    width: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        width = value
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        width = int(value.strip())
    if width is None or not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ConfigError(
            f"{what} takes a text width in characters from {MIN_WIDTH} to {MAX_WIDTH}",
            found=value,
            expected=f"a whole number {MIN_WIDTH}..{MAX_WIDTH} (narrower tables cannot show their values)",
            fix=f"e.g. {what} 120 (or leave it out: the terminal's width, 120 to a file)",
        )
    return width


_TOKEN_COUNT = re.compile(r"\s*([0-9]{1,30})\s*(k?)\s*", re.IGNORECASE)


def parse_token_count(value: str | int, what: str, bounds: tuple[int, int], example: str = "2k", why: str = "") -> int:
    """``"2k"`` (or ``"2K"``) -> 2048, ``"1500"`` (or 1500) -> 1500: a number of tokens, 1k = 1024 tokens.

    The one reading of a token count for every option that takes one (``--max-tokens``, ``--context-tokens``,
    ``--plan tokens=``). ``what`` names the option in the error; ``bounds`` (lowest, highest) are the counts its
    meaning allows, ``why`` (optional) says why in the error.

    Raises:
        ConfigError: not ASCII digits with an optional ``k`` (what was found, the range, the fix with ``example``);
            a count outside ``bounds``: the one wording of a bound (:meth:`ConfigError.out_of_bounds`: ``a value
            <= 1000000``, fix ``give --max-tokens 1000000 or less``).
    """
    count: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        count = value
    elif isinstance(value, str) and (m := _TOKEN_COUNT.fullmatch(value)):
        count = int(m[1]) * (1024 if m[2] else 1)
    low, high = bounds
    top = f"{high // 1024}k" if high % 1024 == 0 else str(high)
    because = f" ({why})" if why else ""
    if count is None:
        raise ConfigError(
            f"{what} takes token counts",
            found=stray_character(value, "0123456789kK ") if isinstance(value, str) else value,
            expected=f"a whole number of tokens {low} to {top}{because}, 1k = 1024 tokens, e.g. {example} or 1500",
            fix=f"e.g. {what} {example}",
        )
    if not low <= count <= high:
        below = count < low  # ``why`` says why the top is where it is
        bound, side = (
            (f"a value >= {low}", f"{low} or more") if below else (f"a value <= {top}{because}", f"{top} or less")
        )
        raise ConfigError.out_of_bounds(
            what,
            f"{what} is out of bounds",
            found=value,
            expected=bound,
            fix=f"give {what} {side}",
        )
    return count


_FRACTION = re.compile(rf"\s*({_NUMBER})\s*(%?)\s*", re.IGNORECASE)


def parse_fraction(value: str | float | int, what: str, example: str = "0.02") -> float:
    """``"0.05"``, ``"5%"`` or 0.05 -> 0.05: a fraction in ``[0, 1)`` (a percentage is divided by 100).

    Raises:
        ConfigError: not a number or a percentage, or outside ``[0, 1)``.
    """
    fraction: float | None = None
    given_percent = False
    if isinstance(value, int | float) and not isinstance(value, bool):
        fraction = float(value)
    elif isinstance(value, str) and (m := _FRACTION.fullmatch(value)):
        given_percent = bool(m.group(2))
        fraction = float(m.group(1)) / (100.0 if given_percent else 1.0)
    if fraction is None or not 0.0 <= fraction < 1.0:
        percent = ""
        if fraction is not None and not given_percent and 1.0 <= fraction < 100.0:  # "5" meant 5 %?
            percent = f" ({fraction:g} as a percentage: {fraction:g}%)"
        raise ConfigError(
            f"{what} takes a fraction from 0 to below 1",
            found=value,
            expected=f"a fraction such as {example} or a percentage such as {float(example) * 100:g}%"
            + (" (below 100%)" if given_percent else percent),
            fix=f"e.g. {what} {example}",
        )
    return fraction


def count_noun(n: float, noun: str, plural: str | None = None) -> str:
    """``1 round``, ``3 rounds``, ``0 rounds``: a whole count (printed without decimals) with its noun."""
    one = math.isfinite(n) and round(n) == 1  # a NaN count (a damaged store) is printed as nan, never raises
    return f"{n:.0f} {noun if one else (plural or noun + 's')}"


def article(word: str) -> str:
    """``an image``, ``a video``, ``a user``, ``an upload``, ``an mp4``: ``word`` with its indefinite article, chosen
    by how a field or role name is said (a ``u`` said "you" takes ``a``; a name whose leading letters hold no vowel,
    ``mp4``, is spelled out letter by letter)."""
    low = word.lower().lstrip("'\"`")  # a quoted name ('image_url') is said without its quotes
    letters = re.match(r"[a-z]*", low)
    spelled = letters is not None and 0 < len(letters[0]) <= 4 and not set(letters[0]) & set("aeiouy")
    spelled = spelled and low != "str"  # Python's type name, said "string"
    said_you = low.startswith(("uu", "us", "uni", "uri", "url"))
    vowel = low[:1] in ("a", "e", "i", "o") or (low[:1] == "u" and not said_you) or (spelled and low[0] in "fhlmnrsx")
    return f"{'an' if vowel else 'a'} {word}"


def apply_only(flags: list[str], where: str) -> str:
    """``--overhead applies only WHERE``, ``--overhead, --compare apply only WHERE``: the one wording of options
    read in one mode only, its verb agreeing with how many were given."""
    return f"{', '.join(flags)} {'applies' if len(flags) == 1 else 'apply'} only {where}"


def check_api_key(key: str, what: str = "--api-key") -> str:
    """``key`` when an HTTP header can carry it as ``Authorization: Bearer <key>``: no control character (RFC 9110
    5.5: a field value is visible characters, spaces and tabs). A key with a line break (read from a file with its
    final newline) failed every request as "server cannot be reached: Illegal header value".

    Raises:
        ConfigError: a control character in ``key``; the error never shows the key.
    """
    bad = next((i for i, c in enumerate(key) if (ord(c) < 0x20 and c != "\t") or ord(c) == 0x7F), None)
    if bad is not None:
        raise ConfigError(
            f"the API key ({what}) holds a control character (a line break?)",
            found=f"a key of {len(key)} characters, {key[bad]!r} at position {bad + 1}",
            expected="a key an HTTP header can carry: visible characters only (RFC 9110 5.5)",
            fix="pass the key alone, with no line break (a key read from a file: drop its final newline)",
        )
    return key


#: what a config or workload name may not hold: a path separator (logs/CONFIG.log, a folder per name), the list and
#: pair separators of the command line (``--configs a,b``, ``--server NAME=URL``), whitespace and control characters
#: (a name is pasted into the fix lines a command prints).
_NAME_BREAKERS = frozenset("/\\,=")


def check_name(name: str, what: str, example: str = "base") -> str:
    """``name`` when it can name a config or workload: not empty, no ``/ \\ , =``, no whitespace or control character,
    not starting with ``.`` or ``-``, at most 64 characters. The one naming rule of ``--configs``, ``--server
    NAME=URL``, and the names ``import`` stores (its config, workload and baseline).

    Raises:
        ConfigError: naming the first character (or the length) that breaks it.
    """
    bad = next((c for c in name if c in _NAME_BREAKERS or c.isspace() or not c.isprintable()), None)
    problem = (
        "is empty"
        if not name
        else f"holds {bad!r}"
        if bad is not None
        else f"starts with {name[0]!r}"
        if name[0] in ".-"
        else f"has {len(name)} characters"
        if len(name) > 64
        else None
    )
    if problem is not None:
        shown = repr(clip(name, 64))  # a 100,000-character name is named by its start and length
        raise ConfigError(
            f"the name {shown} of {what} {problem}",
            found=shown,
            expected="a name of 1 to 64 characters without / \\ , = or spaces, not starting with . or - "
            "(it names files, list items and fix lines)",
            fix=f"e.g. {what} {example}",
        )
    return name
