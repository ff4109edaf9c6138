"""The prompt packs: ``prose``, ``code``, ``edit``, ``edit-prefill`` and ``repeat``, 64 prompts each.

Shapes follow the seed card's workload table (seeds/000_bffdc31976a6d8af.txt, "The three workloads"):

* ``prose``: a short first-person story on one of 64 topics (``data/prose_topics.json``);
* ``code``: a self-contained, type-hinted Python module with a doctest, implementing one of 64 data
  structures or algorithms (``data/code_subjects.json``);
* ``edit``: one of 64 distinct Python modules of 40-80 lines (:mod:`specscope.workload.edit_corpus`)
  with the instruction to rename one identifier and return every other line byte-for-byte;
* ``edit-prefill``: the same prompts, with the assistant answer pre-filled by the opening code fence
  and the module's first line (small models copy instead of rewriting; issue 2 saw n-gram acceptance
  on edit rise from 0.37 to 0.91 with vLLM and SmolLM2-135M). Each prompt's ``meta["form"]`` is
  ``"prefill"``, and the pack name itself records the form in the run;
* ``repeat``: one of the 64 story titles of ``prose`` to be written out line after line, the answer pre-filled with
  its first two lines. The answer repeats text that is already in the context, so n-gram drafting guesses it: the
  best case of speculation, every draft accepted (SmolLM2-135M on the embedded engine, 2026-12-07: 41 of 41 drafted
  tokens accepted per 48-token answer). It stands for output that copies or templates (edits returned whole, quoted
  passages, repeated records) and shows a measured win, and its ceiling, where decode is compute-bound
  (benchmarks/RESULTS.md, "A workload where n-gram drafting wins on the embedded engine?").

Every prompt's user message *starts* with its own topic, subject or file name, so no two prompts share
a prefix (prefix caching must not flatter a cell); the tests hold the first 16 characters and the first
8 words distinct. Generation is deterministic: ``random.Random`` seeded with strings (stable across
processes and platforms) decides order and per-prompt variation.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from specscope.errors import ConfigError
from specscope.workload.edit_corpus import rename_task
from specscope.workload.prompt import Prompt, require_int_in

__all__ = [
    "PACK_NAMES",
    "PACK_SIZE",
    "load_pack",
    "warmup_prompt",
    "pack_form",
    "pack_fingerprint",
    "pack_manifest",
]

PACK_SIZE = 64
PACK_NAMES: tuple[str, ...] = ("prose", "code", "edit", "edit-prefill", "repeat")
#: packs whose answers are pre-filled (the run records their form as ``"prefill"``)
_PREFILLED = ("edit-prefill", "repeat")

_PROSE_VOICES = (
    "in the past tense",
    "in the present tense",
    "looking back from many years later",
    "as it happens, hour by hour",
    "with a quiet, understated tone",
    "with a little dry humour",
    "ending on an unresolved note",
    "ending with a small act of kindness",
)
_CODE_EXTRAS = (
    "Raise ValueError with a clear message on invalid input.",
    "Prefer clarity over cleverness.",
    "Include a short usage example in the module docstring.",
    "Keep every function under 25 lines.",
    "Use dataclasses where a record type helps.",
    "Make the public API obvious from the names alone.",
    "Add a __repr__ to every class you define.",
    "Document the time complexity of each public function.",
)


@cache
def _data_list(filename: str, key: str) -> tuple[str, ...]:
    raw = resources.files("specscope.workload").joinpath(f"data/{filename}").read_text("utf-8")
    return tuple(json.loads(raw)[key])


def _plain_prompt(workload: str, index: int, seed: int, text: str, **details: str) -> Prompt:
    """A one-message prompt ``<workload>-<index:03d>``; ``details`` extend its meta after seed, index, form."""
    return Prompt(
        prompt_id=f"{workload}-{index:03d}",
        workload=workload,
        messages=[{"role": "user", "content": text}],
        meta={"seed": seed, "index": index, "form": "plain", **details},
    )


def _prose(index: int, seed: int) -> Prompt:
    topic = _data_list("prose_topics.json", "topics")[index]
    voice = random.Random(f"prose:{seed}:{index}").choice(_PROSE_VOICES)
    text = (
        f"{topic}: write a short story of approximately 1000 words on this topic. "
        f"Tell it in the first person, {voice}. Reply with the story only, without a title."
    )
    return _plain_prompt("prose", index, seed, text, topic=topic, voice=voice)


def _code(index: int, seed: int) -> Prompt:
    subject = _data_list("code_subjects.json", "subjects")[index]
    extra = random.Random(f"code:{seed}:{index}").choice(_CODE_EXTRAS)
    text = (
        f"{subject}: write a single self-contained Python module implementing this, using only the "
        "standard library. Give every function and method full type hints and a docstring, and include "
        f"at least one runnable doctest. {extra} Reply with the module only, in one Python code block."
    )
    return _plain_prompt("code", index, seed, text, subject=subject, extra=extra)


def _edit(index: int, seed: int, *, prefill: bool) -> Prompt:
    task = rename_task(index, seed=seed)
    module = task.module
    text = (
        f"{module.name}: here is a Python module. Make exactly one change: rename every occurrence of "
        f"`{task.old}` to `{task.new}`. Every other line must come back byte-for-byte identical. "
        "Reply with the complete module in one ```python code block and nothing else.\n\n"
        f"```python\n{module.text}```"
    )
    workload = "edit-prefill" if prefill else "edit"
    first_line, rest = task.expected.split("\n", 1)
    meta: dict[str, Any] = {
        "seed": seed,
        "index": index,
        "form": "prefill" if prefill else "plain",
        "module": module.name,
        "rename": [task.old, task.new],
        "occurrences": task.occurrences,
        "lines": module.text.count("\n"),
    }
    prefill_text = None
    if prefill:
        # No trailing newline: the module's next characters ("\n\n" after a docstring line) then
        # tokenize as the model would write them instead of being split at the prefill's end.
        prefill_text = f"```python\n{first_line}"
        # What a perfect streamed answer carries after the prefill (servers stream only the continuation).
        meta["expected_continuation"] = f"\n{rest}```"
    return Prompt(
        prompt_id=f"{workload}-{index:03d}",
        workload=workload,
        messages=[{"role": "user", "content": text}],
        prefill=prefill_text,
        expected_output=task.expected,
        meta=meta,
    )


REPEAT_LINES = 20  # lines the repeat prompt asks for (a title is ~8-14 tokens: more than REPEAT_MAX_TOKENS hold)
#: the repeat pack's own answer length, sent as each prompt's max_tokens in place of --max-tokens (as a file row's own
#: output length is) with ``ignore_eos``, so every answer is exactly this long (as a trace row's is): long enough that
#: decode, which drafting shortens, outweighs the prompt's prefill, which it does not (48 tokens gave 1.05x-1.25x on
#: the embedded engine, 2026-12-07, benchmarks/RESULTS.md); and exact, because SmolLM2 stops some answers after two
#: lines (repeat-052: 26 tokens), whose cells then read as cold starts and were left out
REPEAT_MAX_TOKENS = 128


def _repeat(index: int, seed: int) -> Prompt:
    title = _data_list("prose_topics.json", "topics")[index]
    text = (
        f"{title}: write this title out {REPEAT_LINES} times, one per line, each line starting with a dash, and "
        "nothing else."
    )
    line = f"- {title}\n"
    return Prompt(
        prompt_id=f"repeat-{index:03d}",
        workload="repeat",
        messages=[{"role": "user", "content": text}],
        prefill=line * 2,
        expected_output=line * REPEAT_LINES,
        meta={
            "seed": seed,
            "index": index,
            "form": "prefill",
            "title": title,
            "max_tokens": REPEAT_MAX_TOKENS,
            "ignore_eos": True,
        },
    )


_BUILDERS: dict[str, Callable[[int, int], Prompt]] = {
    "prose": _prose,
    "code": _code,
    "edit": lambda i, s: _edit(i, s, prefill=False),
    "edit-prefill": lambda i, s: _edit(i, s, prefill=True),
    "repeat": _repeat,
}


def pack_form(name: str) -> str:
    """``"prefill"`` for ``edit-prefill`` and ``repeat``, ``"plain"`` for the other packs; ConfigError if unknown."""
    _check_name(name)
    return "prefill" if name in _PREFILLED else "plain"


def _check_name(name: str) -> None:
    if name not in PACK_NAMES:
        raise ConfigError.invalid_value(
            "--workloads",
            name,
            f"one of {', '.join(PACK_NAMES)}",
            choices=PACK_NAMES,
            fix="e.g. --workloads prose,code,edit",
        )


def load_pack(name: str, *, seed: int = 0, n: int = PACK_SIZE) -> list[Prompt]:
    """The first ``n`` prompts of pack ``name`` in the order ``seed`` gives.

    The order is a permutation of the 64 corpus items drawn by ``random.Random(f"pack:{base}:{seed}")``
    (``edit`` and ``edit-prefill`` share it, and their rename tasks, so the two forms compare
    prompt-for-prompt). Same ``(name, seed, n)``, same list, on every machine.

    Raises:
        ConfigError: unknown ``name`` (the message lists the known ones), or ``n`` outside 1..64.
    """
    _check_name(name)
    expected = f"an integer from 1 to {PACK_SIZE} (each pack has {PACK_SIZE} distinct prompts)"
    fix = f"ask for at most {PACK_SIZE} prompts"
    require_int_in(n, "pack size out of range", low=1, high=PACK_SIZE, expected=expected, fix=fix)
    require_int_in(seed, "pack seed must be an integer", expected="an int", fix="pass --seed 0")
    base = "edit" if name.startswith("edit") else name
    order = list(range(PACK_SIZE))
    random.Random(f"pack:{base}:{seed}").shuffle(order)
    build = _BUILDERS[name]
    return [build(index, seed) for index in order[:n]]


def warmup_prompt(name: str, *, seed: int = 0) -> Prompt:
    """A prompt of the pack's shape and length for a cell's warm-up request, sharing no prefix with any
    pack prompt (its user text starts with ``"Warm-up request"``), so warming up a server never puts a
    measured prompt in its prefix cache. ``prompt_id`` is ``"<name>-warmup"``, ``meta["warmup"]`` True.

    Raises:
        ConfigError: unknown ``name``.
    """
    base = load_pack(name, seed=seed, n=PACK_SIZE)[-1]
    messages = [dict(m) for m in base.messages]
    messages[0]["content"] = "Warm-up request, not measured. " + messages[0]["content"]
    return Prompt(
        prompt_id=f"{name}-warmup",
        workload=name,
        messages=messages,
        prefill=base.prefill,
        expected_output=base.expected_output,
        meta={**base.meta, "warmup": True},
    )


def pack_fingerprint(prompts: list[Prompt]) -> str:
    """SHA-256 (hex) of the prompts' ids, messages and prefills, in order: names a pack's exact text in a
    run manifest."""
    payload = [[p.prompt_id, p.messages, p.prefill] for p in prompts]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def pack_manifest(name: str, *, seed: int = 0, n: int = PACK_SIZE) -> dict[str, Any]:
    """What a run manifest records about a pack: name, form, seed, size and fingerprint."""
    prompts = load_pack(name, seed=seed, n=n)
    return {
        "name": name,
        "form": pack_form(name),
        "seed": seed,
        "n_prompts": len(prompts),
        "fingerprint_sha256": pack_fingerprint(prompts),
    }
