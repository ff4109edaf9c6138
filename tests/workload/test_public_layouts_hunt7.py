"""Issue 36 item 3, what round 61 left (wl62):

* the DROP, BoolQ, RACE and SciQ passage jqs read JSON Lines only (on a JSON-array file ``.question`` of the array
  fails); every passage jq now starts with the census's one way of reading each row of a file that is either JSON
  Lines or a JSON array (:data:`specscope.workload.census.EACH_ROW`), and each is run here on both file forms;
* the zeta jq cut ``output`` at ``index("<|editable_region_start|>")``, which jq 1.6 counts in bytes while ``.[n:]``
  slices characters: on a row with non-ASCII text before the marker the cut fell inside the text.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from clirun import cli
from jqfix import jq_command as _jq
from jqfix import run_jq as _run
from paths import DATA
from specscope.errors import ConfigError
from specscope.workload.census import EACH_ROW
from specscope.workload.userfile import load_prompt_file

HERE = DATA / "workload_public"


def _as_array(path: Path, tmp_path: Path) -> Path:
    """The rows of JSON Lines file ``path`` written as one JSON array (the form ``Dataset.to_json(lines=False)``
    writes), under ``tmp_path``."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = tmp_path / (path.stem + ".json")
    out.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    return out


def test_jq_version_is_the_one_these_checks_name() -> None:
    """The checks below run the system jq; the byte-counting ``index`` they guard against is jq 1.6's."""
    version = subprocess.run(["jq", "--version"], check=True, capture_output=True, text=True).stdout.strip()
    assert version.startswith("jq-1.")


PASSAGES = [
    ("drop.jsonl", "passage", "The Chiefs beat the Raiders 21-7.\n\nWho won the game?"),
    ("boolq.jsonl", "passage", "On a clear day the sky is blue.\n\nis the sky blue on a clear day"),
    ("race.jsonl", "article", "Tom went home early.\n\nWhy did Tom go home?"),
    (
        "sciq.jsonl",
        "support",
        "Mesophiles grow best in moderate temperature.\n\nWhat type of organism is used in yogurt?",
    ),
]


@pytest.mark.parametrize("form", ["jsonl", "array"])
@pytest.mark.parametrize(("name", "field", "user"), PASSAGES)
def test_every_passage_jq_reads_json_lines_and_a_json_array(
    name: str, field: str, user: str, form: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    """``bench --workload a=FILE --dry-run`` names the passage with its jq; that jq, run on the file (JSON Lines or a
    JSON array of the same rows), writes the question after its passage, which specscope reads as one user turn."""
    path = HERE / name if form == "jsonl" else _as_array(HERE / name, tmp_path)
    code, out, err = cli(["bench", "--workload", f"a={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    note = out[out.index(f"passages ({field})") :]
    jq = _jq(note[note.index(f"`{field}`: jq ") :])
    assert jq.startswith(f"jq -c '{EACH_ROW}")
    (q,) = load_prompt_file("a", _run(jq, path, tmp_path / "out.jsonl"))
    assert q.messages == [{"role": "user", "content": user}]
    assert "unsent_passage_fields" not in q.meta


@pytest.mark.parametrize("form", ["jsonl", "array"])
def test_the_hotpotqa_jq_uses_the_same_row_reading(form: str, tmp_path: Path, capsys, monkeypatch) -> None:
    """HotpotQA's jq (which read both forms already) reads each row the census's one way."""
    path = HERE / "hotpotqa.jsonl" if form == "jsonl" else _as_array(HERE / "hotpotqa.jsonl", tmp_path)
    code, out, err = cli(["bench", "--workload", f"a={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    note = out[out.index("passages (context)") :]
    jq = _jq(note[note.index("a HotpotQA `context`") :])
    assert jq.startswith(f"jq -c '{EACH_ROW}")
    (q,) = load_prompt_file("a", _run(jq, path, tmp_path / "o.jsonl"))
    assert q.messages[0]["content"].endswith("\n\nWere Scott Derrickson and Ed Wood of the same nationality?")


_MARK = "<|editable_region_start|>"
#: a zeta row with non-ASCII text before the marker (é and ✓: 1 and 2 bytes more than their characters)
_ZETA_NON_ASCII = {
    "events": 'User edited "é.py"',
    "input": f"# café ✓\n{_MARK}\nx<|editable_region_end|>",
    "output": f"# café ✓\n{_MARK}\nx = 1<|editable_region_end|>",
}


@pytest.mark.parametrize("form", ["jsonl", "array"])
def test_the_zeta_jq_cuts_at_the_marker_on_non_ascii_text(form: str, tmp_path: Path) -> None:
    """vLLM's NextEditPredictionDataset keeps ``output[output.find(marker):]`` (characters); the jq's cut was at
    jq 1.6's byte offset, 3 characters past the marker here. Run on both file forms."""
    path = tmp_path / "zeta.jsonl"
    path.write_text(json.dumps(_ZETA_NON_ASCII, ensure_ascii=False) + "\n", encoding="utf-8")
    if form == "array":
        path = _as_array(path, tmp_path)
    with pytest.raises(ConfigError) as err:
        load_prompt_file("z", path)
    jq = _jq(err.value.fix or "")
    assert jq.startswith(f"jq -c '{EACH_ROW}")
    (p,) = load_prompt_file("z", _run(jq, path, tmp_path / "out.jsonl"))
    assert p.meta["recorded_answer"] == f"{_MARK}\nx = 1<|editable_region_end|>"


def test_the_zeta_jq_without_a_marker_keeps_the_last_character_as_vllm_does(tmp_path: Path) -> None:
    """``str.find`` gives -1 without the marker, and vLLM keeps ``output[-1:]``: the jq does the same."""
    path = tmp_path / "zeta.jsonl"
    path.write_text(json.dumps({**_ZETA_NON_ASCII, "output": "x = é"}, ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("z", path)
    (p,) = load_prompt_file("z", _run(_jq(err.value.fix or ""), path, tmp_path / "out.jsonl"))
    assert p.meta["recorded_answer"] == "é"


def test_an_alpaca_shaped_file_names_instructcoders_order(tmp_path: Path, capsys, monkeypatch) -> None:
    """likaixin/InstructCoder's rows have Alpaca's fields (``instruction``, ``input``, ``output``) and a file does
    not carry its hub id, so specscope cannot tell them apart: it sends Alpaca's order, and the dry run names the
    order vLLM's InstructCoderDataset sends, with the jq that writes it; that jq's prompt is the one
    ``--dataset instructcoder`` sends (one reader of vLLM's form)."""
    from specscope.workload.dataset_rows import row_reader

    path = HERE / "instructcoder.jsonl"
    (p,) = load_prompt_file("a", path)
    row = json.loads(path.read_text(encoding="utf-8"))
    assert p.messages == [{"role": "user", "content": f"{row['instruction']}\n\n{row['input']}"}]  # Alpaca's order
    assert p.meta["instruction_input_fields"] == ("instruction", "input")
    code, out, err = cli(["bench", "--workload", f"a={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "1 row carries an `instruction` with its `input` (instruction, input) that are sent in Alpaca's order" in out
    note = out[out.index("an `instruction` with its `input`") :]
    assert "vLLM's InstructCoderDataset" in note and "asking 200 tokens" in note
    jq = _jq(note)
    assert jq.startswith(f"jq -c '{EACH_ROW}")
    for form in ("jsonl", "array"):
        src = path if form == "jsonl" else _as_array(path, tmp_path)
        (q,) = load_prompt_file("a", _run(jq, src, tmp_path / f"{form}.jsonl"))
        vllm = row_reader("instructcoder")(row, 0)
        assert q.messages == [{"role": "user", "content": vllm.turns[0]}]  # type: ignore[union-attr]


def test_a_plain_alpaca_row_without_input_gets_no_instructcoder_note(tmp_path: Path) -> None:
    """An instruction alone is sent alone by Alpaca and has no other order: no note."""
    path = tmp_path / "a.jsonl"
    path.write_text('{"instruction": "Say hi.", "input": "", "output": "hi"}\n', encoding="utf-8")
    (p,) = load_prompt_file("a", path)
    assert "instruction_input_fields" not in p.meta


def test_the_mt_bench_turns_row_names_vllms_first_turn_reader(tmp_path: Path) -> None:
    """philschmid/mt-bench rows are FastChat's question.jsonl layout (``question_id``, ``category``, ``turns``):
    specscope sends every turn as one conversation, as FastChat's answer generation does; vLLM's MTBenchDataset sends
    ``turns[0]`` alone at 256 tokens. The census row (docs/workloads.md) says so, with the jq that writes vLLM's."""
    from specscope.workload.census import CENSUS

    (layout,) = [c for c in CENSUS if c.key == "vllm.spec_bench"]
    text = layout.specscope
    assert "philschmid/mt-bench" in text and "MTBenchDataset" in text and "256" in text
    path = HERE / "mt_bench_philschmid.jsonl"
    (p,) = load_prompt_file("a", path)
    assert p.messages == [{"role": "user", "content": "Compose a travel blog post about Hawaii."}]
    assert p.follow_ups == ("Rewrite it starting every sentence with A.",)
    (q,) = load_prompt_file("a", _run(_jq(text), path, tmp_path / "o.jsonl"))
    assert (q.messages, q.follow_ups, q.meta.get("row_id")) == (p.messages, (), "81")
    doc = (Path(__file__).resolve().parents[2] / "docs" / "workloads.md").read_text(encoding="utf-8")
    assert "philschmid/mt-bench" in doc


def _strings(value: object, seen: set[int]) -> list[str]:
    """Every string held by ``value`` (tuples, lists, dicts, dataclasses), each container once."""
    if isinstance(value, str):
        return [value]
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k, seen) + _strings(v, seen)]
    if isinstance(value, tuple | list):
        return [s for v in value for s in _strings(v, seen)]
    if hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
        return [s for k in value.__dataclass_fields__ for s in _strings(getattr(value, k), seen)]
    return []


def test_every_row_jq_the_census_writes_reads_both_file_forms() -> None:
    """Every ``jq -c`` program of the census (its refusals, notes and layout rows; census_hub's; the choices note)
    starts with :data:`EACH_ROW`, but for a program over a whole JSON array (``[.[] | ...]``)."""
    from specscope.workload import census, census_hub, userfile_instructions

    texts = [
        s
        for module in (census, census_hub, userfile_instructions)
        for name in dir(module)
        if not name.startswith("__")
        for s in _strings(getattr(module, name), set())
    ]
    jqs = [t[at : at + 80] for t in texts for at in _starts(t)]
    assert len(jqs) > 40
    bad = [j for j in jqs if not j.startswith((f"jq -c '{EACH_ROW}", "jq -c '["))]
    assert not bad


def _starts(text: str) -> list[int]:
    out, at = [], text.find("jq -c ")
    while at >= 0:
        out.append(at)
        at = text.find("jq -c ", at + 1)
    return out
