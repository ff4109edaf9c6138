"""The workload axis of a bench matrix: packs, user files, dataset categories, and their variants.

A cell's ``workload`` is a *label*: the base workload (a pack ``prose``, a user file's name ``mine``, a
dataset category ``speed-bench.coding``) followed by ``@``-separated variant parts, in this order:

* ``@2k``: prompts extended to 2048 input tokens (``--context-tokens``; :mod:`specscope.workload.context`);
* ``@t0.6``: sampling temperature 0.6 (``--temperatures``; absent: ``--temperature`` applies);
* ``@think``: thinking on (``--thinking on|both``; absent: thinking off).

So the store and the cell key stay as they are, and the report groups by label; :func:`parse_label`
gives the parts back for the tables by category, context length and temperature.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from specscope.config import BenchOptions, csv_items
from specscope.errors import ConfigError
from specscope.workload.labels import Variant, parse_label
from specscope.workload.prompt import Prompt

__all__ = [
    "Variant",
    "parse_label",
    "expand_workloads",
    "check_sources",
    "prepare_workloads",
    "sources_manifest",
    "cell_request",
]


def expand_workloads(options: BenchOptions) -> list[str]:
    """Every workload label of the matrix: workloads x contexts x temperatures x thinking."""
    contexts: tuple[int | None, ...] = options.contexts or (None,)
    temps: tuple[float | None, ...] = options.temperatures or (None,)
    thinks = {"off": (False,), "on": (True,), "both": (False, True)}[options.thinking]
    return [Variant(w, c, t, k).label() for w in options.workloads for c in contexts for t in temps for k in thinks]


def _dataset_prompts(options: BenchOptions) -> dict[str, list[Prompt]]:
    from specscope.workload.datasets import load_dataset_prompts

    out: dict[str, list[Prompt]] = {}
    for spec in options.datasets:
        out.update(load_dataset_prompts(spec, options.dataset_path))
    return out


def base_prompts(options: BenchOptions, edit_pack: Any) -> tuple[dict[str, list[Prompt]], dict[str, Prompt]]:
    """Base workload -> its prompts and its warm-up prompt (packs, user files, dataset categories).

    ``edit_pack(workload)`` names the pack behind a pack workload (``edit`` -> ``edit-prefill``).
    """
    from specscope.workload import PACK_NAMES, load_pack, warmup_prompt
    from specscope.workload.userfile import load_prompt_file

    prompts: dict[str, list[Prompt]] = {}
    warm: dict[str, Prompt] = {}
    extra = _dataset_prompts(options) if options.datasets else {}
    for w in options.workloads:
        if w in PACK_NAMES:
            whole = load_pack(edit_pack(w), seed=options.seed)
            prompts[w] = shortest_edit(options, w, whole)
            warm[w] = shortest_edit_warmup(options, w, whole) or warmup_prompt(edit_pack(w), seed=options.seed)
            continue
        if w in options.workload_files:
            prompts[w] = load_prompt_file(w, options.workload_files[w])
        elif w in extra:
            prompts[w] = extra[w]
        else:
            raise ConfigError.unknown("workload", w, [*PACK_NAMES, *options.workload_files, *extra], fix="see --help")
        warm[w] = _warmup(prompts[w][-1])
    return prompts, warm


def _by_length(prompts: list[Prompt]) -> list[Prompt]:
    return sorted(prompts, key=lambda p: (len(p.messages[0]["content"]), p.prompt_id))


def shortest_edit(options: BenchOptions, workload: str, prompts: list[Prompt]) -> list[Prompt]:
    """The ``edit`` pack cut to its ``options.edit_shortest`` shortest prompts (user message characters; at least
    the highest level), in the pack's own order; other workloads, or no ``edit_shortest``, unchanged."""
    if workload != "edit" or options.edit_shortest is None:
        return prompts
    k = max(options.edit_shortest, max(options.levels))
    keep = {p.prompt_id for p in _by_length(prompts)[:k]}
    return [p for p in prompts if p.prompt_id in keep]


def shortest_edit_warmup(options: BenchOptions, workload: str, prompts: list[Prompt]) -> Prompt | None:
    """The warm-up of a cut ``edit`` pack: the next-shortest module (the cut set's shape, never a measured prompt),
    pre-filled like the pack; None when the pack is not cut."""
    cut = shortest_edit(options, workload, prompts)
    if len(cut) == len(prompts):
        return None
    p = _by_length(prompts)[len(cut)]
    return replace(_warmup(p), prefill=p.prefill, expected_output=p.expected_output)


def _warmup(base: Prompt) -> Prompt:
    """A warm-up of a file or dataset prompt's shape that shares no prefix with it."""
    messages = [dict(m) for m in base.messages]
    first = next(i for i, m in enumerate(messages) if m["role"] == "user")
    messages[first]["content"] = "Warm-up request, not measured. " + messages[first]["content"]
    return Prompt(f"{base.workload}-warmup", base.workload, messages, meta={**base.meta, "warmup": True})


def check_sources(options: BenchOptions) -> None:
    """Load every non-pack workload once, so a malformed file or a too-small one fails before the run.

    Raises:
        ConfigError: a malformed line, or fewer distinct prompts than the highest concurrency level.
    """
    from specscope.workload import PACK_NAMES

    if all(w in PACK_NAMES for w in options.workloads):
        return
    prompts, _ = base_prompts(options, lambda w: w)
    top = max(options.levels)
    for name, items in prompts.items():
        if len(items) < top:
            raise ConfigError(
                f"workload {name} has {len(items)} prompts, fewer than the highest level {top}",
                found=len(items),
                expected=f">= {top} distinct prompts (one per concurrent stream)",
                fix=f"add prompts to {name} or pass --max-concurrency up to {len(items)}",
            )


async def prepare_workloads(
    options: BenchOptions, edit_pack: Any, http: Any, server: Any
) -> tuple[dict[str, list[Prompt]], dict[str, Prompt]]:
    """Workload label -> prompts and warm-up prompt; ``@<context>`` labels get prompts extended to length.

    Only the prompts a run can schedule are extended (``max(levels) * repeats``, at most the whole set).
    """
    from specscope.workload.context import ContextBuilder

    base, warm = base_prompts(options, edit_pack)
    packs: dict[str, list[Prompt]] = {}
    warmups: dict[str, Prompt] = {}
    builder = ContextBuilder(http, server.base_url, server.model_name, server.server_kind)
    need = max(options.levels) * options.repeats
    for label in expand_workloads(options):
        v = parse_label(label)
        items, w = base[v.base], warm[v.base]
        if v.context_tokens is not None:
            items = [await builder.extend(p, v.context_tokens, i) for i, p in enumerate(items[:need])]
            w = await builder.extend(w, v.context_tokens, len(items) + 1)
        packs[label], warmups[label] = items, w
    return packs, warmups


def sources_manifest(options: BenchOptions, edit_pack: Any) -> dict[str, Any]:
    """The manifest's ``packs``: workload -> pack manifest, or for a file its path and SHA-256, for a dataset
    category its ``--dataset`` spec and path."""
    from specscope.workload import PACK_NAMES, load_pack, pack_manifest
    from specscope.workload.userfile import file_fingerprint

    out: dict[str, Any] = {}
    for w in options.workloads:
        if w in PACK_NAMES:
            out[w] = pack_manifest(edit_pack(w), seed=options.seed)
            if w == "edit" and options.edit_shortest is not None:
                subset = shortest_edit(options, w, load_pack(edit_pack(w), seed=options.seed))
                out[w] |= {"shortest": len(subset), "prompt_ids": [p.prompt_id for p in subset]}
        elif w in options.workload_files:
            path = options.workload_files[w]
            out[w] = {"name": w, "form": "file", "path": path, "sha256": file_fingerprint(path)}
        else:
            out[w] = {"name": w, "form": "dataset", "datasets": list(options.datasets), "path": options.dataset_path}
    return out


def cell_request(options: BenchOptions, label: str, prompt: Prompt, max_tokens: int) -> dict[str, Any]:
    """Per-cell request settings of ``label``: temperature, thinking, and the prompt's own ``max_tokens``."""
    v = parse_label(label)
    return {
        "temperature": options.temperature if v.temperature is None else v.temperature,
        "thinking": v.thinking,
        "max_tokens": prompt.meta.get("max_tokens", max_tokens) if not prompt.meta.get("warmup") else max_tokens,
    }


def cli_overrides(
    workloads: tuple[str, ...] | None,
    files: list[str] | None,
    datasets: list[str] | None,
    dataset_path: str | None,
    contexts: str | None = None,
    temperatures: str | None = None,
) -> dict[str, Any]:
    """``profile_options`` overrides from ``bench``'s workload options (None: not given).

    With ``--workload``/``--dataset`` and no ``--workloads``, the matrix's workloads are the files' names
    and the datasets' categories only; with ``--workloads`` too, those packs come first.

    Raises:
        ConfigError: a bad spec, a missing file, a malformed dataset, a bad context or temperature.
    """
    from specscope.workload.context import parse_context
    from specscope.workload.datasets import load_dataset_prompts, parse_dataset_spec
    from specscope.workload.userfile import parse_workload_specs

    out: dict[str, Any] = {}
    file_map = parse_workload_specs(list(files or []))
    specs = [parse_dataset_spec(d) for d in datasets or []]
    names = list(file_map)
    for name, config in specs:
        spec = f"{name}:{config}" if config else name
        names.extend(load_dataset_prompts(spec, dataset_path))
    if names:
        out["workloads"] = (*(workloads or ()), *names)
        out["workload_files"] = file_map
        out["datasets"] = tuple(f"{n}:{c}" if c else n for n, c in specs)
        out["dataset_path"] = None if dataset_path is None else str(dataset_path)
    elif workloads:
        out["workloads"] = workloads
    if contexts:
        out["contexts"] = tuple(parse_context(c) for c in csv_items(contexts, "--context-tokens", "4k,32k"))
    if temperatures:
        try:
            out["temperatures"] = tuple(float(t) for t in csv_items(temperatures, "--temperatures", "0,0.6"))
        except ValueError:
            raise ConfigError(
                "--temperatures takes numbers", found=temperatures, expected="e.g. 0,0.6,1.0", fix="fix the list"
            ) from None
    return out
