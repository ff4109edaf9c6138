"""GuideLLM's column names as its own mapper matches them (issue 36, census row ``guidellm.jsonl`` / ``guidellm.csv``).

vllm-project/guidellm ``src/guidellm/data/preprocessors/mappers.py`` @0016f762 ``GenerativeColumnMapper`` finds a
column by ``column_name_pattern`` ``^(?P<match_name>(NAME)(es|s)?)([-_](?P<turn>\\d+))?$`` with ``re.I``: a header
``Prompt``, a column ``prompts`` and ``output_tokens_count_0`` are its ``prompt`` and ``output_tokens_count`` columns.
specscope matched the exact lower-case names only, so such a file was refused at its first row (``Prompt``), or read
with each row's output length silently replaced by ``--max-tokens`` and its system prefix dropped (fresh-user check,
2026-12-05). Turn-suffixed text columns (``prompt_0``, ``prompt_1``) are one conversation's turns.

A text file (``.txt`` / ``.text``: GuideLLM ``TextFileDatasetDeserializer`` @03820eba, vLLM's ``sonnet.txt``) is one
prompt per line whatever the line starts with; a line opening with ``[`` or ``{`` was parsed as JSON and refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file


def _sent(path: Path) -> list[tuple[list[dict[str, str]], tuple[str, ...], int | None]]:
    return [(p.messages, p.follow_ups, p.meta.get("max_tokens")) for p in load_prompt_file("g", path)]


def _user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_csv_header_names_match_in_any_case(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("Prompt,Output_Tokens_Count,SYSTEM_PROMPT\nhello there,12,Be brief.\nsecond,7,\n", "utf-8")
    assert _sent(path) == [
        ([{"role": "system", "content": "Be brief."}, *_user("hello there")], (), 12),
        (_user("second"), (), 7),
    ]


def test_jsonl_plural_and_cased_columns_keep_output_length_and_prefix(tmp_path: Path) -> None:
    rows = [
        {"prompt": "x", "Output_Tokens_Count": 5},
        {"prompts": "y", "output_tokens_counts": 6, "prefixes": "Sys."},
        {"Question": "z", "completion_tokens_count": 8},
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    assert _sent(path) == [
        (_user("x"), (), 5),
        ([{"role": "system", "content": "Sys."}, *_user("y")], (), 6),
        (_user("z"), (), 8),
    ]


def test_turn_suffixed_columns_are_one_conversation(tmp_path: Path) -> None:
    path = tmp_path / "turns.csv"
    path.write_text(
        "prompt_0,prompt_1,output_tokens_count_0,output_tokens_count_1\nfirst turn,second turn,5,5\nonly one,,4,\n",
        "utf-8",
    )
    assert _sent(path) == [(_user("first turn"), ("second turn",), 5), (_user("only one"), (), 4)]


def test_turns_asking_for_different_output_counts_keep_each_turn_s(tmp_path: Path) -> None:
    """Issue 36: a turn's own output count is sent with that turn (it was refused: "one max_tokens")."""
    path = tmp_path / "turns.csv"
    path.write_text("prompt-0,prompt-1,output_tokens_count-0,output_tokens_count-1\na,b,5,5\nc,d,5,9\n", "utf-8")
    same, differ = load_prompt_file("g", path)
    assert (same.meta["max_tokens"], "turn_max_tokens" in same.meta) == (5, False)
    assert (differ.meta["max_tokens"], differ.meta["turn_max_tokens"]) == (5, (5, 9))


def test_exact_names_of_other_layouts_are_not_remapped(tmp_path: Path) -> None:
    """AIPerf's ``texts`` (a list) and FastChat's ``turns`` are those layouts' own fields, not GuideLLM plurals."""
    rows = [{"texts": ["a", "b"], "output_length": 3}, {"turns": ["q1", "q2"]}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    assert _sent(path) == [(_user("a\nb"), (), 3), (_user("q1"), ("q2",), None)]


@pytest.mark.parametrize("name", ["sonnet.txt", "prompts.TEXT"])
def test_text_file_lines_are_prompts_whatever_they_start_with(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b'\xef\xbb\xbfShall I compare thee\r\n[Chorus] to a summer day\r\n\r\n{braces} fine\r\n["a"]\n')
    assert [p.messages for p in load_prompt_file("g", path)] == [
        _user("Shall I compare thee"),
        _user("[Chorus] to a summer day"),
        _user("{braces} fine"),
        _user('["a"]'),
    ]


def test_text_file_lines_end_where_the_readers_end_them(tmp_path: Path) -> None:
    """GuideLLM's TextFileDatasetDeserializer (file.py @03820eba) and vLLM's SonnetDataset read a text file with
    ``open().readlines()``: universal newlines, so a lone CR (classic Mac line ends) ends a line as LF and CRLF do.
    specscope split at LF only and sent ``one\rtwo`` as one prompt (fresh-user check, 2026-12-06). Unicode line
    separators (U+2028, U+0085) are not line ends for ``readlines`` and stay inside the prompt."""
    path = tmp_path / "mac.txt"
    path.write_bytes("one\rtwo\r\rthree\r\nfour\u2028still four\n".encode())
    got = [(p.meta["line"], p.messages) for p in load_prompt_file("g", path)]
    assert got == [(1, _user("one")), (2, _user("two")), (4, _user("three")), (5, _user("four\u2028still four"))]


def _two(field: str, zero: object) -> str:
    return json.dumps({"prompt": "counted", field: 4}) + "\n" + json.dumps({"prompt": "zero", field: zero}) + "\n"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("zero.jsonl", _two("output_tokens_count", 0)),
        ("zero.csv", "prompt,output_tokens_count\ncounted,4\nzero,0\n"),
        ("zero_float.jsonl", _two("Output_Tokens_Count", 0.0)),
        ("completion.jsonl", _two("completion_tokens_count", 0)),
    ],
)
def test_a_zero_output_count_is_no_count_as_guidellm_reads_it(tmp_path: Path, name: str, text: str) -> None:
    """GuideLLM's request formatters (``formatters.py`` @03820eba) sum the row's output counts that are truthy: a 0 is
    no count, and the request gets the default ``max_tokens``. specscope refused the row by line."""
    path = tmp_path / name
    path.write_text(text, "utf-8")
    counted, zero = load_prompt_file("g", path)
    assert counted.meta["max_tokens"] == 4
    assert "max_tokens" not in zero.meta and zero.messages == _user("zero")
    assert zero.meta["zero_output_fields"] == (("completion_tokens_count",) if "completion" in name else
                                               ("output_tokens_count",))  # fmt: skip


def test_zero_output_counts_of_turns_are_no_count(tmp_path: Path) -> None:
    path = tmp_path / "turns.csv"
    path.write_text("prompt_0,prompt_1,output_tokens_count_0,output_tokens_count_1\nfirst,second,0,0\n", "utf-8")
    (conv,) = load_prompt_file("g", path)
    assert (conv.messages, conv.follow_ups) == (_user("first"), ("second",))
    assert "max_tokens" not in conv.meta and conv.meta["zero_output_fields"] == ("output_tokens_count",)


def test_other_layouts_zero_output_length_stays_refused(tmp_path: Path) -> None:
    path = tmp_path / "aiperf.jsonl"
    path.write_text('{"text": "x", "output_length": 0}\n', "utf-8")
    with pytest.raises(ConfigError, match="output_length 0"):
        load_prompt_file("g", path)


@pytest.mark.parametrize(
    ("row", "sent", "max_tokens"),
    [
        ({"context": "c", "question": "q"}, _user("c"), None),
        ({"question": "q", "prompt": "p"}, _user("q"), None),
        ({"Text": "t", "prompt": "p"}, _user("t"), None),
        ({"question": "q", "prompt_0": "a", "prompt_1": "b"}, _user("q"), None),
        ({"prompt": "p", "completion_tokens_count": 3, "output_tokens_count": 9}, _user("p"), 3),
        ({"prompt": "p", "prefix": "First.", "system_prompt": "Second."},
         [{"role": "system", "content": "First."}, *_user("p")], None),
    ],
)  # fmt: skip
def test_the_first_matching_column_in_the_files_order_is_read(
    tmp_path: Path, row: dict[str, object], sent: list[dict[str, str]], max_tokens: int | None
) -> None:
    """GuideLLM's ``GenerativeColumnMapper.datasets_mappings`` (vllm-project/guidellm
    ``src/guidellm/data/preprocessors/mappers.py`` @ee7a7745) searches the dataset's column names, joined in their own
    order, for the first one that any name of a column type matches: ``{"context", "question"}`` sends the context.
    specscope took its own priority (``question`` before ``context``, ``prompt`` before all)."""
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row) + "\n", "utf-8")
    assert _sent(path) == [(sent, (), max_tokens)]


def test_csv_header_order_picks_the_text_column(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("Content,Prompt\nfrom content,from prompt\n", "utf-8")
    assert _sent(path) == [(_user("from content"), (), None)]


def test_alpaca_instruction_first_keeps_its_input(tmp_path: Path) -> None:
    """Alpaca's ``instruction`` first: joined with its ``input`` (Alpaca's own prompt form, a layout of its own)."""
    path = tmp_path / "alpaca.jsonl"
    path.write_text(json.dumps({"instruction": "Sum.", "input": "1 2", "output": "3"}) + "\n", "utf-8")
    assert _sent(path) == [(_user("Sum.\n\n1 2"), (), None)]


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_a_header_that_names_a_column_twice_is_refused_at_line_1(tmp_path: Path, suffix: str) -> None:
    """``prompt,prompt,output_tokens_count`` was read as a dict per row, the second cell kept: "Second col" was sent
    and "First col" dropped without a word (pandas, which GuideLLM's CSV deserializer reads with, renames the second
    ``prompt.1`` and GuideLLM sends the first). Refused at line 1, naming the column and its places."""
    sep = "\t" if suffix == ".tsv" else ","
    path = tmp_path / f"dup{suffix}"
    path.write_text(sep.join(["prompt", "prompt", "output_tokens_count"]) + "\n"
                    + sep.join(["First col", "Second col", "4"]) + "\n", "utf-8")  # fmt: skip
    with pytest.raises(ConfigError) as info:
        load_prompt_file("g", path)
    assert info.value.one_line().startswith(
        f"{path}:1: the header names `prompt` 2 times (columns 1, 2); expected: one name per column; "
        "fix: rename or remove all but one `prompt` column"
    )


def test_a_header_with_several_unnamed_columns_is_read(tmp_path: Path) -> None:
    """Unnamed columns (a pandas index written without a name, twice) are no repeated name: the row is read."""
    path = tmp_path / "index.csv"
    path.write_text(",,prompt,output_tokens_count\n0,0,Idx one,4\n", "utf-8")
    assert _sent(path) == [(_user("Idx one"), (), 4)]


def test_a_csv_row_over_several_lines_is_named_by_the_line_it_starts_on(tmp_path: Path) -> None:
    """A quoted cell over two lines (a prompt with a line break, as Excel and pandas write it) ended its row on a later
    line, and the row was named by that last line: its row id was "line 3" and an error in it said ``:3:`` for a
    row that starts on line 2. Rows, their ids and their errors name the line the row starts on."""
    path = tmp_path / "multi.csv"
    path.write_bytes(b'\xef\xbb\xbfprompt,output_tokens_count\r\n"Line one\r\nline two",12\r\n\r\nPlain,\r\n')
    prompts = load_prompt_file("g", path)
    assert [(p.meta["row_id"], p.messages, p.meta.get("max_tokens")) for p in prompts] == [
        ("line 2", _user("Line one\r\nline two"), 12), ("line 5", _user("Plain"), None)
    ]  # fmt: skip
    path.write_text('prompt,output_tokens_count\nok,1\n"two\nlines",x\n', "utf-8")
    with pytest.raises(ConfigError) as info:
        load_prompt_file("g", path)
    assert info.value.one_line().startswith(f"{path}:3: output_tokens_count 'x'")


@pytest.mark.parametrize(
    ("name", "text", "sep_fix"),
    [
        ("prompts", "prompt,output_tokens_count\nHello there,5\n", "name the file .csv to read its columns"),
        ("prompts.dat", "Prompt,Output_Tokens_Count\nHello there,5\n", "name the file .csv to read"),
        ("prompts.txt", "prompt\toutput_tokens_count\nTabbed,5\n", "name the file .tsv (tab-separated)"),
        ("prompts.txt", "\nprompt\nHello txt\n", "name the file .csv"),
        ("prompts", "id;prompt\n1;Semi\n", "name the file .csv, saved with commas"),
    ],
)
def test_a_table_header_in_a_file_read_line_by_line_is_refused(tmp_path: Path, name, text, sep_fix) -> None:
    """A CSV saved without its suffix (or as .txt) was sent line by line: the header "prompt,output_tokens_count" as
    the first prompt and "Hello there,5" with its count glued on and the default output length (truth-server run,
    77_csv_no_suffix). A header is never a prompt: refused at its line, with the suffix that reads its columns."""
    path = tmp_path / name
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigError) as info:
        load_prompt_file("g", path)
    line = 2 if text.startswith("\n") else 1
    message = info.value.one_line()
    assert message.startswith(f"{path}:{line}: a table header (`"), message
    assert "in a file read one prompt per line" in message and sep_fix in message


@pytest.mark.parametrize(
    "first",
    ["Write a poem, then explain it.", "Text, context, and content", "prompt engineering tips?", "Question: why?",
     '{"prompt": "a json row"}'],
)  # fmt: skip
def test_a_first_line_of_prose_is_a_prompt(tmp_path: Path, first: str) -> None:
    """Prose that mentions a column's word is no header: cells with spaces or punctuation are not column names."""
    path = tmp_path / "prompts.txt"
    path.write_text(first + "\nsecond line\n", "utf-8")
    assert [p.messages[-1]["content"] for p in load_prompt_file("g", path)] == [first, "second line"]


def test_a_csv_header_separated_by_semicolons_is_named(tmp_path: Path) -> None:
    """Excel in a locale with a decimal comma saves CSV with semicolons: the header was one column named
    "prompt;output_tokens_count", refused as a row with "no messages/conversations/... field"; it is named, with the
    comma-separated form as the fix."""
    path = tmp_path / "excel.csv"
    path.write_text("prompt;output_tokens_count\nSemi one;4\n", "utf-8")
    with pytest.raises(ConfigError) as info:
        load_prompt_file("g", path)
    assert info.value.one_line().startswith(
        f"{path}:1: a header separated by semicolons (`prompt;output_tokens_count`): one column"
    )
    assert "save the file with commas" in info.value.one_line()


@pytest.mark.parametrize(
    ("column", "named"),
    [
        ("picture", "a picture"),
        ("Img", "an Img"),
        ("photos", "a photos"),
        ("image_1", "an image_1"),
        ("clip", "a clip"),
        ("mp4", "an mp4"),
        ("voice", "a voice"),
        ("wav", "a wav"),
        ("Speech", "a Speech"),
    ],
)
def test_a_guidellm_media_column_is_refused_by_name(tmp_path: Path, column: str, named: str) -> None:
    """GuideLLM sends a row's media from any of its media column names (mappers.py @0016f762 ``image_column``
    ``picture`` / ``photo`` / ``img``, ``video_column`` ``clip`` / ``mp4`` ..., ``audio_column`` ``voice`` / ``wav``
    ..., in its column pattern). Such a row was sent as its text alone, the media dropped without a word (only
    ``image`` / ``audio`` / ``video`` were refused); it is refused by line, naming the column."""
    path = tmp_path / "media.jsonl"
    path.write_text(json.dumps({"prompt": "Describe it.", column: "cat.png", "output_tokens_count": 5}) + "\n", "utf-8")
    with pytest.raises(ConfigError) as info:
        load_prompt_file("g", path)
    assert info.value.one_line().startswith(f"{path}:1: {named} field (AIPerf SingleTurn / GuideLLM media)")


def test_an_empty_media_column_is_no_media(tmp_path: Path) -> None:
    """An empty cell of a media column (a CSV row without a picture) is no media, as GuideLLM skips it."""
    path = tmp_path / "media.csv"
    path.write_text("prompt,picture,output_tokens_count\nText only,,4\n", "utf-8")
    assert _sent(path) == [(_user("Text only"), (), 4)]
