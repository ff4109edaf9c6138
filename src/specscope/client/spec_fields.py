"""The server's per-response speculative fields, read into one engine-neutral :class:`SpecRequest` (issues 16, 26).

:func:`read_spec` takes one decoded JSON object of a response (a streamed chunk or a whole body) and returns what it
says about speculation, or None when it says nothing; :func:`merge_spec` folds a stream's readings together (the
fields ride one chunk; a later reading replaces an earlier one, warnings add up). Nothing here raises on a foreign
shape: a wrong-typed field is a named reason (``WRONG_TYPE``) and the count is None. docs/engines.md has the
field-by-field table (read / derived / ignored with the reason) and the sources; in short:

- vLLM ``--per-request-spec-decode-metrics summary|detailed``: root ``metrics.speculative_decoding`` on the final
  usage chunk (``choices: []``), ``n == 1`` only (vLLM 0.32.0 ``chat_completion/serving.py:839-893``,
  ``v1/metrics/stats.py:397-422``): ``num_accepted_draft_tokens``, ``num_draft_tokens``, ``num_spec_steps``, the
  dense ``acceptance_histogram`` (index j: steps that accepted exactly j drafts), ``num_spec_tokens`` (k) and, at
  ``detailed``, ``per_step_accepted`` / ``per_step_drafted``. ``mean_acceptance_length`` and
  ``draft_acceptance_rate`` are derived by vLLM from those counts: checked, not read.
- vLLM's earlier per-choice shape (``--per-request-spec-decode-stats``, PR #48915 while AIPerf tracked it):
  ``choices[].speculative_decoding_stats`` on the finish chunk, same names, histogram as a map with string keys.
- SGLang ``meta_info`` (native ``/generate``; on OpenAI responses where a build forwards it): three generations of
  names for the same counts (its derived ``spec_accept_length`` = completion_tokens / spec_verify_ct and
  ``spec_accept_rate`` = accepted / drafted are checked against them: ``SPEC_FIELDS_DISAGREE``, e.g. the zeros
  PR #13754 fixed): ``spec_accept_token_num`` / ``spec_draft_token_num`` (<= 0.5.9),
  ``spec_accepted_drafts`` / ``spec_proposed_drafts``, ``spec_num_correct_drafts`` / ``spec_num_proposed_drafts``
  (current, with the older as aliases), always with ``spec_verify_ct`` (verify steps) and a histogram
  ``spec_accept_histogram`` / ``spec_correct_drafts_histogram``. ``spec_num_proposed_drafts`` is SGLang's own
  ``verify_ct x (speculative_num_draft_tokens - 1)``, not a count of drafted tokens (PR #34814); it is read as the
  engine's drafted figure and the docs say so. OpenAI responses: ``sglext.spec_tokens_details`` (request
  ``return_spec_tokens_details``, PR #33518), whose absent metrics SGLang fills with 0
  (``spec_tokens_details_from_meta_info``: ``or 0``): every 0 there is a fill, read as None (``SGLANG_FILLED_ZERO``).
- llama.cpp: ``timings.draft_n`` / ``draft_n_accepted`` on the final chunk; verify steps are not reported (a decode
  step without a draft emits one token, so ``predicted_n - draft_n_accepted`` counts decode steps).
- TensorRT-LLM (``per_request_spec_decode_stats: true``): per-choice ``speculative_decoding`` on the finish chunk:
  ``total_accepted_draft_tokens``, ``total_draft_tokens``, ``num_spec_steps``, ``acceptance_histogram`` (dense),
  ``num_spec_tokens`` (null under ``draft_len_schedule``); ``acceptance_rate`` is derived (checked), and the choice's
  ``avg_decoded_tokens_per_iter`` averages every iteration, drafting or not (ignored).

The queue wait of one response (:func:`per_response_queue_s`): vLLM ``--enable-per-request-metrics`` adds
``metrics.queue_time_ms`` to the same final usage chunk, ``(scheduled_ts - queued_ts) * 1000`` (vLLM 0.32.0,
vllm/entrypoints/generate/base/serving.py:45-97 ``build_per_request_timing_metrics``). llama.cpp's ``timings`` and
SGLang have none, and nothing is derived in its place.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Mapping
from typing import Any

from specscope.records import SpecRequest

__all__ = ["int_or_none", "merge_spec", "per_response_queue_s", "read_spec"]

_SPEC_WORDS = ("spec", "draft")


def int_or_none(x: Any) -> int | None:
    """``x`` as an int when it is a JSON number (not a bool), else None."""
    return int(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def per_response_queue_s(obj: dict[str, Any]) -> float | None:
    """The queue wait the chunk reports (s): vLLM's top-level ``metrics.queue_time_ms`` / 1000 (a JSON number, not
    negative); None when the chunk has none."""
    metrics = obj.get("metrics")
    ms = metrics.get("queue_time_ms") if isinstance(metrics, dict) else None
    if not isinstance(ms, (int, float)) or isinstance(ms, bool) or ms < 0:
        return None
    return ms / 1000.0


class _Reader:
    """Reads one payload's fields, noting each path it read and each named reason."""

    def __init__(self, payload: Mapping[str, Any], path: str) -> None:
        self.payload, self.path = payload, path
        self.read: list[str] = []
        self.warnings: list[str] = []

    def count(self, *names: str) -> int | None:
        """The first of ``names`` present, as a non-negative whole number; ``WRONG_TYPE`` otherwise."""
        for name in names:
            if name not in self.payload or self.payload[name] is None:
                continue
            v = self.payload[name]
            self.read.append(f"{self.path}.{name}")
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or v != int(v):
                shown = reprlib.repr(v) if isinstance(v, list | dict) else str(v)  # reprlib: bounded depth
                self.warnings.append(f"WRONG_TYPE({self.path}.{name}: {type(v).__name__} {shown[:20]})")
                return None
            return int(v)
        return None

    def ints(self, name: str) -> tuple[int, ...]:
        """A list of non-negative whole numbers, () when absent or malformed (``WRONG_TYPE``)."""
        v = self.payload.get(name)
        if v is None:
            return ()
        self.read.append(f"{self.path}.{name}")
        if isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v):
            return tuple(v)
        self.warnings.append(f"WRONG_TYPE({self.path}.{name}: not a list of counts)")
        return ()

    def histogram(self, *names: str) -> tuple[tuple[int, int], ...]:
        """A dense list (index = accepted drafts) or a map with whole-number keys, as sorted sparse pairs."""
        for name in names:
            v = self.payload.get(name)
            if v is None:
                continue
            self.read.append(f"{self.path}.{name}")
            pairs: list[tuple[int, int]] | None = None
            if isinstance(v, list) and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in v):
                pairs = [(j, n) for j, n in enumerate(v)]
            elif isinstance(v, dict) and all(str(k).isdigit() and isinstance(n, int) and n >= 0 for k, n in v.items()):
                pairs = [(int(k), n) for k, n in v.items()]
            if pairs is None:
                self.warnings.append(f"WRONG_TYPE({self.path}.{name}: not a histogram of counts)")
                return ()
            return tuple(sorted((j, n) for j, n in pairs if n))
        return ()

    def unread(self, known: frozenset[str]) -> None:
        """``UNREAD_SPEC_FIELD`` for each key of the payload this reader does not know."""
        for key in self.payload:
            if key not in known:
                self.warnings.append(f"UNREAD_SPEC_FIELD({self.path}.{key})")


def _identities(
    accepted: int | None, drafted: int | None, steps: int | None, hist: tuple[tuple[int, int], ...]
) -> list[str]:
    """``SPEC_IDENTITY`` for each identity the counts break: accepted <= drafted, histogram sums to the steps, the
    histogram's accepted total is the accepted count."""
    out = []
    if accepted is not None and drafted is not None and accepted > drafted:
        out.append(f"SPEC_IDENTITY(accepted {accepted} > drafted {drafted})")
    if hist and steps is not None and sum(n for _, n in hist) != steps:
        out.append(f"SPEC_IDENTITY(histogram sums to {sum(n for _, n in hist)}, steps {steps})")
    if hist and accepted is not None and sum(j * n for j, n in hist) != accepted:
        out.append(f"SPEC_IDENTITY(histogram accepts {sum(j * n for j, n in hist)}, accepted {accepted})")
    return out


def _record(engine: str, shape: str, r: _Reader, **counts: Any) -> SpecRequest:
    warnings = r.warnings + _identities(
        counts.get("accepted_tokens"), counts.get("draft_tokens"), counts.get("verify_steps"), counts["histogram"]
    )
    return SpecRequest(engine=engine, shape=shape, source_fields=tuple(r.read), warnings=tuple(warnings), **counts)


_VLLM_KEYS = frozenset(
    {
        "mean_acceptance_length",
        "draft_acceptance_rate",
        "acceptance_histogram",
        "num_spec_steps",
        "num_accepted_draft_tokens",
        "num_draft_tokens",
        "num_spec_tokens",
        "per_step_accepted",
        "per_step_drafted",
    }
)


def _vllm(payload: Mapping[str, Any], path: str, shape: str) -> SpecRequest:
    r = _Reader(payload, path)
    r.unread(_VLLM_KEYS)
    drafted_steps, accepted_steps = r.ints("per_step_drafted"), r.ints("per_step_accepted")
    if len(drafted_steps) != len(accepted_steps):
        r.warnings.append(f"SPEC_IDENTITY(per-step arrays of {len(drafted_steps)} and {len(accepted_steps)} steps)")
        drafted_steps = accepted_steps = ()
    return _record(
        "vllm",
        shape,
        r,
        accepted_tokens=r.count("num_accepted_draft_tokens"),
        draft_tokens=r.count("num_draft_tokens"),
        verify_steps=r.count("num_spec_steps"),
        histogram=r.histogram("acceptance_histogram"),
        configured_k=r.count("num_spec_tokens"),
        draft_per_step=drafted_steps,
        accepted_per_step=accepted_steps,
    )


_TRTLLM_KEYS = frozenset(
    {
        "acceptance_rate",
        "total_accepted_draft_tokens",
        "total_draft_tokens",
        "num_spec_steps",
        "acceptance_histogram",
        "num_spec_tokens",
    }
)


def _trtllm(payload: Mapping[str, Any], path: str) -> SpecRequest:
    r = _Reader(payload, path)
    r.unread(_TRTLLM_KEYS)
    return _record(
        "trtllm",
        "trtllm.choices.speculative_decoding",
        r,
        accepted_tokens=r.count("total_accepted_draft_tokens"),
        draft_tokens=r.count("total_draft_tokens"),
        verify_steps=r.count("num_spec_steps"),
        histogram=r.histogram("acceptance_histogram"),
        configured_k=r.count("num_spec_tokens"),
    )


# (accepted name, drafted name, the generation it marks), newest first; spec_verify_ct in all of them
_SGLANG_NAMES = (
    ("spec_num_correct_drafts", "spec_num_proposed_drafts", "sglang current names (PR #33518 era)"),
    ("spec_accepted_drafts", "spec_proposed_drafts", "sglang spec_accepted_drafts names"),
    ("spec_accept_token_num", "spec_draft_token_num", "sglang names of 0.5.9 and before"),
)
_SGLANG_HIST = ("spec_correct_drafts_histogram", "spec_accept_histogram")
_SGLANG_DERIVED = frozenset({"spec_accept_rate", "spec_accept_length"})  # SGLang computes them from the counts
# DSpark-era fields whose meaning the pinned sources do not document: reported as unread
_SGLANG_KNOWN = frozenset(
    {n for names in _SGLANG_NAMES for n in names[:2]} | set(_SGLANG_HIST) | _SGLANG_DERIVED | {"spec_verify_ct"}
)


def _number(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _sglang_derived(payload: Mapping[str, Any], path: str, accepted: int | None, drafted: int | None) -> list[str]:
    """``SPEC_FIELDS_DISAGREE`` where SGLang's derived ``spec_accept_length`` (completion_tokens / spec_verify_ct, PR
    #3152) or ``spec_accept_rate`` (accepted / drafted) contradicts the counts beside it (PR #13754 fixed request-level
    figures that read 0). Derived fields are checked, never read; a 3-decimal rounding is no disagreement."""
    out: list[str] = []
    length, rate = _number(payload.get("spec_accept_length")), _number(payload.get("spec_accept_rate"))
    completion, steps = _number(payload.get("completion_tokens")), _number(payload.get("spec_verify_ct"))
    if length is not None and completion is not None and steps:
        expected = completion / steps
        if abs(length - expected) > 5e-4 + 1e-4 * expected:
            out.append(
                f"SPEC_FIELDS_DISAGREE({path}.spec_accept_length {payload['spec_accept_length']} != completion_tokens "
                f"{completion:g} / spec_verify_ct {steps:g} = {expected:.2f})"
            )
    if rate is not None and accepted is not None and drafted:
        if abs(rate - accepted / drafted) > 5e-4:
            out.append(
                f"SPEC_FIELDS_DISAGREE({path}.spec_accept_rate {payload['spec_accept_rate']} != accepted {accepted} / "
                f"drafted {drafted} = {accepted / drafted:.4f})"
            )
    elif rate == 0 and completion is not None and steps and completion > steps + 1:
        # more tokens than one per verify step (and the prefill's): some step accepted a draft
        out.append(
            f"SPEC_FIELDS_DISAGREE({path}.spec_accept_rate {payload['spec_accept_rate']} while completion_tokens "
            f"{completion:g} over spec_verify_ct {steps:g} steps say drafts were accepted)"
        )
    return out


def _sglang(payload: Mapping[str, Any], path: str, shape: str, *, filled_zeros: bool) -> SpecRequest:
    r = _Reader(payload, path)
    for key, value in payload.items():  # meta_info holds much else (prompt_tokens, e2e_latency ...)
        if not any(w in key for w in _SPEC_WORDS) or key in _SGLANG_KNOWN:
            continue
        if not (filled_zeros and value in (0, [], None)):  # an sglext fill says nothing
            r.warnings.append(f"UNREAD_SPEC_FIELD({path}.{key})")
    generation = next((g for g in _SGLANG_NAMES if g[0] in payload or g[1] in payload), None)
    accepted = drafted = None
    if generation is not None:
        accepted, drafted = r.count(generation[0]), r.count(generation[1])
        for older in _SGLANG_NAMES[_SGLANG_NAMES.index(generation) + 1 :]:  # aliases must say the same
            for new_name, old_name in zip(generation[:2], older[:2], strict=True):
                if old_name in payload and payload[old_name] != payload.get(new_name):
                    r.warnings.append(f"SPEC_FIELDS_DISAGREE({path}.{old_name} != {new_name})")
    steps = r.count("spec_verify_ct")
    hist = r.histogram(*_SGLANG_HIST)
    if filled_zeros:  # sglext: SGLang wrote 0 for every metric it did not have
        values = {"accepted_tokens": accepted, "draft_tokens": drafted, "verify_steps": steps}
        for name, v in values.items():
            if v == 0:
                r.warnings.append(f"SGLANG_FILLED_ZERO({name})")
        accepted, drafted, steps = (None if v == 0 else v for v in values.values())
    r.warnings += _sglang_derived(payload, path, accepted, drafted)  # after the fills: a filled 0 is no count
    rec = _record(
        "sglang", shape, r, accepted_tokens=accepted, draft_tokens=drafted, verify_steps=steps, histogram=hist
    )
    return dataclasses.replace(rec, engine_version=None if generation is None else generation[2])


def _llamacpp(payload: Mapping[str, Any], path: str) -> SpecRequest:
    r = _Reader(payload, path)
    for key in payload:
        if key.startswith("draft") and key not in ("draft_n", "draft_n_accepted"):
            r.warnings.append(f"UNREAD_SPEC_FIELD({path}.{key})")
    return _record(
        "llamacpp",
        "llamacpp.timings",
        r,
        accepted_tokens=r.count("draft_n_accepted"),
        draft_tokens=r.count("draft_n"),
        histogram=(),
    )


def _choices(obj: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    raw = obj.get("choices")
    return [(i, ch) for i, ch in enumerate(raw) if isinstance(ch, dict)] if isinstance(raw, list) else []


def _found_in_choices(obj: Mapping[str, Any]) -> list[SpecRequest]:
    out = []
    for i, ch in _choices(obj):
        legacy, trt = ch.get("speculative_decoding_stats"), ch.get("speculative_decoding")
        if isinstance(legacy, dict):
            path = f"choices[{i}].speculative_decoding_stats"
            out.append(_vllm(legacy, path, "vllm.choices.speculative_decoding_stats"))
        if isinstance(trt, dict):
            out.append(_trtllm(trt, f"choices[{i}].speculative_decoding"))
        meta = ch.get("meta_info")
        if isinstance(meta, dict) and any(k.startswith("spec_") for k in meta):
            out.append(_sglang(meta, f"choices[{i}].meta_info", "sglang.meta_info", filled_zeros=False))
    return out


def _found_at_root(obj: Mapping[str, Any]) -> list[SpecRequest]:
    out: list[SpecRequest] = []
    metrics = obj.get("metrics")
    spec = metrics.get("speculative_decoding") if isinstance(metrics, dict) else None
    if isinstance(spec, dict):
        out.append(_vllm(spec, "metrics.speculative_decoding", "vllm.metrics.speculative_decoding"))
    meta = obj.get("meta_info")
    if isinstance(meta, dict) and any(k.startswith("spec_") for k in meta):
        out.append(_sglang(meta, "meta_info", "sglang.meta_info", filled_zeros=False))
    ext = obj.get("sglext")
    if isinstance(ext, dict):
        details = ext.get("spec_tokens_details")
        if isinstance(details, dict):
            shape = "sglang.sglext.spec_tokens_details"
            out.append(_sglang(details, "sglext.spec_tokens_details", shape, filled_zeros=True))
        elif details is not None:
            warning = f"WRONG_TYPE(sglext.spec_tokens_details: {type(details).__name__})"
            seen = ("sglext.spec_tokens_details",)
            out.append(SpecRequest("sglang", "sglang.sglext", source_fields=seen, warnings=(warning,)))
        others = [k for k in ext if k != "spec_tokens_details" and any(w in k for w in _SPEC_WORDS)]
        if others:
            paths = tuple(f"sglext.{k}" for k in others)
            out.append(SpecRequest("sglang", "sglang.sglext", source_fields=paths, warnings=_unread(paths)))
    timings = obj.get("timings")
    if isinstance(timings, dict) and any(k.startswith("draft") for k in timings):
        out.append(_llamacpp(timings, "timings"))
    return out


_ROOT_READ = frozenset({"metrics", "meta_info", "sglext", "timings", "choices", "usage"})


def _unknown_at_root(obj: Mapping[str, Any]) -> SpecRequest | None:
    names = [k for k in obj if k not in _ROOT_READ and any(w in k.lower() for w in _SPEC_WORDS)]
    if not names:
        return None
    return SpecRequest("unknown", "unknown", source_fields=tuple(names), warnings=_unread(names))


def _unread(paths: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``UNREAD_SPEC_FIELD(path)`` for each path: seen, not understood, so never read as a figure."""
    return tuple(f"UNREAD_SPEC_FIELD({p})" for p in paths)


def read_spec(obj: Mapping[str, Any]) -> SpecRequest | None:
    """What one decoded response object (a stream chunk or a whole body) says about speculation.

    Args:
        obj: the chunk's top-level JSON object (already decoded; any shape is accepted).

    Returns:
        The engine-neutral reading, with the paths it read and its named reasons; None when the object carries no
        speculative field at all. Several engines' fields in one object are merged (:func:`merge_spec`), the last
        one found winning, with ``SPEC_SHAPES_MIXED``.
    """
    if not isinstance(obj, Mapping):
        return None
    found: SpecRequest | None = None
    for rec in [*_found_at_root(obj), *_found_in_choices(obj)]:
        found = merge_spec(found, rec)
    return merge_spec(found, _unknown_at_root(obj))


def _counts(rec: SpecRequest) -> bool:
    return any(v is not None for v in (rec.accepted_tokens, rec.draft_tokens, rec.verify_steps)) or bool(rec.histogram)


def merge_spec(a: SpecRequest | None, b: SpecRequest | None) -> SpecRequest | None:
    """Fold a later reading ``b`` of the same response into ``a``: ``b``'s counts replace ``a``'s when it has any
    (the engines send them once, on one chunk); warnings and read paths add up; two engines' shapes in one response
    add ``SPEC_SHAPES_MIXED`` (SGLang's ``meta_info`` and ``sglext`` in one response are one engine's)."""
    if a is None or b is None:
        return a if b is None else b
    first, second = (a, b) if _counts(b) or not _counts(a) else (b, a)
    warnings = list(dict.fromkeys(a.warnings + b.warnings))
    if _counts(a) and _counts(b) and a.engine != b.engine:
        warnings.append(f"SPEC_SHAPES_MIXED({a.shape}, {b.shape})")
    return dataclasses.replace(
        second,
        warnings=tuple(warnings),
        source_fields=tuple(dict.fromkeys(first.source_fields + second.source_fields)),
    )
