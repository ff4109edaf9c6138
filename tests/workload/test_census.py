"""The workload census (issue 36): every row has a test file, names its source at a commit, and docs/workloads.md is
the text generated from it; the readers refuse what the census says they refuse, by line number."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from census_files import LAYOUT_FILES
from commandtests import command_test_problem
from paths import ROOT as REPO_ROOT
from specscope.errors import ConfigError
from specscope.workload.census import AUTOBENCH_FIX, BAILIAN_REFUSAL, CENSUS, OTEL_REFUSAL, SYNTHETIC_REFUSAL
from specscope.workload.census_doc import DATASET_TEST, render
from specscope.workload.dataset_defs import DATASETS
from specscope.workload.trace import TRACE_LAYOUTS, load_trace
from specscope.workload.userfile import load_prompt_file
from specscope.workload.userfile_layouts import USERFILE_LAYOUTS


def test_every_census_row_has_a_test_file_and_no_test_file_lacks_a_row() -> None:
    assert sorted(LAYOUT_FILES) == sorted(lay.key for lay in CENSUS)
    assert len({lay.key for lay in CENSUS}) == len(CENSUS) == 38


def test_every_row_names_repository_file_and_commit() -> None:
    for lay in CENSUS:
        assert re.search(r"^[\w.-]+/[\w.-]+ \S+\.py.* @[0-9a-f]{8}", lay.source), lay.key
        assert lay.specscope.startswith(("read:", "refused:")), lay.key
        if lay.refused:
            assert "->" in lay.specscope, lay.key  # what to convert it to


def test_committed_docs_equal_the_generated_text() -> None:
    template = (REPO_ROOT / "scripts" / "workloads.md.in").read_text("utf-8")
    committed = (REPO_ROOT / "docs" / "workloads.md").read_text("utf-8")
    assert committed == render(template), "run: python scripts/gen_workloads_doc.py"
    assert committed.count("test_census_layout_sent_row_by_row[") == len(CENSUS)
    assert not (REPO_ROOT / "docs" / "WORKLOADS.md").exists()


#: every generated row of docs/workloads.md besides the census's: (table, row, the node ids its test column names)
DOC_ROWS = (
    [("user prompt files", u.record, u.tests) for u in USERFILE_LAYOUTS]
    + [("datasets", name, (f"{DATASET_TEST}[{name}]",)) for name in DATASETS]
    + [("traces", t.format, (t.test,)) for t in TRACE_LAYOUTS]
)


@pytest.mark.parametrize("row", DOC_ROWS, ids=[f"{t}:{r[:30]}" for t, r, _n in DOC_ROWS])
def test_every_generated_row_names_a_test_that_runs_a_command(row) -> None:
    """Documented means reachable (issue 36): a row of the user-file, dataset or trace table names tests that exist and
    run a specscope command; a row without one fails here."""
    table, name, nodes = row
    assert nodes, f"{table} {name!r}: no test"
    for node in nodes:
        assert not command_test_problem(node), command_test_problem(node)


def test_every_layout_the_command_tests_send_is_a_row() -> None:
    """No layout is tested through the command without a row saying so: the cases of the user-file command tests are
    exactly the cases the rows name."""
    from cli.test_userfile_layouts_cli import LAYOUTS, REFUSED

    named = {re.search(r"\[(.+)\]$", t).group(1) for u in USERFILE_LAYOUTS for t in u.tests}  # type: ignore[union-attr]
    assert named == set(LAYOUTS) | set(REFUSED)


def test_the_row_checker_refuses_a_unit_test_and_a_missing_case() -> None:
    """The check above can fail: a test that calls the reader, not a command; a case its test does not declare."""
    assert "runs no specscope command" in command_test_problem(
        "tests/workload/test_census.py::test_csv_header_is_never_a_prompt_and_a_bad_row_is_refused_by_line"
    )
    missing = "tests/cli/test_userfile_layouts_cli.py::test_dry_run_sends_each_user_file_layout[no_such_layout]"
    assert "no case" in command_test_problem(missing)
    assert command_test_problem("") == "no test named"


def _refusal(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("mine", path)
    return err.value.message.replace(str(path), "FILE")


def test_csv_header_is_never_a_prompt_and_a_bad_row_is_refused_by_line(tmp_path: Path) -> None:
    assert _refusal(tmp_path, "only.csv", "prompt,output_tokens_count\n") == "workload file FILE holds no prompt"
    msg = _refusal(tmp_path, "bad.csv", 'prompt,output_tokens_count\nfine,3\n"a, b",4,extra\n')
    assert msg == "FILE:3: 3 cells, the header names 2"
    msg = _refusal(tmp_path, "len.csv", "prompt,output_tokens_count\nfine,3\nnext,lots\n")
    assert msg == "FILE:3: output_tokens_count 'lots'"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('{"text": "x", "output_length": 0}', "FILE:2: output_length 0"),
        ('{"prompt": "x", "max_tokens": "12 tokens"}', "FILE:2: max_tokens '12 tokens'"),
        ('{"text": "x", "image": "data:image/png;base64,AA=="}',
         "FILE:2: an image field (AIPerf SingleTurn / GuideLLM media)"),
        ('{"payload": {"prompt": "x"}}', "FILE:2: a `payload` row (AIPerf MooncakeTrace: a pre-built request body)"),
        ('{"session_id": "s", "message_mode": "delta", "messages": [{"role": "user", "content": "more"}]}',
         "FILE:2: a `message_mode: delta` row (AIPerf MooncakeTrace: only this turn's new messages; AIPerf adds the "
         "session's history)"),
        ('{"messages": [{"role": "user", "content": "x"}], "tools": "get_weather"}',
         "FILE:2: tools 'get_weather' is not a non-empty list of tool definitions"),
        ('{"timestamp": 0, "input_length": 9, "output_length": 2}',
         "FILE:2: a trace row (input_length: token counts, no text; AIPerf MooncakeTrace / SGLang mooncake)"),
        # specscope's own trace (workload/trace.py): was "no messages/.../text field", and the fix "fix FILE:2"
        ('{"arrival_s": 0, "input_tokens": 10, "output_tokens": 4}',
         "FILE:2: a trace row (arrival_s, input_tokens: token counts, no text; a specscope trace)"),
    ],
)  # fmt: skip
def test_rows_refused_by_line_with_the_field(tmp_path: Path, row: str, message: str) -> None:
    assert _refusal(tmp_path, "rows.jsonl", '{"prompt": "first"}\n' + row + "\n") == message


def test_trace_csv_refused_with_trace_as_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "azure.csv"
    path.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("mine", path)
    assert (
        err.value.message
        == f"{path}:1: a request trace header (an Azure LLM inference trace: `ContextTokens`, token counts, no text)"
    )
    assert err.value.fix == "pass the file with --trace FILE"


@pytest.mark.parametrize(
    ("row", "fields"),
    [
        ('{"text": "x", "timestamp": 0}', ("timestamp",)),
        ('{"text": "x", "delay": 250}', ("delay",)),
        ('{"prompt": "x", "delay": 250, "relative_timestamp": 1}', ("delay", "relative_timestamp")),
        ('{"session_id": "m", "turns": [{"text": "a"}, {"text": "b", "delay": 500}]}', ("delay",)),
        ('{"prompt": "x", "relative_timestamp": 0.5}', ("relative_timestamp",)),
        ('{"arrival_s": 1.5, "text": "x", "output_tokens": 4}', ("arrival_s",)),  # a specscope trace row with text
        ('{"text": "x", "timestamp": null}', None),
        ('{"text": "x"}', None),
    ],
)
def test_arrival_times_of_a_row_are_kept_by_name_for_the_warning(tmp_path: Path, row: str, fields: object) -> None:
    path = tmp_path / "timed.jsonl"
    path.write_text(row + "\n", "utf-8")
    (prompt,) = load_prompt_file("mine", path)
    assert prompt.meta.get("timing_fields") == fields
    assert "unsent_fields" not in prompt.meta


@pytest.mark.parametrize(
    "row",
    ['{"text": "x", "extra": {"top_k": 5}}', '{"session_id": "m", "turns": [{"text": "a", "extra": {"seed": 1}}]}'],
)
def test_aiperf_extra_request_fields_are_kept_by_name_for_the_warning(tmp_path: Path, row: str) -> None:
    path = tmp_path / "extra.jsonl"
    path.write_text(row + "\n", "utf-8")
    (prompt,) = load_prompt_file("mine", path)
    assert prompt.meta["unsent_fields"] == ("extra",)


def test_bailian_trace_refused_as_workload_and_as_trace_never_read_as_mooncake(tmp_path: Path) -> None:
    """AIPerf's BailianTrace has Mooncake's columns with timestamps in seconds: --trace would replay it 1000x fast."""
    path = tmp_path / "bailian.jsonl"
    row = {"chat_id": 1, "parent_chat_id": -1, "timestamp": 2.5, "input_length": 9, "output_length": 3, "turn": 1}
    path.write_text(json.dumps(row) + "\n", "utf-8")
    with pytest.raises(ConfigError) as as_workload:
        load_prompt_file("mine", path)
    with pytest.raises(ConfigError) as as_trace:
        load_trace(path)
    assert as_workload.value.message == f"{path}:1: {BAILIAN_REFUSAL[0]}"
    assert as_trace.value.message == f"{path} is {BAILIAN_REFUSAL[0]}"
    assert as_workload.value.fix == as_trace.value.fix == BAILIAN_REFUSAL[1]


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"data": [{"session_id": "a", "payloads": []}]}, "FILE session 1: payloads is not a non-empty list"),
        ({"data": [{"session_id": "a", "payloads": [{"prompt": "hi", "max_tokens": 3}]}]},
         "FILE session 1 payload 1: a payload without messages (keys: ['max_tokens', 'prompt'])"),
        ({"data": [{"session_id": "a", "payloads": [{"messages": [{"role": "user", "content": "x"}],
                                                      "max_tokens": 0}]}]},
         "FILE session 1 payload 1: max_tokens 0"),
    ],
)  # fmt: skip
def test_aiperf_inputs_json_payloads_refused_by_session_and_payload(tmp_path: Path, doc: object, message: str) -> None:
    assert _refusal(tmp_path, "inputs.json", json.dumps(doc, indent=1)) == message


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("synthetic.yaml", "prompt_tokens: 256\noutput_tokens: 128\n", "FILE"),
        ("synthetic.yml", "prompt_tokens: 256\n", "FILE"),
        ("data.config", '{"prompt_tokens": 256, "output_tokens": 128}\n', "FILE"),
        ("synthetic.json", '{"prompt_tokens": 256, "output_tokens": 128, "turns": 1}', "FILE"),
        ("synthetic.json", '{\n  "prompt_tokens": 256,\n  "output_tokens": 128\n}\n', "FILE"),
    ],
)
def test_guidellm_synthetic_config_refused_by_name_never_sent_as_prompts(
    tmp_path: Path, name: str, text: str, where: str
) -> None:
    """GuideLLM reads a ``.json`` / ``.yaml`` / ``.yml`` / ``.config`` file of ``SyntheticTextDatasetConfig``
    (``prompt_tokens``, ``output_tokens``) as a generator of random text (``config.py`` @02ad329a ``load_config``):
    its YAML lines were sent as two prompts ("prompt_tokens: 256"), its JSON refused as a row without a prompt field
    and "fix FILE:1"."""
    path = tmp_path / name
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("mine", path)
    assert err.value.message.replace(str(path), "FILE") == f"{where}: {SYNTHETIC_REFUSAL[0]}"
    assert err.value.fix == SYNTHETIC_REFUSAL[1]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('{"prompt": ["Turn one.", "Turn two."], "output_len": 5}',
         "FILE:2: a `prompt` list of user turns (multi-turn) (SGLang autobench, autobench.py @3f56497e)"),
        ('{"prompt": [{"role": "user", "content": "In prompt."}]}',
         "FILE:2: a `prompt` list of messages (SGLang autobench, autobench.py @3f56497e)"),
        ('{"prompt": [101, 102, 103], "output_len": 5}',
         "FILE:2: a `prompt` list of token ids (SGLang autobench, autobench.py @3f56497e)"),
        ('{"prompt_origin": [{"role": "user", "content": "Origin."}], "max_tokens": 4}',
         "FILE:2: a `prompt_origin` without a prompt (SGLang autobench: its messages, autobench.py @3f56497e)"),
        ('{"system": "Sys.", "content": ["U1", "A1", "U2"], "output_len": 6}',
         "FILE:2: a `system` with a `content` list (SGLang autobench's legacy turns, autobench.py @3f56497e)"),
    ],
)  # fmt: skip
def test_sglang_autobench_prompt_forms_not_sent_are_refused_by_line_and_name(
    tmp_path: Path, row: str, message: str
) -> None:
    """SGLang autobench (autobench.py @3f56497e ``_normalize_prompt``) reads these prompt forms; they were refused as
    "prompt [...] is not a non-empty string" or a row without a prompt field, with "fix FILE:2" as the fix."""
    path = tmp_path / "autobench.jsonl"
    path.write_text('{"prompt": "first", "output_len": 3}\n' + row + "\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("mine", path)
    assert err.value.message.replace(str(path), "FILE") == message
    assert err.value.fix == AUTOBENCH_FIX


def test_an_otel_session_row_is_refused_by_name_too(tmp_path: Path) -> None:
    """GuideLLM's session-per-line OTel file (``spans``: a list of GenAI spans) is refused as the span-per-line one."""
    span = {"span_id": "s", "attributes": {"gen_ai.input.messages": "[]", "gen_ai.usage.output_tokens": 2}}
    msg = _refusal(tmp_path, "sessions.jsonl", json.dumps({"trace_id": "t", "spans": [span]}) + "\n")
    assert msg == f"FILE:1: {OTEL_REFUSAL[0]}"


def test_aiperf_image_uuids_without_images_are_media_refused_by_name(tmp_path: Path) -> None:
    """AIPerf SingleTurn (models.py @0109a64e ``validate_image_uuids_alignment``): ``image_uuids`` without ``images``
    are image slots the server fills from its cache; the row was sent as its text alone, the images dropped silently."""
    msg = _refusal(tmp_path, "uuids.jsonl", '{"text": "Describe it.", "image_uuids": ["u1"], "output_length": 5}\n')
    assert msg == "FILE:1: an image_uuids field (AIPerf SingleTurn / GuideLLM media)"


def test_multi_turn_output_lengths_are_kept_per_turn(tmp_path: Path) -> None:
    """AIPerf's multi-turn row: each turn's ``output_length`` is its ``Turn.max_tokens`` (issue 36: turns that differ
    were refused, "specscope sends one max_tokens"); a hoisted system turn has none."""
    path = tmp_path / "rows.jsonl"
    row = {"session_id": "s", "turns": [{"role": "system", "text": "Be brief."}, {"text": "a", "output_length": 3},
                                        {"text": "b"}, {"text": "c", "output_length": 5}]}  # fmt: skip
    (p,) = load_prompt_file("mine", path_with(path, row))
    assert p.meta["turn_max_tokens"] == (3, None, 5)
    assert (p.meta["max_tokens"], p.meta["output_length_field"]) == (3, "output_length")
    assert p.follow_ups == ("b", "c")


def path_with(path: Path, row: dict) -> Path:
    path.write_text(json.dumps(row) + "\n", "utf-8")
    return path
