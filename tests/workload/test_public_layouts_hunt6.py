"""Issue 36 item 3, the layouts round 60 left (wl61): public dataset rows that were refused with the generic "no
messages/... field (keys: ...)", or refused or warned about without the conversion that sends them:

* XSum, SAMSum, HellaSwag, PIQA, WinoGrande, OpenBookQA, ELI5 and Magicoder-OSS-Instruct rows: no benchmark client's
  file reader takes them; each is now refused by its name and source with a jq that writes rows specscope reads (run
  here, and the rows it writes checked);
* a CoQA row (``story``, ``questions``) was refused as "question [...] is not a non-empty string", its story unnamed;
* a HotpotQA ``context`` (titled paragraphs of sentences) was named as a text column not sent, with no jq;
* a ShareGPT4V row in a JSON Lines file was offered the jq that reads a JSON array.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clirun import cli
from jqfix import jq_command as _jq
from jqfix import run_jq as _run
from paths import DATA
from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file

HERE = DATA / "workload_public"


def _user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


_ROOF = "A man is sitting on a roof. he"
#: file -> (the name its refusal gives, the rows its jq writes: (messages, recorded answer or None, row id))
REFUSED: dict[str, tuple[str, list[tuple[list[dict[str, str]], str | None, str | None]]]] = {
    "xsum.jsonl": (
        "an XSum row (EdinburghNLP/xsum",
        [
            (
                _user(
                    "Summarize the article in one sentence.\n\nThe full cost of damage in Newton Stewart is still "
                    "being assessed. Repair work is ongoing in Hawick."
                ),
                "Clean-up operations are continuing across the Borders.",
                "35232142",
            ),
            (
                _user(
                    "Summarize the article in one sentence.\n\nA fire alarm went off at the Holiday Inn in Hope "
                    "Street at about 04:20."
                ),
                "Two tourist buses have been destroyed by fire.",
                "40143035",
            ),
        ],
    ),
    "samsum.jsonl": (
        "a SAMSum row (Samsung/samsum",
        [
            (
                _user(
                    "Summarize the dialogue.\n\nAmanda: I baked  cookies. Do you want some?\r\nJerry: Sure!\r\n"
                    "Amanda: I'll bring you tomorrow :-)"
                ),
                "Amanda baked cookies and will bring Jerry some tomorrow.",
                "13818513",
            )
        ],
    ),
    "hellaswag.jsonl": (
        "a HellaSwag row (Rowan/hellaswag",
        [
            (
                _user(
                    f"{_ROOF}\n\nA. is using wrap to wrap a pair of skis.\nB. is ripping level tiles off.\n"
                    "C. is holding a rubik's cube.\nD. starts pulling up roofing on a roof."
                ),
                None,
                "24",
            )
        ],
    ),
    "piqa.jsonl": (
        "a PIQA row (ybisk/piqa",
        [
            (
                _user(
                    "When boiling butter, when it's ready, you can\n\nA. Pour it onto a plate\nB. Pour it into a jar"
                ),
                None,
                "line 1",
            )
        ],
    ),
    "winogrande.jsonl": (
        "a WinoGrande row (allenai/winogrande",
        [
            (
                _user(
                    "Ian volunteered to eat Dennis's menudo after already having a bowl because _ despised eating "
                    "intestine.\n\nA. Ian\nB. Dennis"
                ),
                None,
                "line 1",
            )
        ],
    ),
    "openbookqa.jsonl": (
        "an OpenBookQA row (allenai/openbookqa",
        [
            (
                _user(
                    "The sun is responsible for\n\nA. puppies learning new tricks\nB. children growing up and getting "
                    "old\nC. flowers wilting in a vase\nD. plants sprouting, blooming and wilting"
                ),
                None,
                "7-980",
            )
        ],
    ),
    "eli5.jsonl": (
        "an ELI5 row (the Reddit ELI5 dataset",
        [
            (
                _user(
                    "in football whats the point of wasting the first two plays with a rush - up the middle - not "
                    "regular rush plays i get those"
                ),
                None,
                "1oy5tc",
            ),
            (_user("Why do cats purr?\n\nMine purrs all the time."), None, "2xa1b3"),
        ],
    ),
    "magicoder_oss.jsonl": (
        "a Magicoder OSS-Instruct row (ise-uiuc/Magicoder-OSS-Instruct-75K",
        [
            (
                _user("Write a Python function add(a, b) that returns the sum of two numbers."),
                "def add(a, b):\n    return a + b",
                "12",
            )
        ],
    ),
    "coqa.jsonl": (
        "a CoQA row (stanfordnlp/coqa",
        [
            (
                _user(
                    "The Vatican Apostolic Library is the library of the Holy See.\n\nWhat is the Vatican Apostolic "
                    "Library?"
                ),
                "The library of the Holy See",
                "line 1",
            )
        ],
    ),
}
REFUSED["coqa_hf.jsonl"] = REFUSED["coqa.jsonl"]


#: the wl61 hunt of vLLM's hub dataset readers (vllm/benchmarks/datasets.py @0056b87f): a JSON Lines export of each,
#: sent as vLLM builds its prompt and sizes its output
_ZETA = (
    "### Instruction:\nYou are a code completion assistant and your task is to analyze user edits and then rewrite an "
    "excerpt that the user provides, suggesting the appropriate edits within the excerpt, taking into account the "
    "cursor location.\n\n### User Edits:\n\n{}\n\n### User Excerpt:\n\n{}\n\n### Response:\n\n"
)
_BLAZEDIT = (
    "Given a code file, please apply the change requests and generate the new file.\n\nOriginal file:\n```python\n"
    '{}\n```\n\nChange request:\n{}\n\nPlease generate the new code file in the "New file" section below.'
)
HUNTED: dict[str, tuple[str, list[tuple[list[dict[str, str]], str | None, str | None]]]] = {
    # AIMODataset: `problem` the prompt, the token count of `solution` the output length (was: jq {prompt: .problem})
    "aimo_validation_aime.jsonl": (
        "a `problem` row (vLLM's AIMODataset",
        [
            (_user("Find the sum of 2 and 3."), "Two plus three is five.", "60"),
            (_user("What is 3 squared?"), "Nine.", "61"),
            (_user("What is 10 / 2?"), "It is five.", "62"),
        ],
    ),
    # NextEditPredictionDataset: the zeta prompt, sized by `output` from its marker (was: `input` alone, --max-tokens)
    "zeta.jsonl": (
        "a Next Edit Prediction row (zed-industries/zeta",
        [
            (
                _user(
                    _ZETA.format(
                        'User edited "a.py":\n+x = 1',
                        "```a.py\n<|editable_region_start|>\nx = <|user_cursor_is_here|>\n<|editable_region_end|>\n```",
                    )
                ),
                "<|editable_region_start|>\nx = 1\n<|editable_region_end|>\n```",
                "line 1",
            ),
            (
                _user(_ZETA.format('User edited "b.py"', "<|editable_region_start|>\ny<|editable_region_end|>")),
                "<|editable_region_start|>\ny = 2<|editable_region_end|>",
                "line 2",
            ),
            (
                _user(_ZETA.format('User edited "c.py"', "<|editable_region_start|>\nz<|editable_region_end|>")),
                "<|editable_region_start|>\nz = 3 + 4<|editable_region_end|>",
                "line 3",
            ),
        ],
    ),
    # BlazeditDataset's template (was: "no messages/... field")
    "blazedit_5k.jsonl": (
        "a BlazEdit row (vdaita/edit_5k_char",
        [
            (_user(_BLAZEDIT.format("def add(a, b):\n    return a + b\n", "Add type hints.")), None, "line 1"),
            (_user(_BLAZEDIT.format("x = 1\n", "Rename x to y.")), None, "line 2"),
            (_user(_BLAZEDIT.format("print(1)\n", "Print 2 instead.")), None, "line 3"),
        ],
    ),
    # MMVUDataset: question, a space, "A.text" options (was: "a video field (AIPerf SingleTurn / GuideLLM media)")
    "mmvu.jsonl": (
        "an MMVU row (yale-nlp/MMVU",
        [
            (_user("Which style is shown? A.Baroque B.Cubism C.Gothic"), None, "validation_0"),
            (_user("Which colour dominates? A.Red B.Blue"), None, "validation_1"),
            (_user("How many figures? A.One B.Two"), None, "validation_2"),
        ],
    ),
    # VisionArenaDataset: the first turn's first message (was: "an images field (AIPerf SingleTurn / GuideLLM media)")
    "visionarena_chat.jsonl": (
        "a VisionArena-Chat row (lmarena-ai/VisionArena-Chat",
        [
            (_user("Describe the image."), None, "c0"),
            (_user("What text is shown?"), None, "c1"),
            (_user("Count the dogs."), None, "c2"),
        ],
    ),
    # SGLang's mmmu reader (benchmark/datasets/mmmu.py @0fc1a4fb): "Question: ...\n\nAnswer: " (was: a media field)
    "mmmu_math.jsonl": (
        "an MMMU row (MMMU/MMMU",
        [
            (_user("Question: What is the area of the triangle in <image 1>?\n\nAnswer: "), None, "test_Math_1"),
            (_user("Question: Solve for x in <image 1>.\n\nAnswer: "), None, "test_Math_2"),
            (_user("Question: How many sides has the shape?\n\nAnswer: "), None, "test_Math_3"),
        ],
    ),
    "vision_arena_bench.jsonl": (
        "a vision-arena-bench row (lmarena-ai/vision-arena-bench-v0.1",
        [
            (_user("What is in this chart?"), None, "q0"),
            (_user("Read the sign."), None, "q1"),
            (_user("Who painted this?"), None, "q2"),
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED) + sorted(HUNTED))
def test_a_public_row_no_reader_takes_is_refused_by_name_with_a_jq_that_sends_it(name: str, tmp_path: Path) -> None:
    """Each was refused with "no messages/... field (keys: ...)" (or CoQA's "question [...] is not a non-empty
    string", a media field as AIPerf's or GuideLLM's, a `problem` jq that dropped vLLM's output length), or sent
    otherwise than its reader sends it (zeta's `input` alone); it is refused by its name and source, and its jq writes
    rows that specscope reads as the layout's rows: the prompt built as the row's task (or vLLM's reader) builds it,
    the recorded answer (a summary, a solution, zeta's output) sizing the output."""
    what, rows = {**REFUSED, **HUNTED}[name]
    path = HERE / name
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", path)
    assert what in str(err.value)
    assert "no messages/conversations" not in str(err.value)
    assert "is not a non-empty string" not in str(err.value)
    assert "(AIPerf SingleTurn / GuideLLM media)" not in str(err.value)
    prompts = load_prompt_file("a", _run(_jq(err.value.fix or ""), path, tmp_path / "out.jsonl"))
    got = [(p.messages, p.meta.get("recorded_answer"), p.meta.get("row_id")) for p in prompts]
    assert got == rows


def test_a_public_row_refusal_reaches_the_cli(tmp_path: Path, capsys, monkeypatch) -> None:
    """``bench --workload x=xsum.jsonl --dry-run`` exits 2 with the refusal's name, no traceback."""
    code, out, err = cli(
        ["bench", "--workload", f"x={HERE / 'xsum.jsonl'}", "--dry-run"], capsys, monkeypatch, tmp_path
    )
    assert code == 2
    assert "an XSum row (EdinburghNLP/xsum" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("name", ["hotpotqa.jsonl", "hotpotqa_dev.json"])
def test_a_hotpotqa_context_is_named_with_the_jq_that_prepends_it(
    name: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    """hotpotqa/hotpot_qa's ``context`` (paragraphs of sentences, as ``title`` / ``sentences`` lists on the hub or
    ``[title, sentences]`` pairs in the published JSON) was named as a text column not sent with no jq: it is the
    passage of the question, named with the jq that prepends its paragraphs, for either file."""
    path = HERE / name
    (p,) = load_prompt_file("a", path)
    assert p.meta["unsent_passage_fields"] == ("context",)
    assert "context" not in p.meta.get("unsent_text_columns", ())
    code, out, err = cli(["bench", "--workload", f"a={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "text columns besides the one sent" not in out
    note = out[out.index("passages (context)") :]
    (q,) = load_prompt_file("a", _run(_jq(note[note.index("a HotpotQA `context`") :]), path, tmp_path / "o.jsonl"))
    assert q.messages == _user(
        "Edward Davis Wood Jr. was an American filmmaker. He made cult films.\n\nScott Derrickson is an American "
        "director.\n\nWere Scott Derrickson and Ed Wood of the same nationality?"
    )
    assert "unsent_passage_fields" not in q.meta


def test_a_sharegpt4v_json_lines_file_gets_a_jq_for_json_lines(tmp_path: Path) -> None:
    """The ShareGPT4V refusal offered ``jq '[.[] | ...]' FILE > OUT.json`` for a JSON Lines file too, where ``.[]``
    iterates each row's fields: the jq for a JSON Lines file reads it line by line."""
    path = HERE / "sharegpt4v.jsonl"
    with pytest.raises(ConfigError) as err:
        load_prompt_file("v", path)
    assert "[.[]" not in (err.value.fix or "")
    (p,) = load_prompt_file("v", _run(_jq(err.value.fix or ""), path, tmp_path / "out.jsonl"))
    assert p.messages == _user("What is shown in the picture?")
    assert p.meta["layout"] == ("sglang.custom",)  # ShareGPT rows as JSON Lines: SGLang's custom reader


def test_a_speech_recognition_row_is_named_not_sent_as_its_transcript() -> None:
    """An openslr/librispeech_asr row (``audio`` a Hugging Face Audio value, ``text`` the reference transcript) was
    refused as "an audio field (AIPerf SingleTurn / GuideLLM media)" with the fix "remove the media fields", which
    leaves the transcript to be sent as a prompt: it is named as a speech-recognition row with no chat form."""
    path = HERE / "librispeech_asr.jsonl"
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", path)
    assert "a speech-recognition row (" in str(err.value)
    assert "remove the media fields" not in str(err.value)
    assert (err.value.fix or "").startswith("no specscope form: speech recognition is not a chat workload")


def test_the_published_coqa_file_is_refused_by_name_with_a_jq_over_its_data(tmp_path: Path) -> None:
    """CoQA's published JSON (``{"version", "data": [rows]}``, coqa-dev-v1.0.json) was refused with "no messages/...
    field (keys: ['data', 'version'])": it is named, and its jq writes each row of ``data`` as a CoQA row's jq does."""
    path = HERE / "coqa_dev_v1.json"
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", path)
    assert "a CoQA file (stanfordnlp/coqa" in str(err.value)
    prompts = load_prompt_file("a", _run(_jq(err.value.fix or ""), path, tmp_path / "out.jsonl"))
    want = REFUSED["coqa.jsonl"][1]
    assert [(p.messages, p.meta.get("recorded_answer")) for p in prompts] == [(m, a) for m, a, _ in want]
