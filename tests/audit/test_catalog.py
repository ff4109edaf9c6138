"""The finding table (audit/findings.toml) and its constructor: exact words, variants, and a rule's facts."""

from __future__ import annotations

import pytest

from specscope.audit.catalog import finding, finding_texts
from specscope.audit.findings import Severity
from specscope.audit.rules_vocab import compare_tokenizers
from specscope.checkpoint.tokenizer import TokenizerView


def test_every_entry_loads_with_a_severity_and_a_message() -> None:
    texts = finding_texts()
    # + LLAMACPP_DRAFT_INCOMPATIBLE (4 variants), DRAFT_FORMAT_UNKNOWN, speculators 2, one more,
    # MTP_QUANTIZED_ENGINE_UNQUANTIZED, CONFIG_UNRECOGNISED, MTP_UNDECLARED/unknown (a model type outside the census),
    # DRAFT_CONTEXT_SHORTER, DRAFT_VOCAB_MAP/declared-head and /tied-head (test_draft_positions.py),
    # MTP_IGNORE_PER_SHARD (surgery/test_exclusion_patterns.py), QUANT_CONFIG_NOT_READ and /none,
    # DRAFT_VOCAB_SIZE_DIFFERS (test_draft_target.py), NO_WEIGHTS/pickle (test_pickle_weights.py),
    # DRAFT_FORMAT_UNKNOWN/speculators (test_draft_config_layouts.py), DRAFT_FORMAT_UNKNOWN/unlisted
    # DRAFT_TENSOR_SHAPE, DRAFT_CONFIG_INVALID, DRAFT_TENSOR_NOT_READ (test_census_exact.py),
    # DRAFT_TENSORS_UNREAD, /skipped and /unjudged (test_draft_unread_tensors.py),
    # MTP_SHARED_EMBEDDING_QUANTIZED (test_mtp_engine_linears.py), EAGLE3_AUX_COUNT_MISMATCH (test_census_exact.py),
    # DRAFT_SPECULATORS_CONFIG_INVALID/eagle (test_draft_config_layouts.py), EAGLE3_AUX_IDS_NOT_READ
    # (test_census_exact.py), DRAFT_TENSOR_NOT_READ/fc-bias (test_hass_drafts.py),
    # DRAFT_TARGET_LAYER_OUT_OF_RANGE/nested (test_draft_config_layouts.py), MTP_LAYERS_NOT_BUILT
    # (test_heads_found.py), DRAFT_VOCAB_MISMATCH/engine-accepts and DRAFT_TOKENIZER_DIFFERS/engine-accepts
    # (test_llamacpp_pairs.py), LLAMACPP_GGUF_UNLOADABLE (test_llamacpp_pairs.py), MTP_LAYERS_NOT_BUILT/skipped
    # (test_heads_found.py), LLAMACPP_PRE_TOKENIZER_UNKNOWN and /missing
    # (test_llamacpp_pairs.py), GGUF_ARCH_UNKNOWN (test_llamacpp_pairs.py), MTP_LAYERS_NOT_BUILT/fixed
    # (test_mtp_layers_past.py), CONFIG_KEY_REPEATED (test_repeated_keys.py), DRAFT_TENSORS_UNREAD/heads
    # (test_medusa_head_count.py), DFLASH_SLIDING_FLAG_NOT_APPLIED and /derived (test_dflash_sliding_flag.py),
    # MTP_LAYERS_NOT_BUILT/target (test_mtp_layers_past.py), MTP_LAYERS_UNSUPPORTED (test_mtp_loader_limits.py),
    # MTP_NO_ENGINE and /stored (test_mtp_no_engine.py), DRAFT_VOCAB_EXCEEDS_TARGET/head (test_draft_head_rows.py),
    # DRAFT_TENSORS_MISSING/fc-bias (test_hass_drafts.py), MTP_NO_ENGINE/target (test_mtp_no_engine.py),
    # MTP_LAYOUT_UNKNOWN/unjudged and DRAFT_FORMAT_UNKNOWN/own-layout (test_hunt59.py), LLAMACPP_DRAFT_TYPE_AUTO and
    # /eagle3, LLAMACPP_EAGLE3_LAYERS and /missing, /count, /range (test_llamacpp_spec_types.py), EAGLE3_AUX_NORM_KEY
    # and DRAFT_FORMAT_UNKNOWN/own-layers (test_hunt61.py), LLAMACPP_DFLASH_LAYERS and /missing,
    # LLAMACPP_DRAFT_INCOMPATIBLE/split-mtp (test_llamacpp_spec_types.py), INDEX_SHARD_MISSING/none
    # (tests/cli/test_shard_missing_fix.py), LLAMACPP_NEXTN_LAYERS and /undeclared, /unwritten, /trunk, /count,
    # LLAMACPP_NEXTN_TENSORS and /missing, /no-head, /old-names (test_gguf_nextn.py), MTP_UNDECLARED/target and
    # DRAFT_CONFIG_INVALID/mtp (test_hunt65.py), VOCAB_ROWS_DIFFER (test_vocab_rows.py),
    # DRAFT_TENSORS_MISSING/fused-experts (test_fused_experts.py)
    assert len(texts) == 170
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
    facts |= {"checkpoint": "ck"}
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


def test_tokenizer_comparison_words_the_first_differing_id_and_both_tokens() -> None:
    draft = TokenizerView("tokenizer.json", "BPE", {0: "a", 1: "b", 2: "c"})
    target = TokenizerView("tokenizer.json", "BPE", {0: "a", 1: "B", 2: "C", 3: "d"})
    (f,) = compare_tokenizers(draft, target)
    assert (f.severity, f.code) == (Severity.ERROR, "DRAFT_TOKENIZER_DIFFERS")
    assert f.message == (
        "draft and target tokenizers map 2 of 3 shared ids to different tokens; first at id 1: draft 'b', target 'B'"
    )
    assert f.found == "id 1: draft 'b', target 'B'; id 2: draft 'c', target 'C'"
    assert f.details["first"][0] == {"id": 1, "draft": "b", "target": "B"}
