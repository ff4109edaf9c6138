"""The finding table (audit/findings.toml) and its constructor: exact words, variants, and a rule's facts."""

from __future__ import annotations

import pytest

from specscope.audit.catalog import finding, finding_texts
from specscope.audit.findings import Severity
from specscope.audit.rules_draft import check_draft_vs_target


def test_every_entry_loads_with_a_severity_and_a_message() -> None:
    texts = finding_texts()
    assert len(texts) == 55
    assert {t["severity"] for t in texts.values()} == {"error", "warning", "info"}
    assert all(t["message"] for t in texts.values())


def test_a_finding_is_its_templates_filled_with_the_facts() -> None:
    f = finding("HASH_FILE_MISSING", file="model.safetensors", source="SHA256SUMS", want="ab" * 32)
    assert f.severity is Severity.ERROR
    assert f.code == "HASH_FILE_MISSING"
    assert f.message == "model.safetensors is listed in SHA256SUMS but not on disk"
    assert (f.found, f.expected) == ("no file", "sha256 " + "ab" * 32)
    assert (f.consequence, f.fix) == ("the checkpoint is incomplete", "download the missing file")
    assert f.details == {}


def test_a_variant_keeps_its_code_and_the_fields_of_its_base() -> None:
    facts = {"cfg": "config.json", "only_cfg": ["a"], "hf": "hf_quant_config.json", "only_hf": "-", "modules": 1}
    facts |= {"right": "config.json", "wrong": "hf_quant_config.json", "action": "excludes", "module": "m"}
    plain = finding("QUANT_CONFIG_MISMATCH/exclude", state="quantized", **facts)
    draft = finding("QUANT_CONFIG_MISMATCH/exclude-draft", state="quantized", **facts)
    assert plain.code == draft.code == "QUANT_CONFIG_MISMATCH"
    assert (plain.severity, draft.severity) == (Severity.WARNING, Severity.ERROR)
    assert (
        plain.message
        == draft.message
        == (
            "exclusions differ: only in config.json: ['a']; only in hf_quant_config.json: -; 1 modules affected; "
            "the tensors side with config.json"
        )
    )
    assert plain.consequence == "engines reading hf_quant_config.json build these layers with the wrong precision"
    assert draft.consequence == (
        "engines reading hf_quant_config.json build the MTP/draft head with the wrong precision: load failure or ~0% "
        "acceptance"
    )


def test_a_fact_the_template_names_but_the_rule_omits_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        finding("HASH_FILE_MISSING", file="x.safetensors")


def test_draft_vs_target_words_each_size_mismatch_and_the_tokenizer() -> None:
    draft = {"architectures": ["DFlashDraftModel"], "vocab_size": 1000, "hidden_size": 64}
    target = {"vocab_size": 1024, "hidden_size": 128}
    out = check_draft_vs_target(draft, target, {"tokenizer.json": 10}, {"tokenizer.json": 12})
    assert [(f.code, f.message, f.found, f.expected) for f in out] == [
        ("DRAFT_VOCAB_MISMATCH", "draft vocab_size 1000 != target vocab_size 1024", "1000", "1024"),
        ("DRAFT_HIDDEN_MISMATCH", "DFlash draft hidden_size 64 != target hidden_size 128", "64", "128"),
        (
            "DRAFT_TOKENIZER_DIFFERS",
            "tokenizer.json differs in size: draft 10 bytes, target 12 bytes",
            "10 bytes",
            "12 bytes",
        ),
    ]
    assert out[1].fix == "use the draft built for this target"
    assert out[1].consequence == "the draft cannot consume the target's hidden states"
