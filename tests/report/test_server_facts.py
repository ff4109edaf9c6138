"""Server facts as tables: the seed card's KV table with its GiB column, the facts table, the speculative method."""

from __future__ import annotations

from serverfacts import run_facts, server_facts
from specscope.facts import RunFacts
from specscope.report.server_facts import server_tables, spec_k, spec_method
from specscope.stats.alarms import acceptance_method
from specscope.stats.low_acceptance import learned_head
from specscope.stats.server_spec import methods_of

# seed 000, "The KV cost nobody mentions" (Qwen3.6-27B NVFP4 on a DGX Spark, --max-model-len 262144)
SEED_KV = {
    "base": (18.76, 2_041_963, 63.75, 7.79),
    "mtp": (19.55, 1_839_553, 63.02, 7.02),
    "dflash": (22.16, 1_233_978, 59.89, 4.71),
}


def _facts():
    out = {}
    for cfg, (weights_gib, tokens, kv_gib, conc) in SEED_KV.items():
        log = {
            "weights_loaded_gib": weights_gib,
            "kv_cache_size_tokens": tokens,
            "available_kv_cache_memory_gib": kv_gib,
            "max_concurrency_requests": conc,
            "max_concurrency_at_len_tokens": 262_144,
            "speculative_config": None if cfg == "base" else {"method": cfg, "num_speculative_tokens": 15},
            "failures": [],
        }
        out[cfg] = {
            "kind": "vllm",
            "model": "org/Qwen3.6-27B-NVFP4",
            "base_url": "http://127.0.0.1:8000",
            "log_facts": log,
        }
    return run_facts(out)


def test_kv_table_has_the_seed_cards_columns_and_changes():
    tables = {t.key: t for t in server_tables(_facts())}
    kv = tables["kv"]
    assert kv.headers == [
        "config",
        "weights loaded (GiB)",
        "KV cache tokens (tokens)",
        "KV cache (GiB)",
        "max concurrency (x)",
        "at tokens per request (tokens)",
    ]
    assert kv.rows == [
        ["base", "18.76 GiB", "2,041,963", "63.75 GiB", "7.79x", "262,144"],
        ["mtp", "19.55 GiB", "1,839,553 (-10%)", "63.02 GiB", "7.02x (-10%)", "262,144"],
        ["dflash", "22.16 GiB", "1,233,978 (-40%)", "59.89 GiB", "4.71x (-40%)", "262,144"],
    ]
    assert kv.cells[1][3].value == 63.02


def test_facts_are_a_table_with_method_and_k():
    facts = _facts()
    rows = {r[0]: r for r in {t.key: t for t in server_tables(facts)}["server_facts"].rows}
    assert rows["mtp"][:6] == ["mtp", "vllm", "org/Qwen3.6-27B-NVFP4", "mtp", "15", "http://127.0.0.1:8000"]
    assert rows["base"][3] == "—"


def test_method_and_k_sources():
    recipe = server_facts({"recipe": {"method": "mtp", "num_speculative_tokens": 2}})
    assert (spec_method("x", recipe), spec_k("x", recipe)) == ("mtp", 2)
    embedded = server_facts(
        {"config": {"spec_types": ["ngram-mod"], "draft_n_max_tokens": 16, "ngram_mod_n_max_tokens": 16}}
    )
    assert (spec_method("ngram", embedded), spec_k("ngram", embedded)) == ("ngram-mod", 16)
    assert spec_method("draft", server_facts({"draft": {"quant": "Q4_0"}})) == "draft"
    assert spec_k("eagle-k3", server_facts({})) == 3
    # a learned head drafts (alarms apply); n-gram and suffix drafting do not; external servers go by name
    pairs = (("x", recipe), ("ngram", embedded), ("mtp3", server_facts({})), ("base", server_facts({})))
    methods = [acceptance_method(c, methods_of(RunFacts({c: f}))) for c, f in pairs]
    assert methods == ["mtp", "ngram-mod", "mtp", None]  # None: unknown, which the rule treats as a head
    assert [learned_head(m) for m in methods] == [True, False, True, True]
    assert learned_head(acceptance_method("d", methods_of(run_facts({"d": {"recipe": {"method": "dflash"}}}))))
    assert learned_head(acceptance_method("e", methods_of(run_facts({"e": {"recipe": {"method": "eagle3"}}}))))
