"""A file row that ends with a recorded answer and names no output length asks for the answer's token count by the
server's tokenizer (as vLLM's ShareGPTDataset), counted on a real truth server; without a tokenizer endpoint it keeps
``--max-tokens`` and the manifest note says so. (The whole path through ``bench`` is in
tests/integration/test_census_layouts.py, the ShareGPT rows.)"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from hangguard import HANG_S
from specscope.bench.answer_lengths import ANSWER_FIELD, answer_lengths
from specscope.truth import TruthScript, TruthServer
from specscope.workload.context import ContextBuilder
from specscope.workload.prompt import Prompt
from specscope.workload.userfile import load_prompt_file

ROWS = [
    {"conversations": [{"from": "human", "value": "Q one?"}, {"from": "gpt", "value": "four words of answer"}]},
    {"messages": [{"role": "user", "content": "Q two?"}, {"role": "assistant", "content": [{"type": "text",
                  "text": "two parts"}, {"type": "text", "text": "of text"}]}]},
    {"conversations": [{"from": "human", "value": "Q three?"}, {"from": "gpt", "value": "ignored"}], "max_tokens": 9},
    {"prompt": "no answer here"},
    {"conversations": [{"from": "human", "value": "Q five?"}, {"from": "gpt", "value": "  "}]},
]  # fmt: skip


@pytest.fixture(scope="module")
def truth():
    with TruthServer(TruthScript(serve_tokenizer=True)) as ts:
        yield ts


def _lengths(truth: TruthServer, tmp_path: Path, tokenizer: bool) -> tuple[list[int | None], dict[str, Any]]:
    path = tmp_path / "chats.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), "utf-8")
    prompts = {"mine": load_prompt_file("mine", path), "other": load_prompt_file("other", path)}
    truth.set_script(TruthScript(serve_tokenizer=tokenizer))

    async def go() -> tuple[dict[str, list[Prompt]], dict[str, Any]]:
        async with httpx.AsyncClient(timeout=HANG_S) as http:
            return await answer_lengths(prompts, ["mine"], ContextBuilder(http, truth.base_url, "default", "vllm"))

    out, notes = asyncio.run(go())
    assert out["other"] is prompts["other"]  # a workload not named is left as it is
    return [p.meta.get("max_tokens") for p in out["mine"]], notes


def test_recorded_answer_token_count_is_the_rows_max_tokens(truth: TruthServer, tmp_path: Path) -> None:
    got, notes = _lengths(truth, tmp_path, tokenizer=True)
    # words are the truth server's tokens; text parts joined with a newline; a row's own max_tokens wins; no answer
    # (or a blank one) keeps --max-tokens
    assert got == [4, 4, 9, None, None]
    # the blank answer's row keeps --max-tokens, and the note says so (it said all 3 rows were sized by their answers)
    blank = {"rows": 1, "max_tokens_from": "--max-tokens"}
    assert notes == {"mine": {"rows": 3, "max_tokens_from": ANSWER_FIELD, "blank_answers": blank}}


def test_without_a_tokenizer_max_tokens_stays_and_the_note_says_so(truth: TruthServer, tmp_path: Path) -> None:
    got, notes = _lengths(truth, tmp_path, tokenizer=False)
    assert got == [None, None, 9, None, None]
    assert notes == {"mine": {"rows": 3, "max_tokens_from": "--max-tokens (the server has no tokenizer)"}}


@pytest.mark.parametrize("answer", ["", "   "])
def test_blank_answer_is_kept_as_recorded_but_asks_for_nothing(tmp_path: Path, answer: str) -> None:
    path = tmp_path / "blank.json"
    path.write_text(
        json.dumps([{"conversations": [{"from": "human", "value": "Q?"}, {"from": "gpt", "value": answer}]}])
    )
    (prompt,) = load_prompt_file("mine", path)
    assert prompt.meta["recorded_answer"] == answer
