"""imp61: SGLang decode-batch lines: whether an ``accept rate`` counts the bonus token when the log names no k, and
the fields of the line specscope does not read, named.

Sources: SGLang ``scheduler_metrics_mixin.py`` ``log_decode_stats`` (public copies at index ids 135019089,
33194357993, 479745621 and 61864081288; the last after PR #23530, merged 2026-04-23, whose rate is (accepted -
verify steps) / (verify steps x (num_draft_tokens - 1)); before it, accepted / (verify steps x num_draft_tokens),
the bonus token counted). Fixture: tests/data/engines/logs/sglang_issue11948_eagle3_windows.log (SOURCES.md)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from paths import DATA
from specscope.cli import app

LOG = DATA / "engines" / "logs" / "sglang_issue11948_eagle3_windows.log"
LINE = (
    "[{date} 10:00:00 TP0] Decode batch, #running-req: 1, #token: 108, token usage: 0.00, accept len: 2.17, "
    "accept rate: 0.54, cuda graph: True, gen throughput (token/s): 0.39, #queue-req: 0{extra}"
)


def _parse(path, *extra: str):
    return CliRunner().invoke(app, ["serve", "--parse-log", str(path), *extra])


def test_issue11948_rate_read_by_its_date_as_counting_the_bonus_token() -> None:
    """Its lines are dated 2025-10-22, before PR #23530; no server_args line gives k, so the figures cannot tell
    (2.17 / 4 = 0.54 with the bonus at k = 3; any rate fits without k): the date does, named. Before: the range was
    shown as the rate of drafted tokens, unqualified."""
    r = _parse(LOG, "-f", "json")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output)["sglang_spec_summary"]
    assert summary["accept_rate_counts_bonus"] is True
    assert summary["accept_rate_reading"] == (
        "counts the bonus token: the log's lines are dated 2025-10-22, before SGLang PR #23530 (merged 2026-04-23) "
        "made it accepted drafts / drafted"
    )
    assert summary["acceptance_rate_at_most"] == 0.54 + 0.005  # a bonus-counting rate still bounds from above
    text = " ".join(_parse(LOG, "--width", "300").output.split())  # one row per line, whatever the terminal
    assert "45.0% to 54.0% (counts the bonus token: the log's lines are dated 2025-10-22" in text, text


def test_a_later_log_without_k_names_the_ambiguity(tmp_path) -> None:
    log = tmp_path / "sglang.log"
    log.write_text(LINE.format(date="2026-06-01", extra=""), encoding="utf-8")
    summary = json.loads(_parse(log, "-f", "json").output)["sglang_spec_summary"]
    assert summary["accept_rate_counts_bonus"] is False
    assert summary["accept_rate_reading"] == (
        "may count the bonus token, as SGLang's did before PR #23530 (merged 2026-04-23): the log names no k "
        "(server_args) to tell by its figures and is dated after it"
    )


def test_unknown_decode_batch_fields_are_named_once(tmp_path) -> None:
    """Fields of SGLang's decode-batch line at the releases read are not named; any other is UNREAD_LOG_FIELD, as
    vLLM's are (before: dropped unnamed)."""
    log = tmp_path / "sglang.log"
    extra = ", est. decode TFLOPS/s (per GPU): 1.20, spec verify ms: 3.10, top1 rate: 0.40"
    lines = [LINE.format(date="2026-06-01", extra=extra), LINE.format(date="2026-06-01", extra=", top1 rate: 0.41")]
    log.write_text("\n".join(lines), encoding="utf-8")
    doc = json.loads(_parse(log, "-f", "json").output)
    (said,) = [w for w in doc["engine_logs"][0]["warnings"] if w.startswith("UNREAD_LOG_FIELD(")]
    assert said == (
        "UNREAD_LOG_FIELD(SGLang decode-batch lines 1-2, 2 lines print fields specscope does not read: "
        "'spec verify ms', 'top1 rate'; the windows' figures come from the fields it reads)"
    )
    r = _parse(LOG, "-f", "json")
    assert not [w for w in json.loads(r.output)["engine_logs"][0]["warnings"] if w.startswith("UNREAD_LOG_FIELD(")]
