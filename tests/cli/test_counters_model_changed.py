"""Attack round 51: ``counters`` of two scrapes whose series sets are not the same.

- AFTER holding only ``vllm:generation_tokens_total{model_name="other"} 1`` against BEFORE of another model
  (tests/data/fixtures/vllm_metrics_docs_example.prom) was refused as "the counters went down ... the files may be
  swapped": a different model is no swap. BEFORE's model vanished and a new model appeared, each set named by its
  model.
- AFTER's series carrying an extra label (``engine``) left BEFORE's unlabelled set an empty name: ``ENGINE_VANISHED()``
  and ``(: every series gone after the window)``. That set is named ``server`` in JSON, reasons and text alike.
"""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli

BEFORE = Path(__file__).parent.parent / "data" / "fixtures" / "vllm_metrics_docs_example.prom"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
OLD = f'{{model_name="{MODEL}"}}'


def _run(tmp_path: Path, after: str, capsys, monkeypatch, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "aft.prom"
    path.write_text(after + "\n")
    return cli(["counters", BEFORE, path, *extra], capsys, monkeypatch, tmp_path)


def test_another_model_is_no_swap(tmp_path, capsys, monkeypatch):
    after = 'vllm:generation_tokens_total{model_name="other"} 1'
    code, out, err = _run(tmp_path, after, capsys, monkeypatch, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["reasons"] == [f"ENGINE_VANISHED({OLD})", 'ENGINE_UNKNOWN_START({model_name="other"})']
    assert doc["statement"] == f"model unloaded or engine stopped ({OLD}: every series gone after the window)"
    assert sorted(doc["engines"]) == sorted([OLD, '{model_name="other"}'])
    code, out, err = _run(tmp_path, after, capsys, monkeypatch)
    assert code == 0 and "swapped" not in out + err
    assert f"series {OLD}: vanished: no series in the after scrape (left out; not a restart)" in out
    assert 'series {model_name="other"}: new, start unknown' in out
    assert "acceptance (no series set counted over the window): rate —  length —  k —" in out


def test_another_model_with_an_extra_label(tmp_path, capsys, monkeypatch):
    after = 'vllm:generation_tokens_total{model_name="other",engine="0"} 1'
    code, out, err = _run(tmp_path, after, capsys, monkeypatch, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["reasons"] == [f"ENGINE_VANISHED({OLD})", 'ENGINE_UNKNOWN_START({engine="0",model_name="other"})']


def test_the_unlabelled_set_is_named_server(tmp_path, capsys, monkeypatch):
    after = f'vllm:generation_tokens_total{{model_name="{MODEL}",engine="0"}} 1'
    code, out, err = _run(tmp_path, after, capsys, monkeypatch, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["reasons"] == ["ENGINE_VANISHED(server)", "ENGINE_UNKNOWN_START(0)"]
    assert doc["statement"] == "model unloaded or engine stopped (server: every series gone after the window)"
    assert sorted(doc["engines"]) == ["0", "server"]
    code, out, err = _run(tmp_path, after, capsys, monkeypatch)
    assert "server: vanished: no series in the after scrape (left out; not a restart)" in out
    assert "()" not in out and "(:" not in out
