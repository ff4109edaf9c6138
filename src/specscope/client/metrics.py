"""Prometheus ``/metrics`` scraping: speculative-decoding and generation counters of four engines.

Text is parsed with ``prometheus_client.parser.text_string_to_metric_families`` and matched on the
*sample* names (so an exposition that lacks ``# TYPE`` lines, like vLLM's trimmed excerpts, still
works). A count the exposition has no counter for stays ``None`` (silence is never 0). Names read (sources and the
full coverage table: docs/engines.md):

- ``drafts`` (verify steps that carried a draft): vLLM ``vllm:spec_decode_num_drafts_total``
  (``v1/spec_decode/metrics.py``), llama.cpp ``llamacpp:`` same name, SGLang ``sglang:spec_verify_calls_total``;
  TensorRT-LLM has none.
- ``draft_tokens`` / ``accepted_tokens``: ``*spec_decode_num_draft_tokens_total`` /
  ``*spec_decode_num_accepted_tokens_total`` (vLLM, llama.cpp; TensorRT-LLM ``trtllm_`` prefix,
  ``tensorrt_llm/metrics/collector.py`` at ``/prometheus/metrics``); SGLang has none.
- ``accepted_per_position[i]``: ``*spec_decode_num_accepted_tokens_per_pos_total{position=i}`` (vLLM, llama.cpp).
- llama.cpp builds carrying PR #25327 (closed upstream unmerged; its names live on in forks' server tests):
  ``llamacpp:draft_verify_steps_total`` (drafts: verify steps), ``llamacpp:draft_tokens_total`` (drafted),
  ``llamacpp:draft_tokens_accepted_total`` (accepted); its ``draft_acceptance_rate`` / ``draft_mean_accept_len`` are
  gauges.
- ``rejected_tokens``: ``vllm:spec_decode_num_rejected_tokens_total`` (vLLM main), a cross-check.
- ``generation_tokens``: ``vllm:generation_tokens_total``, ``llamacpp:tokens_predicted_total``,
  ``sglang:generation_tokens_total``; ``prompt_tokens``: ``*prompt_tokens_total``.
- gauges ``running`` / ``waiting``: ``vllm:num_requests_running`` / ``_waiting``, ``llamacpp:requests_processing`` /
  ``_deferred``, ``sglang:num_running_reqs`` / ``num_queue_reqs``, ``trtllm_num_requests_running`` / ``_waiting``.

Speculative *gauges* (SGLang ``spec_accept_rate`` / ``spec_accept_length`` / ``spec_num_draft_tokens`` ...,
vLLM main ``spec_decode_acceptance_rate`` / ``spec_decode_effective_tokens_per_forward``, vLLM V0 (0.6.x,
``vllm/engine/metrics.py``) ``spec_decode_draft_acceptance_rate`` / ``spec_decode_efficiency``, TensorRT-LLM
``spec_decode_acceptance_length`` / ``spec_decode_draft_overhead``) hold a current mean and cannot be differenced
over a window: they go to ``spec_gauges`` (``GAUGE_NOT_WINDOW`` in the window reading), never into a figure. Info
gauges (vLLM ``spec_decode_capability``, TRT-LLM ``speculative_config_info``), the latency histograms and V0's
``spec_decode_num_emitted_tokens_total`` (accepted plus bonus tokens as V0 counted them: no verify-step count follows
from it) are known and not read. Any other sample name with ``spec`` or ``draft`` in it is listed in ``unread``
(``UNREAD_SPEC_FIELD``) under the name the exposition wrote (prometheus_client adds ``_total`` to a counter's sample
that lacks it; the name is given back as written).

Every value is summed over all labels other than ``position`` (``engine``, ``model_name``...), so a
data-parallel vLLM with two engines reports one total. Each *series set* is kept too (``SpecCounters.engines``), with
its ``*_created`` time, so that deltas are taken per series before summing (``specscope.stats.counters``): a series set
is the samples that share one full label set once the labels that are a metric's own dimension (``position``,
``le``, ``quantile``) and empty-valued labels (Prometheus' absent label) are set aside; label order does not matter.
vLLM labels every series ``model_name`` and ``engine`` (``vllm/v1/metrics/loggers.py``, ``PrometheusStatLogger``:
``per_engine_labelvalues``); a scrape that mixes replicas or sources (a federation, an aggregator, a router) adds
``instance`` / ``job`` / ``pod`` / ``dp_rank`` ... with ``engine="0"`` on each. A series set is named by its engine
(``"0"``) when its labels are ``engine`` and ``model_name`` alone and no other set of the scrape takes that name; else
by its Prometheus selector, labels sorted (``{engine="0",instance="b:8000",job="vllm",model_name="m"}``). The name is
a function of the set's own labels, so the same series has one name in both scrapes. A scrape of one series set
labelled ``model_name`` at most (llama.cpp: no labels; one SGLang server) keeps ``engines`` empty. Only samples
read into a count or gauge make a series set (a histogram's or an unread family's own labels make none).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import httpx

from specscope.errors import MetricsUnavailable, ServerUnreachable
from specscope.records import SpecCounters, series_selector

__all__ = ["metrics_url", "parse_metrics", "parse_trtllm_iteration_stats", "scrape", "slots_spec_config"]

# prefix -> engine kind; Dynamo re-exports TensorRT-LLM's names as ``trtllm:``
_PREFIXES = {"vllm:": "vllm", "llamacpp:": "llamacpp", "sglang:": "sglang", "trtllm_": "trtllm", "trtllm:": "trtllm"}

# sample name without prefix -> SpecCounters field (counters)
_COUNTERS: dict[str, str] = {
    "spec_decode_num_drafts_total": "drafts",
    "spec_verify_calls_total": "drafts",  # sglang: verify steps, the same quantity as vLLM's num_drafts
    "spec_decode_num_draft_tokens_total": "draft_tokens",
    "spec_decode_num_accepted_tokens_total": "accepted_tokens",
    "spec_decode_num_rejected_tokens_total": "rejected_tokens",
    "generation_tokens_total": "generation_tokens",
    "tokens_predicted_total": "generation_tokens",
    "prompt_tokens_total": "prompt_tokens",
}
# counters under names one engine uses alone: kind -> {sample name without prefix -> SpecCounters field}
_ENGINE_COUNTERS: dict[str, dict[str, str]] = {
    "llamacpp": {  # PR #25327's names
        "draft_verify_steps_total": "drafts",
        "draft_tokens_total": "draft_tokens",
        "draft_tokens_accepted_total": "accepted_tokens",
    }
}
_ENGINE_GAUGES: dict[str, frozenset[str]] = {"llamacpp": frozenset({"draft_acceptance_rate", "draft_mean_accept_len"})}
_PER_POS = "spec_decode_num_accepted_tokens_per_pos_total"
_GAUGES: dict[str, str] = {
    "num_requests_running": "running",
    "requests_processing": "running",
    "num_requests_waiting": "waiting",
    "requests_deferred": "waiting",
    "num_running_reqs": "running",  # sglang:
    "num_queue_reqs": "waiting",  # sglang:
}
_SPEC_GAUGES = frozenset(
    {
        "spec_accept_rate",  # sglang: (mostrecent gauges)
        "spec_accept_length",
        "spec_num_steps",
        "spec_num_draft_tokens",
        "spec_cap_length",
        "spec_block_accept_length",
        "spec_decode_acceptance_rate",  # vllm: main
        "spec_decode_effective_tokens_per_forward",
        "spec_decode_draft_acceptance_rate",  # vllm: V0 (0.6.x)
        "spec_decode_efficiency",
        "spec_decode_acceptance_length",  # trtllm_
        "spec_decode_draft_overhead",
    }
)
# known, and not acceptance: configuration info gauges and phase-latency histograms
_SPEC_KNOWN_IGNORED = (
    "spec_decode_capability",
    "speculative_config_info",
    "spec_decode_proposer_latency_seconds",
    "spec_decode_verification_latency_seconds",
    "spec_decode_num_emitted_tokens",  # vllm: V0, accepted + bonus tokens as V0 counted them
)
_PRESENT = {
    "drafts": "spec",
    "draft_tokens": "spec",
    "accepted_tokens": "spec",
    "rejected_tokens": "spec",
    "generation_tokens": "generation",
    "prompt_tokens": "prompt",
    "running": "running",
    "waiting": "waiting",
}


def _bad_sample(message: str, found: str, expected: str) -> MetricsUnavailable:
    """A /metrics sample specscope cannot use (``found`` cut to 200 characters: fuzzed names run long); to raise."""
    fix = "report this server's /metrics output to specscope"
    return MetricsUnavailable(message, found=found[:200], expected=expected, fix=fix)


def _sample_float(sample: Any) -> float:
    """A sample's value as a float; an integer beyond float range (found by fuzzing) is MetricsUnavailable."""
    try:
        return float(sample.value)
    except OverflowError:
        digits = f"{sample.name}: an integer of {len(str(sample.value))} digits"
        raise _bad_sample(
            "a /metrics sample value is out of range", digits, "a counter or gauge value below 1.8e308"
        ) from None


class _Engine:
    """Sums of one ``engine`` label's samples while parsing."""

    def __init__(self) -> None:
        self.sums: dict[str, float] = {}
        self.per_pos: dict[int, float] = {}
        self.present: set[str] = set()
        self.created: float | None = None
        self.kinds: dict[str, int] = {}
        self.spec_gauges: dict[str, float] = {}
        self.unread: set[str] = set()

    def counters(self) -> SpecCounters:
        n_pos = max(self.per_pos) + 1 if self.per_pos else 0
        sums = self.sums
        return SpecCounters(
            drafts=sums.get("drafts"),
            draft_tokens=sums.get("draft_tokens"),
            accepted_tokens=sums.get("accepted_tokens"),
            accepted_per_position=tuple(self.per_pos.get(i, 0.0) for i in range(n_pos)),  # (n_pos,)
            generation_tokens=sums.get("generation_tokens"),
            prompt_tokens=sums.get("prompt_tokens"),
            running=sums.get("running"),
            waiting=sums.get("waiting"),
            present=frozenset(self.present),
            created=self.created,
            engine_kind=max(self.kinds, key=lambda k: self.kinds[k]) if self.kinds else None,
            rejected_tokens=sums.get("rejected_tokens"),
            spec_gauges=dict(sorted(self.spec_gauges.items())),
            unread=tuple(sorted(self.unread)),
        )


def _position(name: str, labels: dict[str, str]) -> int:
    raw = labels.get("position", "")
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 6):  # fuzz: 5,000-digit and non-ASCII digits
        raise _bad_sample(
            "a per-position acceptance sample has no usable position label", f"{name}{labels}", 'position="0", "1", ...'
        )
    return int(raw)


def _take(eng: _Engine, name: str, short: str, kind: str, labels: dict[str, str], value: float) -> None:
    """Add one sample (its name without the prefix is ``short``, its engine kind ``kind``) to its engine's sums."""
    counters = {**_COUNTERS, **_ENGINE_COUNTERS.get(kind, {})}
    if short.endswith("_created"):
        base = short[: -len("_created")] + "_total"
        if base in counters or base == _PER_POS:
            eng.created = value if eng.created is None else max(eng.created, value)
        return
    if short in _SPEC_GAUGES or short in _ENGINE_GAUGES.get(kind, ()):
        eng.spec_gauges[name] = value
        return
    if any(short.startswith(k) for k in _SPEC_KNOWN_IGNORED):
        return
    if short not in counters and short != _PER_POS and ("spec" in short or "draft" in short):
        eng.unread.add(name)
        return
    if short == _PER_POS:
        pos = _position(name, labels)
        eng.per_pos[pos] = eng.per_pos.get(pos, 0.0) + value
        eng.present.add("per_pos")
        return
    field_name = counters.get(short) or _GAUGES.get(short)
    if field_name is not None:
        eng.sums[field_name] = eng.sums.get(field_name, 0.0) + value
        eng.present.add(_PRESENT[field_name])


def _what(exc: Exception, prefix: str, limit: int) -> str:
    """``prefix`` + the exception's type and message, cut to ``limit`` characters (an error's ``found``)."""
    return f"{prefix}{type(exc).__name__}: {exc}"[:limit]


def parse_metrics(text: str) -> SpecCounters:
    """Parse one Prometheus text exposition into a :class:`SpecCounters` snapshot.

    Args:
        text: the body of ``GET /metrics`` (Prometheus text format 0.0.4).

    Returns:
        A snapshot summed over all engines; counters absent from the text stay ``None`` (never 0), and ``present``
        names the families seen (``spec``, ``per_pos``, ``generation``, ``prompt``, ``running``, ``waiting``);
        ``engine_kind``, ``spec_gauges`` and ``unread`` as in the module doc. ``engines`` holds each series set's own
        snapshot under its name (module doc) with its ``created`` time (largest ``*_created``); empty for a scrape of
        one series set labelled ``model_name`` at most.

    Raises:
        MetricsUnavailable: the text is not Prometheus exposition format, or a ``position`` label
            is not a non-negative integer.
    """
    from prometheus_client.parser import text_string_to_metric_families

    try:
        families = list(text_string_to_metric_families(text))
    except (ValueError, TypeError, IndexError, OverflowError) as exc:  # OverflowError: a value past float range
        raise MetricsUnavailable(
            "the /metrics body is not Prometheus text",
            found=_what(exc, "", 200),
            expected="Prometheus text exposition format (name{labels} value lines)",
            fix="point --server at a vLLM / llama.cpp / SGLang server and check its /metrics page",
        ) from exc
    total = _Engine()
    taken: list[tuple[_Identity, str, str, str, dict[str, str], float]] = []
    read_ids: set[_Identity] = set()  # series sets that hold a count or a gauge
    for fam in families:
        for sample in fam.samples:
            prefix = next((p for p in _PREFIXES if sample.name.startswith(p)), None)
            if prefix is None:
                continue
            short = sample.name[len(prefix) :]
            value = _sample_float(sample)
            kind = _PREFIXES[prefix]
            total.kinds[kind] = total.kinds.get(kind, 0) + 1
            _take(total, sample.name, short, kind, sample.labels, value)
            ident = _identity(sample.labels)
            if _reads(short, kind):
                read_ids.add(ident)
            taken.append((ident, sample.name, short, kind, sample.labels, value))
    snap = total.counters()
    if snap.unread:
        snap = dataclasses.replace(snap, unread=_as_written(snap.unread, text))
    names = series_names(read_ids)
    if not names:
        return snap
    groups = {ident: _Engine() for ident in names}
    for ident, name, short, kind, labels, value in taken:
        eng = groups.get(ident)
        if eng is not None:
            eng.kinds = total.kinds
            _take(eng, name, short, kind, labels, value)
    per = {names[i]: g.counters() for i, g in groups.items()}
    per = {e: dataclasses.replace(c, unread=_as_written(c.unread, text)) if c.unread else c for e, c in per.items()}
    return dataclasses.replace(snap, engines=dict(sorted(per.items())))


_Identity = tuple[tuple[str, str], ...]
#: labels that are a metric's own dimension (per-position counters, histogram buckets, summary quantiles): kept inside
#: a series set, never a series set of their own.
_DIMENSIONS = frozenset({"position", "le", "quantile"})
_ENGINE_LABELS = frozenset({"engine", "model_name"})  # vLLM's own labels: such a set is named by its engine


def _identity(labels: dict[str, str]) -> _Identity:
    """A sample's series-set identity: its labels, sorted, without the metric's own dimensions and empty values."""
    return tuple(sorted((k, v) for k, v in labels.items() if k not in _DIMENSIONS and v != ""))


def _reads(short: str, kind: str) -> bool:
    """Whether a sample (name without prefix ``short``) is read into a count or a gauge (not ``_created``)."""
    return short in _COUNTERS or short in _ENGINE_COUNTERS.get(kind, {}) or short == _PER_POS or short in _GAUGES


def series_names(idents: set[_Identity]) -> dict[_Identity, str]:
    """Each series set's name (module doc); empty when the scrape is one set labelled ``model_name`` at most."""
    if len(idents) == 1 and not {k for k, _ in next(iter(idents))} - {"model_name"}:
        return {}
    short = {
        i: dict(i)["engine"] if "engine" in dict(i) and {k for k, _ in i} <= _ENGINE_LABELS else None for i in idents
    }
    taken = [n for n in short.values() if n is not None]
    return {i: n if n is not None and taken.count(n) == 1 else series_selector(i) for i, n in short.items()}


def _as_written(names: tuple[str, ...], text: str) -> tuple[str, ...]:
    """Each unread sample name as the exposition wrote it: prometheus_client gives a counter family's sample the
    ``_total`` suffix even where the text has none, so a name the text lacks is given back without it."""
    out = []
    for name in names:
        if name.endswith("_total") and not re.search(r"(?m)^" + re.escape(name) + r"[{\s]", text):
            name = name[: -len("_total")]
        out.append(name)
    return tuple(sorted(set(out)))


def metrics_url(base_url: str) -> str:
    """``/metrics`` of the server at ``base_url`` (an OpenAI base such as ``http://h:8000/v1`` is accepted)."""
    root = base_url.rstrip("/")
    if root.endswith("/v1"):
        root = root[: -len("/v1")]
    return root + "/metrics"


async def scrape(client: httpx.AsyncClient, base_url: str) -> SpecCounters:
    """GET ``/metrics`` and parse it.

    Args:
        client: an open ``httpx.AsyncClient`` (its timeouts apply).
        base_url: the server root or its OpenAI base (``.../v1``).

    Returns:
        The snapshot (see :func:`parse_metrics`).

    Raises:
        ServerUnreachable: nothing answered (connection refused, DNS failure, timeout).
        MetricsUnavailable: HTTP 404 / another error status, or a body that is not Prometheus text.
    """
    url = metrics_url(base_url)
    try:
        resp = await client.get(url)
    except httpx.TransportError as exc:  # connect errors, timeouts, protocol errors
        raise ServerUnreachable(
            "nothing answered at the server URL",
            found=_what(exc, f"{url}: ", 300),
            expected="a running OpenAI-compatible server",
            fix="start the server or correct --server (scheme, host and port)",
        ) from exc
    if resp.status_code != 200:
        raise MetricsUnavailable(
            "the server has no usable Prometheus /metrics endpoint",
            found=f"GET {url} -> HTTP {resp.status_code}",
            expected="HTTP 200 with Prometheus text",
            fix="enable metrics (llama.cpp: --metrics; vLLM serves them by default; SGLang: --enable-metrics)",
        )
    return parse_metrics(resp.text)


def parse_trtllm_iteration_stats(items: Any) -> tuple[SpecCounters, tuple[str, ...]]:
    """One window of TensorRT-LLM's iteration stats (``GET /metrics`` of ``trtllm-serve`` with
    ``enable_iter_perf_stats``: a JSON list, one item per iteration since the previous GET; the GET drains it).

    Read per item: ``specDecodingStats.numDraftTokens`` (drafted), ``numAcceptedTokens`` (accepted),
    ``numRequestsWithDraftTokens`` (requests that drafted in that iteration: its verify steps)
    (``cpp/include/tensorrt_llm/executor/types.h`` ``SpecDecodingStats``); ``acceptanceLength`` and ``draftOverhead``
    are per-iteration means, derived (not read). Items of ``attentionDpRank`` other than 0 are skipped: with attention
    data parallelism every rank's row carries rank 0's spec stats (a public reproduction script notes the fan-out).

    Returns:
        (the window's counts as a delta with ``engine_kind="trtllm"``; None where no item carried them, named
        reasons: ``WRONG_TYPE`` for a malformed item, ``ADP_DUPLICATE`` for skipped rows).
    """
    reasons: list[str] = []
    sums = {"drafts": 0.0, "draft_tokens": 0.0, "accepted_tokens": 0.0}
    seen = False
    names = (
        ("numRequestsWithDraftTokens", "drafts"),
        ("numDraftTokens", "draft_tokens"),
        ("numAcceptedTokens", "accepted_tokens"),
    )
    for i, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict):
            reasons.append(f"WRONG_TYPE(item {i}: {type(item).__name__})")
            continue
        if item.get("attentionDpRank", 0) != 0:
            reasons.append(f"ADP_DUPLICATE(item {i}: attentionDpRank {item.get('attentionDpRank')})")
            continue
        spec = item.get("specDecodingStats")
        if spec is None:
            continue
        values = {k: spec.get(src) if isinstance(spec, dict) else None for src, k in names}
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in values.values()):
            reasons.append(f"WRONG_TYPE(item {i}: specDecodingStats)")
            continue
        seen = True
        for k, v in values.items():
            sums[k] += float(v or 0)
    if not isinstance(items, list):
        reasons.append(f"WRONG_TYPE(iteration stats: {type(items).__name__}, expected a list)")
    if not seen:
        return SpecCounters(engine_kind="trtllm"), tuple(reasons)
    window = SpecCounters(
        drafts=sums["drafts"],
        draft_tokens=sums["draft_tokens"],
        accepted_tokens=sums["accepted_tokens"],
        present=frozenset({"spec"}),
        engine_kind="trtllm",
    )
    return window, tuple(reasons)


def slots_spec_config(slots: Any) -> dict[str, Any]:
    """What llama.cpp's ``GET /slots`` says about speculation per slot: ``params["speculative.n_max"]`` (the configured
    k), ``speculative.n_min``, ``speculative.p_min``, newer builds' ``speculative.types``, and the slot's
    ``speculative`` flag (a draft is loaded). Returns ``{"slots": n, "speculative": [flags], "n_max": [values],
    "types": [values], "reasons": [...]}``; a field absent or of the wrong type is None in its list, with
    ``WRONG_TYPE`` named."""
    out: dict[str, Any] = {"slots": 0, "speculative": [], "n_max": [], "types": [], "reasons": []}
    if not isinstance(slots, list):
        out["reasons"].append(f"WRONG_TYPE(/slots: {type(slots).__name__}, expected a list)")
        return out
    for i, slot in enumerate(slots):
        params = slot.get("params") if isinstance(slot, dict) else None
        if not isinstance(params, dict):
            out["reasons"].append(f"WRONG_TYPE(slot {i}: no params object)")
            params = {}
        n_max = params.get("speculative.n_max")
        if n_max is not None and (isinstance(n_max, bool) or not isinstance(n_max, int)):
            out["reasons"].append(f"WRONG_TYPE(slot {i}: speculative.n_max {n_max!r})")
            n_max = None
        flag = slot.get("speculative") if isinstance(slot, dict) else None
        out["slots"] += 1
        out["speculative"].append(flag if isinstance(flag, bool) else None)
        out["n_max"].append(n_max)
        out["types"].append(params.get("speculative.types"))
    return out
