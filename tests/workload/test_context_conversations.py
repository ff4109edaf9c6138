"""``--context-tokens`` on prompts that are not one plain user turn (ContextBuilder.extend against the truth server,
whose ``/tokenize`` counts words): a conversation keeps its later turns and recorded steps, a user message of content
parts gets the filler as one more text part, and a prompt with no user message is refused by name. Before: the later
turns were dropped silently (the prompt was rebuilt from its first turn), parts raised TypeError, no user message
raised ValueError."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from hangguard import HANG_S
from specscope.errors import ConfigError
from specscope.truth import ResponsePlan, TruthScript, TruthServer
from specscope.workload.context import ContextBuilder
from specscope.workload.prompt import Prompt


def _extend(prompt: Prompt, target: int) -> Prompt:
    async def go(base: str) -> Prompt:
        async with httpx.AsyncClient(timeout=HANG_S) as http:
            return await ContextBuilder(http, base, "m", "vllm").extend(prompt, target, 0)

    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=2), serve_tokenizer=True)) as ts:
        return asyncio.run(go(ts.base_url))


def test_a_conversation_keeps_its_later_turns_and_recorded_steps():
    later = ({"role": "user", "content": "step two"},)
    prompt = Prompt(
        "mine-000",
        "mine",
        [{"role": "user", "content": "hello"}],
        follow_ups=("step two",),
        follow_up_messages=(later,),
        meta={"row": 1},
    )
    out = _extend(prompt, 300)
    assert (out.follow_ups, out.follow_up_messages) == (("step two",), (later,))
    assert out.meta["row"] == 1 and out.meta["context_tokens"] == 300
    assert out.messages[0]["content"].startswith("hello") and len(out.messages[0]["content"]) > len("hello")


def test_a_user_message_of_parts_gets_the_filler_as_a_text_part():
    parts = [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:x"}}]
    prompt = Prompt("mine-001", "mine", [{"role": "user", "content": parts}])
    out = _extend(prompt, 300)
    content = out.messages[0]["content"]
    assert content[:2] == parts and len(content) == 3 and content[2]["type"] == "text" and content[2]["text"]


def test_a_prompt_without_a_user_message_is_refused_by_name():
    prompt = Prompt("mine-002", "mine", [{"role": "system", "content": "s"}, {"role": "tool", "content": "r"}])
    with pytest.raises(ConfigError) as ei:
        _extend(prompt, 300)
    assert ei.value.found == "roles system, tool" and ei.value.fix == "drop --context-tokens for this workload"
