"""Packs: counts, determinism, distinct first tokens, content shape, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from specscope.errors import ConfigError
from specscope.workload import PACK_NAMES, load_pack, pack_fingerprint, pack_form, pack_manifest


def test_pack_names_are_exactly_the_five_packs():
    assert PACK_NAMES == ("prose", "code", "edit", "edit-prefill", "repeat")


@pytest.mark.parametrize("name", PACK_NAMES)
def test_each_pack_has_64_distinct_prompts_with_stable_ids(name):
    prompts = load_pack(name)
    assert len(prompts) == 64
    ids = [p.prompt_id for p in prompts]
    assert sorted(ids) == [f"{name}-{i:03d}" for i in range(64)]
    assert all(p.workload == name for p in prompts)
    assert len({p.first_user_text for p in prompts}) == 64
    assert all(p.messages[0]["role"] == "user" and len(p.messages) == 1 for p in prompts)


@pytest.mark.parametrize("name", PACK_NAMES)
def test_no_two_prompts_share_a_prefix(name):
    texts = [p.first_user_text for p in load_pack(name, seed=7)]
    assert len({t[:16] for t in texts}) == 64
    assert len({tuple(t.split()[:8]) for t in texts}) == 64


@pytest.mark.parametrize("name", PACK_NAMES)
def test_same_seed_same_pack_other_seed_other_order(name):
    a = load_pack(name, seed=3)
    b = load_pack(name, seed=3)
    assert a == b
    c = load_pack(name, seed=4)
    assert [p.prompt_id for p in a] != [p.prompt_id for p in c]
    # the same corpus items, only reordered (and varied)
    assert sorted(p.prompt_id for p in a) == sorted(p.prompt_id for p in c)


def test_n_takes_a_prefix_of_the_seeded_order():
    full = load_pack("code", seed=11)
    assert load_pack("code", seed=11, n=5) == full[:5]
    assert len(load_pack("prose", n=1)) == 1


def test_generation_is_identical_in_another_process_with_another_hash_seed():
    code = (
        "import json; from specscope.workload import load_pack, pack_fingerprint, PACK_NAMES;"
        "print(json.dumps({n: pack_fingerprint(load_pack(n, seed=5)) for n in PACK_NAMES}))"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == {n: pack_fingerprint(load_pack(n, seed=5)) for n in PACK_NAMES}


def test_prose_prompt_shape():
    p = load_pack("prose", n=1)[0]
    topic = p.meta["topic"]
    text = p.first_user_text
    assert text.startswith(f"{topic}: write a short story of approximately 1000 words")
    assert "first person" in text
    assert p.prefill is None and p.expected_output is None
    assert p.meta["form"] == "plain" and p.meta["seed"] == 0


def test_repeat_prompt_shape():
    """A title to write out 20 times, the answer pre-filled with its first two lines: text n-gram drafting finds."""
    prompts = load_pack("repeat")
    for p in prompts:
        title = p.meta["title"]
        assert p.first_user_text == (
            f"{title}: write this title out 20 times, one per line, each line starting with a dash, and nothing else."
        )
        assert p.prefill == f"- {title}\n- {title}\n"
        assert p.expected_output == f"- {title}\n" * 20
        # its own answer length, exactly (as a trace row's): some answers stopped after two lines
        assert (p.meta["form"], p.meta["max_tokens"], p.meta["ignore_eos"]) == ("prefill", 128, True)
    assert {p.meta["title"] for p in prompts} == {p.meta["topic"] for p in load_pack("prose")}
    assert pack_form("repeat") == "prefill"


def test_code_prompt_shape():
    for p in load_pack("code"):
        text = p.first_user_text
        assert text.startswith(f"{p.meta['subject']}: write a single self-contained Python module")
        assert "type hints" in text and "doctest" in text
        assert p.prefill is None and p.expected_output is None


def test_edit_prompt_carries_the_module_and_the_rename():
    for p in load_pack("edit", seed=2):
        old, new = p.meta["rename"]
        text = p.first_user_text
        assert text.startswith(f"{p.meta['module']}: here is a Python module.")
        assert f"rename every occurrence of `{old}` to `{new}`" in text
        assert "byte-for-byte" in text
        module_text = text.split("```python\n", 1)[1]
        assert module_text.endswith("```")
        original = module_text[: -len("```")]
        assert p.expected_output == __import__("re").sub(rf"\b{old}\b", new, original)
        assert p.prefill is None and p.meta["form"] == "plain"


def test_edit_prefill_is_the_fence_and_first_line_and_continues_to_the_answer():
    plain = load_pack("edit", seed=9)
    pre = load_pack("edit-prefill", seed=9)
    for a, b in zip(plain, pre, strict=True):
        assert a.messages == b.messages  # same prompt text, only the form differs
        assert a.expected_output == b.expected_output
        assert b.prompt_id == a.prompt_id.replace("edit-", "edit-prefill-")
        first_line = b.expected_output.split("\n", 1)[0]
        assert b.prefill == "```python\n" + first_line
        assert b.prefill + b.meta["expected_continuation"] == "```python\n" + b.expected_output + "```"
        assert b.meta["form"] == "prefill" and a.meta["form"] == "plain"


def test_pack_form_and_manifest_record_the_form():
    assert [pack_form(n) for n in PACK_NAMES] == ["plain", "plain", "plain", "prefill", "prefill"]
    m = pack_manifest("edit-prefill", seed=1, n=4)
    assert m == {
        "name": "edit-prefill",
        "form": "prefill",
        "seed": 1,
        "n_prompts": 4,
        "fingerprint_sha256": pack_fingerprint(load_pack("edit-prefill", seed=1, n=4)),
    }
    assert len(m["fingerprint_sha256"]) == 64
    assert pack_fingerprint(load_pack("edit", seed=1, n=4)) != m["fingerprint_sha256"]


def test_unknown_pack_name_lists_the_known_ones():
    with pytest.raises(ConfigError) as info:
        load_pack("poetry")
    err = info.value
    assert err.found == "poetry"
    assert err.expected == "one of prose, code, edit, edit-prefill, repeat"
    assert "poetry" in err.one_line()
    with pytest.raises(ConfigError):
        pack_form("Edit")


@pytest.mark.parametrize("n", [0, 65, -1, 2.0, True])
def test_pack_size_outside_1_to_64_is_a_config_error(n):
    with pytest.raises(ConfigError) as info:
        load_pack("prose", n=n)
    assert info.value.found == n


@pytest.mark.parametrize("name", PACK_NAMES)
def test_warmup_prompt_has_the_pack_shape_and_shares_no_prefix(name):
    from specscope.workload import warmup_prompt

    pack = load_pack(name, seed=3)
    w = warmup_prompt(name, seed=3)
    assert w.prompt_id == f"{name}-warmup" and w.workload == name and w.meta["warmup"] is True
    assert w.first_user_text == "Warm-up request, not measured. " + pack[-1].first_user_text
    assert w.prefill == pack[-1].prefill
    assert all(p.first_user_text[:4] != w.first_user_text[:4] for p in pack)
    assert w == warmup_prompt(name, seed=3)
