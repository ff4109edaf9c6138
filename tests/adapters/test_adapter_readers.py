"""The readers the engine-neutral code takes from the adapters through the registry (issue 34, "one engine, one
home"): per-response speculative fields (``adapters/<engine>/per_response.py``), the log facts put together
(``adapters/log_facts.py``) and the log summaries ``serve --parse-log`` shows (``adapters/<engine>/log_summary.py``)."""

from __future__ import annotations

import pytest

from specscope.adapters import registry
from specscope.adapters.log_facts import EngineLogFacts, engine_log_facts, facts_classes
from specscope.adapters.logs import log_summaries
from specscope.adapters.per_response import readers
from specscope.adapters.sglang.log_facts import SglangLogFacts
from specscope.adapters.vllm.log_facts import VllmLogFacts
from specscope.client.spec_fields import read_spec
from specscope.launch.logfacts import LogFacts
from specscope.stats.low_acceptance import low_acceptance_bound_alarm


def test_each_engine_with_per_response_fields_has_one_reader_in_registry_order() -> None:
    found = readers()
    assert [r.engine for r in found] == ["vllm", "sglang", "llamacpp", "trtllm"]
    by_choice = sorted((r for r in found if r.read_choice), key=lambda r: r.choice_order)
    assert [r.engine for r in by_choice] == ["vllm", "trtllm", "sglang"]  # the order a choice's readings merge
    assert [r.engine for r in found if r.queue_s] == ["vllm"]


def test_a_top_level_key_an_adapter_reads_is_never_named_unread() -> None:
    for reader in readers():
        for key in reader.root_keys:
            rec = read_spec({key: {"nothing": 1}, "draft_x": 1})
            assert rec is not None and rec.engine == "unknown" and rec.source_fields == ("draft_x",), key


def test_two_engines_in_one_choice_merge_in_the_declared_order() -> None:
    choice = {
        "meta_info": {"spec_num_correct_drafts": 1, "spec_num_proposed_drafts": 2, "spec_verify_ct": 1},
        "speculative_decoding": {"total_accepted_draft_tokens": 3, "total_draft_tokens": 4, "num_spec_steps": 2},
    }
    rec = read_spec({"choices": [choice]})
    assert rec is not None and rec.engine == "sglang"  # the later reading wins
    assert "SPEC_SHAPES_MIXED(trtllm.choices.speculative_decoding, sglang.meta_info)" in rec.warnings


def test_the_log_facts_keep_their_fields_in_their_order() -> None:
    fields = list(LogFacts.model_fields)
    assert fields == [*VllmLogFacts.model_fields, *SglangLogFacts.model_fields, "failures"]
    assert list(EngineLogFacts.model_fields) == fields[:-1]


def test_the_log_facts_record_is_found_through_the_registry() -> None:
    """Each engine's ``log_facts.FACTS`` comes from its folder, in registry order; the record is an instance of every
    one (an adapter reads its own fields through its own class)."""
    assert facts_classes() == [("vllm", VllmLogFacts), ("sglang", SglangLogFacts)]
    assert all(issubclass(EngineLogFacts, cls) for _, cls in facts_classes())
    text = "[2025-10-10 12:00:01 TP0] Decode batch. #running-req: 4, #token: 2048, token usage: 0.01, accept len: 2.85"
    facts = engine_log_facts([text, "INFO 05-01 16:50:43 Resolved architecture: Qwen3ForCausalLM"])
    assert isinstance(facts, SglangLogFacts) and isinstance(facts, VllmLogFacts)
    assert [w.accept_length for w in facts.sglang_spec_windows] == [2.85] and facts.architectures == [
        "Qwen3ForCausalLM"
    ]


def test_two_engines_declaring_one_log_fact_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A field two adapters declare would be overwritten silently by the later one: refused by name."""
    monkeypatch.setattr(registry, "ENGINES", ("vllm", "sglang", "vllm"))
    with pytest.raises(TypeError, match="log fact 'vllm_version' is declared by both vllm and vllm"):
        facts_classes()


def test_the_log_summaries_are_found_through_the_registry() -> None:
    (summary,) = log_summaries()
    assert summary.key == "sglang_spec_summary" and set(summary.hidden) <= set(LogFacts.model_fields)
    assert summary.summarise(LogFacts(), low_acceptance_bound_alarm) is None  # a log without its lines: no summary
