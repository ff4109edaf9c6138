"""`counters` on one scrape of two models, one of them on two data-parallel engines (vLLM's PrometheusStatLogger
labels ``engine`` and ``model_name``, seen through a Prometheus ``/federate``). Found by a fresh-user check
(2026-12-05): engine 1's set was named by its index alone, so it lost its model and llama-8b's figure left it out
(0.600 instead of 0.500); and the consistency rules ran on the sum of both models (k=3 and k=5), calling them
INCONSISTENT and exiting 1. Inputs: tests/data/counters/SOURCES.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.cli import main

DATA = Path(__file__).parent.parent / "data" / "counters"


def _counters(capsys: pytest.CaptureFixture[str], stem: str, *extra: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as ei:
        main(["counters", str(DATA / f"{stem}_before.prom"), str(DATA / f"{stem}_after.prom"), *extra])
    return int(ei.value.code or 0), capsys.readouterr().out


def test_each_model_pools_its_own_engines(capsys):
    code, out = _counters(capsys, "vllm_two_models_dp2", "-f", "json")
    assert code == 0
    doc = json.loads(out)
    llama, qwen = doc["models"]["llama-8b"], doc["models"]["qwen-32b"]
    assert sorted(llama["series"]) == ['{engine="0",model_name="llama-8b"}', '{engine="1",model_name="llama-8b"}']
    assert (llama["drafts"], llama["draft_tokens"], llama["accepted_tokens"]) == (2000, 6000, 3000)
    assert (llama["acceptance_rate"], llama["acceptance_length"]) == (0.5, 2.5)
    assert (qwen["drafts"], qwen["draft_tokens"], qwen["accepted_tokens"]) == (500, 2500, 750)
    assert (qwen["acceptance_rate"], qwen["acceptance_length"]) == (0.3, 2.5)
    assert doc["inconsistencies"] == []
    assert doc["acceptance_rate"] is None  # no pooled headline over two models


def test_consistent_sets_of_two_models_are_not_inconsistent_and_a_bad_set_is_named(capsys, tmp_path):
    code, out = _counters(capsys, "vllm_two_models_partial_per_pos")
    assert code == 0, out
    assert "INCONSISTENT" not in out
    assert "model qwen-32b: rate 20.0%  length 2.00  drafts 500  draft tokens 2500  accepted 500" in out
    # llama-8b's engine 0 has per-position counts, its engine 1 none: no per position for the model (new-user
    # finding: engine 0's counts over both engines' drafts read 0.45/0.30/0.15, with 1 + their sum != length 2.5)
    code, text = _counters(capsys, "vllm_two_models_partial_per_pos", "-f", "json")
    llama = json.loads(text)["models"]["llama-8b"]
    assert (llama["acceptance_length"], llama["acceptance_per_position"]) == (2.5, [])
    # one set whose per-position counts do not add up is named, the others are not
    after = (DATA / "vllm_two_models_dp2_after.prom").read_text()
    bad = after.replace(
        'per_pos_total{engine="1",model_name="llama-8b",position="0"} 2200.0',
        'per_pos_total{engine="1",model_name="llama-8b",position="0"} 2300.0',
    )
    assert bad != after
    (tmp_path / "after.prom").write_text(bad)
    with pytest.raises(SystemExit) as ei:
        main(["counters", str(DATA / "vllm_two_models_dp2_before.prom"), str(tmp_path / "after.prom")])
    out = capsys.readouterr().out
    assert ei.value.code == 1
    assert 'INCONSISTENT PER_POSITION_SUM({engine="1",model_name="llama-8b"}: sum 1300 != accepted 1200)' in out
