"""`counters` on a scrape whose counter reads NaN or +Inf: refused by name (exit 2), not printed as "draft tokens
nan / rate nan" or turned into a LOW_ACCEPTANCE alarm (exit 1). The scrapes are written here in vLLM's /metrics
names (docs/engines.md); a gauge keeps its own rule (a current value, not a count)."""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.cli import main

_BEFORE = """\
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 100.0
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 300.0
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 150.0
"""


def _after(draft_tokens: str) -> str:
    return (
        'vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 300.0\n'
        f'vllm:spec_decode_num_draft_tokens_total{{engine="0",model_name="m"}} {draft_tokens}\n'
        'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 450.0\n'
    )


@pytest.mark.parametrize(
    "written",
    # 1e308 and 2**63 were read as counts ("draft tokens 1e+308"); a count stops below 2**63 (records.INT_BOUND);
    # 1e400 overflows the float and was named "= inf" (fresh clone's trial): each is named by its line as written
    ["NaN", "+Inf", "-5", "1e308", "9223372036854775808", "1e400"],
)
def test_a_counter_that_is_no_count_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], written: str
) -> None:
    before, after = tmp_path / "before.prom", tmp_path / "after.prom"
    before.write_text(_BEFORE)
    after.write_text(_after(written))
    with pytest.raises(SystemExit) as ei:
        main(["counters", str(before), str(after)])
    assert ei.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(
        # Prometheus text it is: the headline names what is wrong in it (it said "is not Prometheus text")
        f"error: {after}: a /metrics counter holds no count; found: line 2: "
        f'\'vllm:spec_decode_num_draft_tokens_total{{engine="0",model_name="m"}} {written}\' '
        "(not a count: a counter is a finite number from 0 to below 2**63); expected: a finite number from 0 to "
        "below 2**63;"
    )
    assert "inf" not in line.lower().replace("+inf", "")


def test_finite_counters_still_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before, after = tmp_path / "before.prom", tmp_path / "after.prom"
    before.write_text(_BEFORE)
    after.write_text(_after("900.0"))
    with pytest.raises(SystemExit) as ei:
        main(["counters", str(before), str(after)])
    assert ei.value.code == 0
    out = capsys.readouterr().out
    assert "drafts 200  draft tokens 600  accepted 300" in out and "rate 50.0%  length 2.50  k 3" in out
