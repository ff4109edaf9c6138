import json

import pytest

from hangguard import HANG_S
from specscope.errors import ConfigError, StoreError
from specscope.gate import GATES, load_gate_run, load_profile, load_suite
from specscope.gate.probes import build_long_context_probe, load_probes
from specscope.gate.sandbox import run_code_tests


def test_default_profile_has_seed_values():
    p = load_profile()
    assert p.thinking.max_tokens == 16384  # seed 002's budget
    assert p.repetition.n == 8 and p.repetition.max_repeated_ngram_count == 1
    assert p.repetition.min_unique_word_ratio == 0.528  # seed 003
    assert p.long_context.context_tokens == 8192
    assert p.compare.min_same_answer_fraction == 1.0 and p.compare.min_identical_fraction == 0.0
    assert p.request.temperature == 0.0


def test_user_profile_overrides_and_rejects_unknown_keys(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text("[code]\ntimeout_s = 3.5\nlimit = 2\n")
    p = load_profile(f)
    assert p.code.timeout_s == 3.5 and p.code.limit == 2 and p.code.max_tokens == 2048
    f.write_text("[repetiton]\nn = 4\n")
    with pytest.raises(ConfigError) as e:
        load_profile(f)
    assert e.value.found.startswith("repetiton: Extra inputs are not permitted")
    f.write_text("[repetition]\nmin_unique_word_ratio = 1.5\n")
    with pytest.raises(ConfigError):
        load_profile(f)
    f.write_text("[code\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_profile(f)
    with pytest.raises(ConfigError, match="cannot read the gate profile"):
        load_profile(tmp_path / "missing.toml")


def test_suite_sizes_and_limits():
    suite = load_suite(load_profile())
    assert {g: len(v) for g, v in suite.items()} == {
        "thinking": 5,
        "arithmetic": 8,
        "code": 4,
        "tool_call": 1,
        "long_context": 1,
        "repetition": 6,
        "compare": 6,
    }
    assert list(suite) == list(GATES)
    limited = load_suite(load_profile().with_overrides(arithmetic={"limit": 2}), ["arithmetic", "code"])
    assert {g: len(v) for g, v in limited.items()} == {"arithmetic": 2, "code": 4}
    with pytest.raises(ConfigError):
        load_suite(load_profile(), ["nope"])
    ids = [p.id for g in suite.values() for p in g]
    assert len(ids) == len(set(ids))
    assert [p.expected["answer"] for p in load_probes("thinking")] == ["323", "391", "12", "363", "423"]


def test_long_context_probe_plants_needle_at_depth():
    p = build_long_context_probe(context_tokens=1000, depth_fraction=0.5, chars_per_token=4.0)
    text = p.messages[0]["content"]
    paras = text.split("\n\n")
    # paras[0] is the instruction, the last one the question
    body = paras[1:-1]
    assert body[p.expected["needle_paragraph"]].startswith("Important note: the access code")
    assert p.expected["paragraphs"] == len(body)
    filler_chars = sum(len(x) + 2 for x in body if not x.startswith("Important note"))
    assert 4000 <= filler_chars < 4000 + 700  # reached the target, overshooting by less than one paragraph
    start = build_long_context_probe(1000, 0.0).messages[0]["content"].split("\n\n")
    assert start[1].startswith("Important note") and start[-1].startswith("According to the text above")
    end = build_long_context_probe(1000, 1.0).messages[0]["content"].split("\n\n")
    assert end[-2].startswith("Important note")


def test_sandbox_blocks_network_and_uses_temp_cwd(tmp_path):
    run = run_code_tests(
        "import socket\ndef f():\n    return socket.create_connection(('127.0.0.1', 9))\n", "f()\n", timeout_s=HANG_S
    )
    assert not run.passed and "network disabled in the specscope gate sandbox" in run.stderr_tail
    run = run_code_tests(
        "import os\ndef cwd():\n    return os.getcwd()\n",
        "import sys\nassert cwd().rsplit('/', 1)[-1].startswith('specscope-gate-')\n"
        "assert sys.flags.isolated == 1 and sys.flags.no_site == 1\n",
        timeout_s=HANG_S,
    )
    assert run.passed, run.stderr_tail
    assert not list(tmp_path.iterdir())
    run = run_code_tests(
        "def big():\n    return bytearray(2 * 1024 ** 3)\n", "big()\n", timeout_s=HANG_S, memory_bytes=512 * 1024**2
    )
    assert not run.passed and "MemoryError" in run.stderr_tail


def test_load_gate_run_rejects_other_folders(tmp_path):
    with pytest.raises(StoreError, match="not a gate run folder"):
        load_gate_run(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"kind": "bench"}))
    (tmp_path / "gate.json").write_text("{}")
    with pytest.raises(StoreError) as e:
        load_gate_run(tmp_path)
    assert e.value.found.startswith("kind 'bench'")
