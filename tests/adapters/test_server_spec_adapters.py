"""Server facts read by the engine adapters into one neutral record (issue 34): the shapes specscope stores for a
launched vLLM (its recipe, its start-up log's speculative config) and for the embedded llama.cpp engine (its config,
its draft model), and nothing for a server specscope did not start."""

from __future__ import annotations

from serverfacts import run_facts, server_facts
from specscope.adapters.facts import ServerSpec, server_spec
from specscope.stats.server_spec import methods_of, spec_k


def test_each_engines_shapes_fill_the_one_record() -> None:
    recipe = {"recipe": {"method": "mtp", "num_speculative_tokens": 3}}
    assert server_spec(recipe) == ServerSpec("mtp", 3, "vllm", "vllm", True)
    log = {"log_facts": {"speculative_config": {"method": "eagle3", "num_speculative_tokens": 5}}}
    assert server_spec(log) == ServerSpec("eagle3", 5, "vllm", "vllm", True)
    embedded = {"config": {"spec_types": ["ngram-mod"], "draft_n_max_tokens": 8}}
    # ngram-mod drafts up to its own n_max (llama.cpp's default 64), not the draft model's 8
    assert server_spec(embedded) == ServerSpec("ngram-mod", 64, "llamacpp", "llamacpp", True)
    swept = {"config": {"spec_types": ["ngram-mod"], "draft_n_max_tokens": 4, "ngram_mod_n_max_tokens": 4}}
    assert server_spec(swept).k == 4
    both = {"config": {"spec_types": ["draft-simple", "ngram-mod"], "draft_n_max_tokens": 8}}
    assert server_spec(both).k == 64  # the most one step drafts
    assert server_spec({"config": {"spec_types": ["draft-simple"], "draft_n_max_tokens": 8}}).k == 8
    assert server_spec({"config": {"spec_types": ["ngram-simple"], "draft_n_max_tokens": 8}}).k is None
    assert server_spec({"draft": {"quant": "Q4_0"}, "config": {"spec_types": []}}).method == "draft"
    assert server_spec({"config": {"spec_types": []}}) == ServerSpec(stated=True)  # says: it does not draft
    assert server_spec({"kind": "external", "base_url": "http://h:8000"}) == ServerSpec()


def test_the_neutral_readers_take_the_record() -> None:
    facts = run_facts(
        {
            "base": {"recipe": {"method": "base"}},
            "mtp": {"recipe": {"method": "mtp", "num_speculative_tokens": 2}},
            "ngram": {"config": {"spec_types": ["ngram-mod"], "draft_n_max_tokens": 8}},
            "plain": {"config": {"spec_types": []}},
            "ext": {"kind": "external"},
        }
    )
    assert methods_of(facts) == {"base": None, "mtp": "mtp", "ngram": "ngram-mod", "plain": None}
    assert [spec_k(c, f) for c, f in facts.items()] == [None, 2, 64, None, None]
    assert spec_k("ext-k4", server_facts({"kind": "external"})) == 4 and spec_k("x", server_facts({"k": 6})) == 6


def test_run_k_takes_the_server_facts_else_the_one_bound_the_responses_stated() -> None:
    from specscope.stats.server_spec import run_k

    mtp = server_facts({"recipe": {"method": "mtp", "num_speculative_tokens": 2}})
    assert run_k("mtp", mtp, [{"configured_k": 5}]) == (2, "server facts")
    none = server_facts({})
    assert run_k("x", none, [{"configured_k": 4}, None, {"configured_k": 4}]) == (4, "responses")
    assert run_k("x", none, [{"configured_k": 4}, {"configured_k": 5}]) == (None, "unknown")  # two bounds: not one k
    assert run_k("x", none, []) == (None, "unknown")


def test_llamacpp_draft_model_adds_one_draft_pass_per_step() -> None:
    """llama.cpp's draft-simple mirrors each verify batch on its draft (one pass) before drafting k tokens; n-gram
    drafting reads no weights and vLLM's drafters consume the verified tokens in their first drafting pass."""
    from specscope.stats.server_spec import draft_passes_per_step

    draft = {"draft": {"quant": "Q4_0"}, "config": {"spec_types": ["draft-simple"], "draft_n_max_tokens": 4}}
    assert draft_passes_per_step(server_facts(draft)) == 1.0
    assert draft_passes_per_step(server_facts({"config": {"spec_types": ["ngram-mod"]}})) == 0.0
    assert draft_passes_per_step(server_facts({"recipe": {"method": "mtp", "num_speculative_tokens": 3}})) == 0.0
    draft_model = {"recipe": {"method": "draft_model", "num_speculative_tokens": 3}}
    assert draft_passes_per_step(server_facts(draft_model)) == 0.0
    assert draft_passes_per_step(server_facts({"kind": "external"})) == 0.0
