"""llama.cpp's per-response speculative fields, read into the engine-neutral :class:`~specscope.records.SpecRequest`
(issues 16, 26; docs/engines.md has the field-by-field table).

``timings.draft_n`` / ``draft_n_accepted`` on the final chunk (``llama-server`` b9251); verify steps are not reported
(a decode step without a draft emits one token, so ``predicted_n - draft_n_accepted`` counts decode steps). No queue
wait is reported, and nothing is derived in its place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from specscope.adapters.per_response import Reader, ResponseField, spec_record
from specscope.records import SpecRequest

__all__ = ["FIELDS", "KEYS", "ROOT_KEYS", "WHERE", "read_payload", "read_root"]

#: the ``timings`` keys it reads; any other ``draft*`` key there is ``UNREAD_SPEC_FIELD``
KEYS = frozenset({"draft_n", "draft_n_accepted"})
#: the top-level keys it reads
ROOT_KEYS = frozenset({"timings"})
#: where its responses carry the fields, as a note names it
WHERE = "timings"


def read_payload(payload: Mapping[str, Any], path: str) -> SpecRequest:
    """The ``timings`` object at ``path``."""
    r = Reader(payload, path)
    for key in payload:
        if key.startswith("draft") and key not in KEYS:
            r.warnings.append(f"UNREAD_SPEC_FIELD({path}.{key})")
    return spec_record(
        "llamacpp",
        "llamacpp.timings",
        r,
        accepted_tokens=r.count("draft_n_accepted"),
        draft_tokens=r.count("draft_n"),
        histogram=(),
    )


def read_root(obj: Mapping[str, Any]) -> list[SpecRequest]:
    """Top-level ``timings`` when it holds a ``draft*`` key (no draft model: no ``draft_n``, no reading)."""
    timings = obj.get("timings")
    if isinstance(timings, dict) and any(k.startswith("draft") for k in timings):
        return [read_payload(timings, "timings")]
    return []


#: what this reader declares of each per-response field, as docs/engines.md's per-response table shows it
# the command-level test of the shapes read (bench against the truth server scripted to each)
_CLI = "tests/cli/test_per_response_shapes_cli.py::test_bench_reads_each_per_response_shape"
FIELDS: tuple[ResponseField, ...] = (
    ResponseField(
        "b9251 (`llama-server` final chunk; xllamacpp 2026.10 server)",
        "`timings.draft_n`",
        "read",
        "`draft_tokens`",
        f"llamacpp-b9251-timings; integration `llamacpp`; CLI: `{_CLI}[llamacpp]`",
    ),
    ResponseField(
        "same",
        "`timings.draft_n_accepted`",
        "read",
        "`accepted_tokens`",
        f"llamacpp-b9251-timings; CLI: `{_CLI}[llamacpp]`",
    ),
    ResponseField(
        "same",
        "verify steps",
        "not sent",
        "`verify_steps` None: `predicted_n - draft_n_accepted` counts decode steps, and a step without a draft emits"
        " one token (AIPerf's adapter derives it anyway)",
        "llamacpp-b9251-timings",
    ),
    ResponseField(
        "same",
        "`timings.predicted_n`, `prompt_n`, `cache_n`, `*_ms`, `*_per_second`",
        "ignored",
        "not speculation (tokens come from `usage`)",
        "—",
    ),
    ResponseField("same", "no `draft_n` (no draft model)", "ignored", "no record (absent, not 0)", "llamacpp-no-draft"),
    ResponseField(
        "AIPerf `llamacpp_adapter.py` @ 5850dd43",
        "`draft_n_accepted > draft_n`",
        "read, flagged",
        "`SPEC_IDENTITY`",
        "llamacpp-accepted-over-drafted",
    ),
    ResponseField(
        "`GET /slots` (`adapters/llamacpp/facts.py`, asked by `bench --server` at its server check)",
        '`params["speculative.n_max"]` (configured k), `n_min`, `p_min`, `speculative.types`, slot `speculative`',
        "read",
        'server facts `endpoints["/slots"]`; k in `report`\'s Servers table when every slot states one',
        "test_trtllm_llamacpp_sources; tests/integration/test_slots_facts_bench.py"
        "::test_bench_stores_the_slots_k_and_report_shows_it",
    ),
)
