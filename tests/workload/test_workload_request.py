"""Request bodies: exact JSON for the plain and the pre-filled form, per server kind."""

from __future__ import annotations

import copy
import math

import pytest

from specscope.errors import ConfigError
from specscope.workload import SERVER_KINDS, Prompt, chat_request, load_pack

PLAIN = Prompt("prose-003", "prose", [{"role": "user", "content": "Bees: tell a story."}])
PRE = Prompt(
    "edit-prefill-001",
    "edit-prefill",
    [{"role": "user", "content": "a.py: rename x."}],
    prefill='```python\n"""A."""',
    expected_output='"""A."""\n',
)


@pytest.mark.parametrize("kind", SERVER_KINDS)
def test_plain_body_is_exact_for_every_server_kind(kind):
    body = chat_request(PLAIN, model="smollm2", max_tokens=64, temperature=0.0, server_kind=kind)
    assert body == {
        "model": "smollm2",
        "messages": [{"role": "user", "content": "Bees: tell a story."}],
        "max_tokens": 64,
        "temperature": 0.0,
        "stream": True,
        "stream_options": {"include_usage": True},
        "chat_template_kwargs": {"enable_thinking": False},
    }


@pytest.mark.parametrize("kind", ["openai", "vllm", "sglang"])
def test_prefill_body_continues_the_final_assistant_message(kind):
    body = chat_request(PRE, model="m", max_tokens=128, temperature=0.7, server_kind=kind)
    assert body == {
        "model": "m",
        "messages": [
            {"role": "user", "content": "a.py: rename x."},
            {"role": "assistant", "content": '```python\n"""A."""'},
        ],
        "max_tokens": 128,
        "temperature": 0.7,
        "stream": True,
        "stream_options": {"include_usage": True},
        "chat_template_kwargs": {"enable_thinking": False},
        "continue_final_message": True,
        "add_generation_prompt": False,
    }


def test_prefill_body_for_llamacpp_is_a_trailing_assistant_message_only():
    body = chat_request(PRE, model="m", max_tokens=8, temperature=0, server_kind="llamacpp")
    assert body == {
        "model": "m",
        "messages": [
            {"role": "user", "content": "a.py: rename x."},
            {"role": "assistant", "content": '```python\n"""A."""'},
        ],
        "max_tokens": 8,
        "temperature": 0.0,
        "stream": True,
        "stream_options": {"include_usage": True},
        "chat_template_kwargs": {"enable_thinking": False},
    }
    assert isinstance(body["temperature"], float)


def test_request_never_mutates_the_prompt_and_bodies_are_independent():
    before = copy.deepcopy(PRE.messages)
    a = chat_request(PRE, model="m", max_tokens=8, temperature=0.0)
    b = chat_request(PRE, model="m", max_tokens=8, temperature=0.0)
    a["messages"][0]["content"] = "changed"
    a["chat_template_kwargs"]["enable_thinking"] = True
    assert PRE.messages == before
    assert b["messages"][0]["content"] == "a.py: rename x."
    assert b["chat_template_kwargs"] == {"enable_thinking": False}


def test_real_pack_prompts_build_bodies():
    p = load_pack("edit-prefill", n=1)[0]
    body = chat_request(p, model="m", max_tokens=32, temperature=0.0)
    assert body["messages"][-1] == {"role": "assistant", "content": p.prefill}
    assert body["messages"][0] == p.messages[0]
    assert "continue_final_message" not in chat_request(
        load_pack("edit", n=1)[0], model="m", max_tokens=32, temperature=0.0
    )


@pytest.mark.parametrize(
    "kwargs, found",
    [
        ({"server_kind": "tgi"}, "tgi"),
        ({"max_tokens": 0}, 0),
        ({"max_tokens": 1.5}, 1.5),
        ({"temperature": -0.1}, -0.1),
        ({"model": ""}, "''"),
    ],
)
def test_bad_options_are_config_errors(kwargs, found):
    args = {"model": "m", "max_tokens": 16, "temperature": 0.0, **kwargs}
    with pytest.raises(ConfigError) as info:
        chat_request(PLAIN, **args)
    assert info.value.found == found


def test_nan_temperature_is_a_config_error():
    with pytest.raises(ConfigError) as info:
        chat_request(PLAIN, model="m", max_tokens=16, temperature=math.nan)
    assert info.value.expected == ">= 0"


def test_cache_salt_defeats_prefix_cache_per_server_kind():
    from specscope.workload import chat_request, load_pack

    p = load_pack("prose", seed=0)[0]
    kw = dict(model="m", max_tokens=8, temperature=0.0, cache_salt="run/cell/prose-000")
    assert chat_request(p, server_kind="llamacpp", **kw)["cache_prompt"] is False
    assert "cache_salt" not in chat_request(p, server_kind="llamacpp", **kw)
    assert chat_request(p, server_kind="vllm", **kw)["cache_salt"] == "run/cell/prose-000"
    assert chat_request(p, server_kind="openai", **kw)["cache_salt"] == "run/cell/prose-000"
    sg = chat_request(p, server_kind="sglang", **kw)
    assert "cache_salt" not in sg and "cache_prompt" not in sg
    plain = chat_request(p, server_kind="vllm", model="m", max_tokens=8, temperature=0.0)
    assert "cache_salt" not in plain and "cache_prompt" not in plain
