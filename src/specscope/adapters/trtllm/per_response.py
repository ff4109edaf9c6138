"""TensorRT-LLM's per-response speculative fields, read into the engine-neutral
:class:`~specscope.records.SpecRequest` (issues 16, 26; docs/engines.md has the field-by-field table).

``per_request_spec_decode_stats: true``: per-choice ``speculative_decoding`` on the finish chunk:
``total_accepted_draft_tokens``, ``total_draft_tokens``, ``num_spec_steps``, ``acceptance_histogram`` (dense),
``num_spec_tokens`` (null under ``draft_len_schedule``); ``acceptance_rate`` is derived (checked), and the choice's
``avg_decoded_tokens_per_iter`` averages every iteration, drafting or not (ignored).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from specscope.adapters.per_response import Reader, ResponseField, spec_record
from specscope.records import SpecRequest

__all__ = ["CHOICE_ORDER", "FIELDS", "KEYS", "ROOT_KEYS", "WHERE", "read_choice", "read_payload"]

#: the keys of a choice's ``speculative_decoding`` it knows (read or derived)
KEYS = frozenset(
    {
        "acceptance_rate",
        "total_accepted_draft_tokens",
        "total_draft_tokens",
        "num_spec_steps",
        "acceptance_histogram",
        "num_spec_tokens",
    }
)
#: nothing at the top level
ROOT_KEYS: frozenset[str] = frozenset()
#: where its responses carry the fields, as a note names it
WHERE = "choices[].speculative_decoding"
#: after vLLM's per-choice shape, before SGLang's ``meta_info`` among a choice's readers
CHOICE_ORDER = 1


def read_payload(payload: Mapping[str, Any], path: str) -> SpecRequest:
    """One choice's ``speculative_decoding`` at ``path``."""
    r = Reader(payload, path)
    r.unread(KEYS)
    return spec_record(
        "trtllm",
        "trtllm.choices.speculative_decoding",
        r,
        accepted_tokens=r.count("total_accepted_draft_tokens"),
        draft_tokens=r.count("total_draft_tokens"),
        verify_steps=r.count("num_spec_steps"),
        histogram=r.histogram("acceptance_histogram"),
        configured_k=r.count("num_spec_tokens"),
    )


def read_choice(i: int, choice: Mapping[str, Any]) -> list[SpecRequest]:
    """``choices[i].speculative_decoding`` when it is an object (absent: the request never drafted, no reading)."""
    trt = choice.get("speculative_decoding")
    return [read_payload(trt, f"choices[{i}].speculative_decoding")] if isinstance(trt, dict) else []


#: what this reader declares of each per-response field, as docs/engines.md's per-response table shows it
# the command-level test of the shapes read (bench against the truth server scripted to each)
_CLI = "tests/cli/test_per_response_shapes_cli.py::test_bench_reads_each_per_response_shape"
FIELDS: tuple[ResponseField, ...] = (
    ResponseField(
        "`per_request_spec_decode_stats: true` (AIPerf TRT-LLM adapter docs, index id 68902323741;"
        " `RequestPerfMetrics.speculative_decoding`)",
        "`choices[].speculative_decoding.total_accepted_draft_tokens`",
        "read",
        "`accepted_tokens`",
        f"trtllm-per-choice-aiperf; integration `trtllm`; CLI: `{_CLI}[trtllm]`",
    ),
    ResponseField("same", "`.total_draft_tokens`", "read", "`draft_tokens`", f"same; CLI: `{_CLI}[trtllm]`"),
    ResponseField("same", "`.num_spec_steps`", "read", "`verify_steps`", f"same; CLI: `{_CLI}[trtllm]`"),
    ResponseField("same", "`.acceptance_histogram` (dense)", "read", "`histogram`", f"same; CLI: `{_CLI}[trtllm]`"),
    ResponseField(
        "same",
        "`.num_spec_tokens` (null under `draft_len_schedule`)",
        "read",
        "`configured_k` (None: no fixed k)",
        f"trtllm-draft-len-schedule; integration variable k; CLI: `{_CLI}[trtllm]`",
    ),
    ResponseField("same", "`.acceptance_rate`", "derived", "not read", "trtllm-per-choice-aiperf"),
    ResponseField(
        "same",
        "`choices[].avg_decoded_tokens_per_iter`",
        "ignored",
        "averages every decoding iteration, drafting or not",
        "trtllm-per-choice-aiperf",
    ),
    ResponseField("same", "block absent (request never drafted)", "ignored", "no record", "trtllm-no-draft-absent"),
)
