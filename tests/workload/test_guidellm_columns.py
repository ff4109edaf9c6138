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

from pathlib import Path

import pytest

from specscope.workload.userfile import load_prompt_file


def _user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


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
