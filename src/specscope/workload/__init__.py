"""specscope.workload: the prompt packs (prose, code, edit, edit-prefill, repeat), request bodies, schedules.

Depends on nothing of ours but :mod:`specscope.errors`.

Public API::

    Prompt                                   frozen record of one prompt
    PACK_NAMES                               ("prose", "code", "edit", "edit-prefill", "repeat")
    load_pack(name, *, seed=0, n=64) -> list[Prompt]
    chat_request(prompt, *, model, max_tokens, temperature, server_kind="openai") -> dict
    schedule(prompts, n_streams, *, repeat, seed) -> list[Prompt]
    warmup_prompt(name, *, seed=0) -> Prompt   same shape, no shared prefix with the pack
    pack_form(name) -> "plain" | "prefill";  pack_manifest(name, *, seed, n) -> dict
"""

from __future__ import annotations

from specscope.workload.packs import (
    PACK_NAMES,
    PACK_SIZE,
    load_pack,
    pack_fingerprint,
    pack_form,
    pack_manifest,
    warmup_prompt,
)
from specscope.workload.prompt import Prompt
from specscope.workload.request import SERVER_KINDS, chat_request
from specscope.workload.schedule import schedule

__all__ = [
    "Prompt",
    "PACK_NAMES",
    "PACK_SIZE",
    "SERVER_KINDS",
    "load_pack",
    "warmup_prompt",
    "pack_form",
    "pack_fingerprint",
    "pack_manifest",
    "chat_request",
    "schedule",
]
