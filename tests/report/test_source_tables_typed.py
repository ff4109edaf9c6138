"""The manifest's ``--dataset`` / ``--trace`` provenance, typed (``RunManifest.datasets`` / ``trace``), renders as it
was stored: a time scale of 1 stays "1" (a float field made it "1.0"), refused rows keep their ids and reasons, and a
key the reader does not know is kept, not read."""

from __future__ import annotations

from specscope.report.source_tables import source_tables
from specscope.store.manifest import RunManifest

TRACE = {
    "path": "/data/burst.csv",
    "format": "burstgpt",
    "sha256": "ab" * 32,
    "rows_total": 3,
    "rows_used": 2,
    "time_scale": 1,
    "reordered": False,
    "span_s": 5.04,
    "rows_refused": [{"row": "line 3", "kind": "zero_output", "reason": "Response tokens is 0"}],
    "context_check": "skipped: no /tokenize",
    "units": "words",
}


def test_a_trace_renders_as_stored():
    manifest = RunManifest.model_validate({"schema_version": 2, "kind": "bench", "trace": TRACE})
    sources, refused = source_tables(manifest)
    (row,) = sources.rows
    assert row[:4] == ["trace (burstgpt)", "time scale 1", "—", f"burst.csv sha256:{'ab' * 6}"]
    assert refused.rows[0] == ["trace", "line 3", "zero_output", "Response tokens is 0"]
    assert manifest.to_json()["trace"] == TRACE  # span_s (not read here) kept as stored
