"""SGLang's per-request ``Finish`` log lines (``--log-requests``), read as request-scope
:class:`~specscope.adapters.logs.LogSpecStat` s with exact counts (issue 34).

Forms, with their sources (SGLang ``python/sglang/srt/managers/tokenizer_manager.py`` ``_wait_one_response``, later
``python/sglang/srt/utils/request_logger.py`` ``RequestLogger.log_finished_request``; public copies at index ids
325668100 and 70859615664):

- text (every release with ``--log-requests``): ``Finish: obj=GenerateReqInput(...)[, headers={...}], out={'text':
  ..., 'output_ids': [...], 'meta_info': {...}}``, printed by ``dataclass_to_string_truncated``: a dict as
  ``{'key': value, ...}``, a string as its ``repr``, a number as ``str``, a list as ``str`` unless longer than the
  level's ``max_length`` (level 2, the default: 2,048), then ``str(head) + " ... " + str(tail)`` (a string likewise,
  ``'head' ... 'tail'``): those values are no Python literal and are skipped, never guessed. Level 0/1 leave out
  ``text`` / ``output_ids``. Through SGLang's own logger the line carries ``[time]`` before it; the request logger
  (``log_utils.create_log_targets``: ``Formatter("%(message)s")``) prints it bare. The first releases printed keys
  unquoted (``{meta_info: {...}}``, strings in bare ``"..."``): their keys are read the same way.
- json (``--log-requests-format json``, request_logger.py with ``log_utils.log_json``): one JSON object per line,
  ``{"timestamp": ISO, "event": "request.finished", "rid": ..., "obj": {...}, "out": {... "meta_info": {...}}}``.

``meta_info``'s speculative fields are read by the per-response reader
(:func:`specscope.adapters.sglang.per_response.read_payload`: the three generations of names, ``spec_verify_ct``,
the histogram, the derived fields checked). Where a build prints no accepted count (``spec_verify_ct`` alone, PR #3152
to PR #11144): accepted = ``completion_tokens`` - ``spec_verify_ct``, from SGLang's own ``spec_accept_length =
completion_tokens / spec_verify_ct`` (bonus token included: 1 + accepted / verify steps; tokenizer_manager.py
``_calculate_spec_decoding_metrics``, sglang's benchmark/mtbench ``bench_sglang_eagle.py``). It counts one token
per request too many where the build does not count the prefill's token as a verify step (PR #13754's response:
200 tokens, 188 steps, 11 accepted = 200 - 188 - 1), so the rate it gives is an upper bound and the alarm stays
sound (``ACCEPTED_FROM_LENGTH``). Where it prints no drafted count: drafted = ``spec_verify_ct`` x k, k =
``speculative_num_draft_tokens`` - 1 of the ``server_args`` line, as SGLang computes ``spec_draft_token_num``
itself (``DRAFTED_FROM_K``). A request with no verify step drafted nothing and is absent (never a request with 0).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from typing import Any

from specscope.adapters.logs import MAX_COUNT, LogSpecStat
from specscope.adapters.sglang.per_response import read_payload

__all__ = ["FINISH", "FINISH_JSON", "MAX_FINISH_CHARS", "finish_meta", "finish_stats", "is_finish_line"]

FINISH = "Finish request"
FINISH_JSON = "Finish request (json)"
#: the longest Finish line read (characters): a level-3 line holds the whole prompt and output, and the scan is linear
MAX_FINISH_CHARS = 8 << 20
_MAX_VALUE_CHARS = 1 << 16  # a meta_info value longer than this is no count: not evaluated
_RE_FINISH = re.compile(r"\bFinish: obj=")
_JSON_EVENT = '"event": "request.finished"'
_NESTED = re.compile(r"[\\'\"{}\[\]()]")
_TOP = {sep: re.compile(r"[\\'\"{}\[\]()" + sep + "]") for sep in ",:"}
_IN_QUOTE = {q: re.compile(r"[\\" + q + "]") for q in "'\""}
_CUT = "a string, bracket or brace left open: the line was cut"


def is_finish_line(line: str) -> bool:
    """Whether ``line`` is a Finish line of either form (read or not)."""
    return "Finish: obj=" in line or (_JSON_EVENT in line and "{" in line)


class _Unreadable(ValueError):
    """A Finish line whose structure cannot be read (the reason is the message)."""


def _split(s: str, sep: str) -> list[str]:
    """``s`` split at ``sep`` (``,`` or ``:``) outside strings and brackets; :class:`_Unreadable` when one is left
    open or closed too often (a cut line). Inside a string only its quote and backslashes are looked at, inside
    brackets only brackets and quotes: the scan skips the rest (output ids, text) at the regex engine's speed."""
    parts: list[str] = []
    depth, quote, begin, pos = 0, "", 0, 0
    top = _TOP[sep]
    while True:
        m = (_IN_QUOTE[quote] if quote else _NESTED if depth else top).search(s, pos)
        if m is None:
            break
        i, c = m.start(), m.group()
        pos = i + 1
        if quote:
            if c == "\\":
                pos = i + 2
            else:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
            if depth < 0:
                raise _Unreadable("a bracket closed that was never opened")
        else:  # sep at depth 0
            parts.append(s[begin:i])
            begin = pos
    if quote or depth:
        raise _Unreadable(_CUT)
    return [*parts, s[begin:]]


def _items(text: str) -> dict[str, str]:
    """The raw ``key -> value text`` of a printed dict ``{'k': v, ...}`` (or ``{k: v}``, the first releases')."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        raise _Unreadable(f"not a dict: {text[:20]!r}")
    out: dict[str, str] = {}
    for item in _split(text[1:-1], ","):
        if not item.strip():
            continue
        key, *rest = _split(item, ":")
        key = key.strip()
        name = key[1:-1] if len(key) >= 2 and key[0] == key[-1] and key[0] in "'\"" else key
        if rest and name.isidentifier():
            out[name] = ":".join(rest)
    return out


def _value(text: str) -> Any:
    """A printed value as a Python literal (``ast.literal_eval``, never ``eval``), bounded in size.

    Raises:
        ValueError: no literal (a level-2 truncation ``[...] ... [...]``, ``nan``, an object's ``str``), or too long.
    """
    if len(text) > _MAX_VALUE_CHARS:
        raise ValueError("too long")
    try:
        return ast.literal_eval(text.strip())
    except (SyntaxError, TypeError, MemoryError, RecursionError) as e:
        raise ValueError(str(e)) from e


def _text_meta(message: str, line_number: int, warnings: list[str]) -> dict[str, Any]:
    """``meta_info`` of a text Finish line (the part after ``Finish: ``), each value it can read; a speculative or
    ``completion_tokens`` value it cannot is named ``FINISH_FIELD_UNREADABLE``."""
    parts = [p.strip() for p in _split(message, ",")]
    out_text = next((p[4:] for p in parts if p.startswith("out=")), None)
    if out_text is None:
        raise _Unreadable("no out={...} after obj=...")
    meta_text = _items(out_text).get("meta_info")
    if meta_text is None:
        raise _Unreadable("no 'meta_info' in out")
    meta: dict[str, Any] = {}
    for key, text in _items(meta_text).items():
        try:
            meta[key] = _value(text)
        except ValueError:
            if "spec" in key or "draft" in key or key == "completion_tokens":
                warnings.append(f"FINISH_FIELD_UNREADABLE(line {line_number}: meta_info.{key})")
    return meta


def finish_meta(line: str, line_number: int, warnings: list[str]) -> tuple[str, dict[str, Any] | None] | None:
    """(form, ``meta_info``) of a Finish line, None for any other line; the ``meta_info`` is None when the line cannot
    be read (named in ``warnings``: ``FINISH_LINE_TOO_LONG``, ``FINISH_LINE_UNREADABLE``)."""
    m = _RE_FINISH.search(line)
    if m is None and not is_finish_line(line):
        return None
    form = FINISH if m is not None else FINISH_JSON
    if len(line) > MAX_FINISH_CHARS:
        warnings.append(f"FINISH_LINE_TOO_LONG(line {line_number}: {len(line):,} characters, > {MAX_FINISH_CHARS:,})")
        return form, None
    try:
        if m is not None:
            return form, _text_meta(line[m.start() + len("Finish: ") :], line_number, warnings)
        try:
            record = json.loads(line[line.index("{") :])  # after a collector's prefix (svc-1  | ), if any
        except ValueError as e:
            raise _Unreadable(f"not JSON: {e}") from e
        out = record.get("out") if isinstance(record, dict) else None
        meta = out.get("meta_info") if isinstance(out, dict) else None
        if not isinstance(meta, dict):
            raise _Unreadable("no out.meta_info object")
        return form, meta
    except _Unreadable as e:
        warnings.append(f"FINISH_LINE_UNREADABLE(line {line_number}: {e})")
        return form, None


def _count(x: Any) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) and x >= 0 else None


def _per_position(hist: tuple[tuple[int, int], ...], steps: int) -> list[float]:
    """Accepted at position i / verify steps from a histogram of steps that accepted exactly j drafts."""
    if not hist or sum(n for _, n in hist) != steps:
        return []
    return [sum(n for j, n in hist if j >= i) / steps for i in range(1, hist[-1][0] + 1)]


def _stat(
    form: str, line_number: int, meta: dict[str, Any], k: int | None, notes: dict[str, int]
) -> tuple[LogSpecStat | None, tuple[str, ...]]:
    """The request's statistic (None without a verify step) and the per-response reader's named warnings."""
    rec = read_payload(meta, "meta_info", "sglang.log.finish", filled_zeros=False)
    steps = rec.verify_steps
    counts = (steps, rec.accepted_tokens, rec.draft_tokens, _count(meta.get("completion_tokens")))
    if any(c is not None and c > MAX_COUNT for c in counts):  # beyond 64 bits: the line is unreadable, no figure
        return None, (*rec.warnings, f"FINISH_FIELD_UNREADABLE(line {line_number}: a count beyond 64 bits)")
    if not steps:
        return None, rec.warnings
    completion = _count(meta.get("completion_tokens"))
    accepted, drafted = rec.accepted_tokens, rec.draft_tokens
    if accepted is None and completion is not None and completion >= steps:
        accepted = completion - steps  # SGLang's length convention (module doc)
        notes["ACCEPTED_FROM_LENGTH"] += 1
    if drafted is None and k is not None and steps * k <= MAX_COUNT:
        drafted = steps * k  # SGLang's own spec_draft_token_num (module doc)
        notes["DRAFTED_FROM_K"] += 1
    elif drafted is None:
        notes["NO_DRAFTED_COUNT"] += 1
    stat = LogSpecStat(
        engine="sglang",
        form=form,
        scope="request",
        line_number=line_number,
        draft_tokens=drafted,
        accepted_tokens=accepted,
        verify_steps=steps,
        accept_length=None if completion is None else completion / steps,
        # without a drafted count: at most accepted / steps (k >= 1), over its known verify steps
        accept_rate_at_most=None if drafted is not None or accepted is None else min(1.0, accepted / steps),
        verify_steps_at_least=steps,
        per_position=_per_position(rec.histogram, steps),
    )
    return stat, rec.warnings


def _note_texts(notes: dict[str, int]) -> list[str]:
    said = {
        "ACCEPTED_FROM_LENGTH": "carry no accepted count: accepted = completion_tokens - spec_verify_ct (SGLang's "
        "spec_accept_length = completion_tokens / spec_verify_ct); at most 1 token per request above the drafts "
        "accepted, where the prefill's token is no verify step",
        "DRAFTED_FROM_K": "carry no drafted count: drafted = spec_verify_ct x k (speculative_num_draft_tokens - 1 "
        "of server_args), as SGLang computes spec_draft_token_num",
        "NO_DRAFTED_COUNT": "carry no drafted count and the log states no k: not pooled; keep the server_args line "
        "(its speculative_num_draft_tokens) in the log",
    }
    return [f"{code}({n} Finish lines {said[code]})" for code, n in notes.items() if n]


def finish_stats(lines: Sequence[str], k: int | None) -> tuple[list[LogSpecStat], list[str], list[str]]:
    """(the request statistics of the log's Finish lines with a verify step, the forms seen in first-seen order, the
    named warnings: per line, then each per-response warning once with its count of lines, then the derivations)."""
    stats: list[LogSpecStat] = []
    forms: list[str] = []
    warnings: list[str] = []
    per_response: dict[str, list[int]] = {}
    notes = dict.fromkeys(("ACCEPTED_FROM_LENGTH", "DRAFTED_FROM_K", "NO_DRAFTED_COUNT"), 0)
    for index, line in enumerate(lines):
        if not is_finish_line(line):
            continue
        found = finish_meta(line, index + 1, warnings)
        if found is None:
            continue
        form, meta = found
        forms += [form] if form not in forms else []
        if meta is None or not any(key.startswith("spec_") for key in meta):
            continue  # a server without speculation: nothing to read, never a request with 0
        stat, said = _stat(form, index + 1, meta, k, notes)
        for w in said:
            per_response.setdefault(w, []).append(index + 1)
        if stat is not None:
            stats.append(stat)
    warnings += [
        f"{w} on line {at[0]}" if len(at) == 1 else f"{w} on {len(at)} Finish lines, first line {at[0]}"
        for w, at in per_response.items()
    ]
    return stats, forms, warnings + _note_texts(notes)
