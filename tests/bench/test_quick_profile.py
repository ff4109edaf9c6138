"""The quick profile's shorter edit file set when edit is asked for: the edit pack cut to its shortest modules (pure
data)."""

from __future__ import annotations

from specscope.bench.cell import pack_name
from specscope.bench.workloads import base_prompts, sources_manifest
from specscope.config import profile_options
from specscope.workload import load_pack, warmup_prompt


def chars(p) -> int:
    return len(p.messages[0]["content"])


def test_quick_profile_sends_the_four_shortest_edit_modules_in_pack_order():
    quick = profile_options("quick")
    assert (quick.edit_shortest, quick.max_tokens, quick.aa, quick.repeats, quick.levels) == (4, 48, True, 4, (1,))
    assert "edit" not in quick.workloads  # prefill-bound on the embedded engine: asked for with --workloads
    o = profile_options("quick", workloads=("prose", "code", "edit"))
    prompts, warm = base_prompts(o, lambda w: pack_name(w, o.edit_form))
    edit = prompts["edit"]
    assert [p.prompt_id for p in edit] == [
        "edit-prefill-056",
        "edit-prefill-051",
        "edit-prefill-031",
        "edit-prefill-021",
    ]
    assert [chars(p) for p in edit] == [1876, 1850, 1955, 1926]
    whole = load_pack("edit-prefill", seed=0)
    assert sorted(chars(p) for p in whole)[:4] == sorted(chars(p) for p in edit)  # no shorter module was left out
    assert [p.prompt_id for p in whole if p in edit] == [p.prompt_id for p in edit]  # the pack's own order
    assert len(prompts["prose"]) == len(prompts["code"]) == 64  # only edit is cut
    # the cold-start warm-up has the cut set's shape: the 5th-shortest module, pre-filled, never a measured prompt
    fifth = sorted(whole, key=chars)[4]
    assert (warm["edit"].prompt_id, warm["edit"].prefill, chars(warm["edit"])) == (
        "edit-prefill-warmup",
        fifth.prefill,
        len("Warm-up request, not measured. ") + chars(fifth),
    )
    assert warm["edit"].meta["warmup"] is True and fifth.prompt_id == "edit-prefill-030"
    manifest = sources_manifest(o, lambda w: pack_name(w, o.edit_form))["edit"]
    assert (manifest["shortest"], manifest["prompt_ids"]) == (4, [p.prompt_id for p in edit])


def test_the_cut_keeps_at_least_the_highest_level_and_card_keeps_every_module():
    o = profile_options("quick", levels=(1, 2, 6), workloads=("edit",))
    prompts, _ = base_prompts(o, lambda w: pack_name(w, o.edit_form))
    assert len(prompts["edit"]) == 6  # one distinct prompt per stream at N=6
    card = profile_options("card")
    assert card.edit_shortest is None
    prompts, warm = base_prompts(card.model_copy(update={"workloads": ("edit",)}), lambda w: pack_name(w, "prefill"))
    assert len(prompts["edit"]) == 64
    assert warm["edit"] == warmup_prompt("edit-prefill", seed=0)  # the whole pack's own warm-up
