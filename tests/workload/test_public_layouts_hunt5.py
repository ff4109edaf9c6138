"""Public layouts of the fifth new-user hunt (issue 36, branch wl60), small rows in their own field names under
``tests/data/workload_public`` (SOURCES.md names each source):

* DROP's and BoolQ's ``passage`` (ucinlp/drop, google/boolq): the question was sent without it, the passage named
  only among generic unread fields; it is now named as the passage not sent, with the jq that prepends it (run here);
* an MLPerf llama2 row (``system_prompt``, ``question``, ``output``): vLLM's ``MLPerfDataset`` sizes each request's
  output by the tokenised ``output``; specscope did not read it (``--max-tokens`` applied);
* nvidia/Llama-Nemotron-Post-Training-Dataset rows (``input`` messages, ``output``): labelled specscope.openai_evals,
  ``output`` not read as the recorded answer whose token count is the output length;
* a pandas index column (``df.to_csv()`` writes an empty header cell) was named ``(, source, ...)``;
* an HH transcript in a CSV column was refused with a jq that cannot read CSV.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from clirun import cli
from jqfix import jq_command as _jq
from paths import DATA
from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file

HERE = DATA / "workload_public"


@pytest.mark.parametrize(
    ("name", "user"),
    [
        ("drop.jsonl", "The Chiefs beat the Raiders 21-7.\n\nWho won the game?"),
        ("boolq.jsonl", "On a clear day the sky is blue.\n\nis the sky blue on a clear day"),
    ],
)
def test_a_passage_is_named_with_the_jq_that_prepends_it(
    name: str, user: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    """No peer reader sends a ``passage`` column (GuideLLM's mapper has no such column; vLLM's and SGLang's file
    readers take ``prompt`` / conversations): the question goes alone, and bench says so with the jq."""
    path = HERE / name
    (p,) = load_prompt_file("a", path)
    assert p.meta["unsent_passage_fields"] == ("passage",)
    assert "passage" not in p.meta.get("unread_fields", ())
    code, out, err = cli(["bench", "--workload", f"a={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "1 row carries passages (passage) that are not sent: " in out
    assert "(, " not in out
    converted = tmp_path / "converted.jsonl"
    jq = _jq(out[out.index("passages (passage)") :])
    subprocess.run(["sh", "-c", jq.replace("FILE > OUT.jsonl", f"{path} > {converted}")], check=True)
    (q,) = load_prompt_file("a", converted)
    assert q.messages == [{"role": "user", "content": user}]
    assert "unsent_passage_fields" not in q.meta


def test_a_pandas_index_column_is_named_not_left_blank(tmp_path: Path, capsys, monkeypatch) -> None:
    """``df.to_csv()`` writes the index under an empty header cell: the unread-fields warning read ``(, source,
    score)``; the column is named by its place."""
    path = HERE / "pandas_index.csv"
    code, out, err = cli(["bench", "--workload", f"a={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "(unnamed column 1, source, score)" in out, out


def test_an_hh_transcript_in_a_csv_is_refused_with_a_conversion_that_reads_csv(tmp_path: Path) -> None:
    """The HH refusal's jq reads JSON; on a CSV file it cannot run. The fix names the conversion to JSON Lines
    first, and the two commands together (run here) give the messages."""
    path = HERE / "full_hh_rlhf.csv"
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", path)
    fix = err.value.fix or ""
    assert "CSV" in fix and "JSON Lines" in fix, fix
    start = fix.index("python3 ")
    convert = fix[start : fix.index("> ROWS.jsonl", start) + len("> ROWS.jsonl")]
    rows = tmp_path / "rows.jsonl"
    subprocess.run(["sh", "-c", convert.replace("FILE", str(path)).replace("ROWS.jsonl", str(rows))], check=True)
    out = tmp_path / "out.jsonl"
    jq = _jq(fix)
    subprocess.run(["sh", "-c", jq.replace("FILE > OUT.jsonl", f"{rows} > {out}")], check=True)
    (q,) = load_prompt_file("a", out)
    assert q.messages == [{"role": "user", "content": "What is tea?"}]


def test_an_mlperf_row_is_sized_by_its_reference_output() -> None:
    """vLLM's ``MLPerfDataset`` (mgoin/mlperf-inference-llama2-data: ``system_prompt``, ``question``, ``output``) sets
    each request's output length to the tokenised ``output``; the row's ``output`` is its recorded answer."""
    got = load_prompt_file("a", HERE / "mlperf_llama2.jsonl")
    assert [p.messages for p in got] == [
        [
            {"role": "system", "content": "You are an AI assistant that helps people find information."},
            {"role": "user", "content": "Is ice cold?"},
        ],
        [{"role": "user", "content": "Name a red fruit."}],
    ]
    assert [p.meta.get("recorded_answer") for p in got] == ["Yes, ice is cold.", "An apple."]
    assert [p.meta.get("id") for p in got] == ["cot.1", "flan.2"]


def test_a_nemotron_post_training_row_is_sized_by_its_output(tmp_path: Path, capsys, monkeypatch) -> None:
    """nvidia/Llama-Nemotron-Post-Training-Dataset rows (``input`` a list of messages, ``output`` the answer, labels
    beside them) were labelled specscope.openai_evals and sent with ``--max-tokens``, ``output`` named unread. No peer
    benchmark reader reads the layout; its ``output`` is the recorded answer, whose token count is the output length
    as vLLM's and SGLang's readers take a recorded answer's; the dataset's labels are named as labels, never sent."""
    path = HERE / "nemotron_post_training.jsonl"
    got = load_prompt_file("a", path)
    assert [p.messages for p in got] == [
        [{"role": "system", "content": "detailed thinking on"}, {"role": "user", "content": "What is 2+2?"}],
        [{"role": "system", "content": "detailed thinking off"}, {"role": "user", "content": "Name a colour."}],
    ]
    assert [p.meta.get("recorded_answer") for p in got] == ["<think>\nSimple sum.\n</think>\n2+2 is 4.", "Blue."]
    assert all("unread_fields" not in p.meta for p in got), [p.meta.get("unread_fields") for p in got]
    code, out, err = cli(["bench", "--workload", f"a={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "openai_evals" not in out
    assert "from the recorded answer's token count" in out


@pytest.mark.parametrize(
    ("name", "field", "user"),
    [
        ("race.jsonl", "article", "Tom went home early.\n\nWhy did Tom go home?"),
        (
            "sciq.jsonl",
            "support",
            "Mesophiles grow best in moderate temperature.\n\nWhat type of organism is used in yogurt?",
        ),
    ],
)
def test_other_passage_names_are_named_with_their_jq(
    name: str, field: str, user: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    """ehovy/race's ``article`` and allenai/sciq's ``support`` are the passage of their question under other names:
    they were among generic unread fields; they are named as the passage not sent, with the jq for that name."""
    path = HERE / name
    (p,) = load_prompt_file("a", path)
    assert p.meta["unsent_passage_fields"] == (field,)
    assert field not in p.meta.get("unread_fields", ())
    code, out, err = cli(["bench", "--workload", f"a={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    note = out[out.index(f"passages ({field})") :]
    jq = _jq(note[note.index(f"`{field}`: jq ") :])
    converted = tmp_path / "converted.jsonl"
    subprocess.run(["sh", "-c", jq.replace("FILE > OUT.jsonl", f"{path} > {converted}")], check=True)
    (q,) = load_prompt_file("a", converted)
    assert q.messages == [{"role": "user", "content": user}]
