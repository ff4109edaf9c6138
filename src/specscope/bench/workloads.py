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
from specscope.workload.prompt import Prompt, message_text

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


def dataset_loads(options: BenchOptions) -> list[Any]:
    """Every ``--dataset`` of the run read (:class:`specscope.workload.datasets.DatasetLoad`, cached per file)."""
    from specscope.workload.datasets import load_dataset

    return [load_dataset(s, options.dataset_path, drop_bad_rows=options.drop_bad_rows) for s in options.datasets]


def _dataset_prompts(options: BenchOptions) -> dict[str, list[Prompt]]:
    """Dataset workload -> prompts; a SPEED-Bench throughput tier's workloads are keyed ``NAME@<tier>k`` (the label
    of that context), so :func:`prepare_workloads` takes them as they are instead of extending prompts."""
    out: dict[str, list[Prompt]] = {}
    for load in dataset_loads(options):
        for w, items in load.workloads.items():
            out[w if load.tier_k is None else f"{w}@{load.tier_k}k"] = items
    return out


def check_tiers(options: BenchOptions) -> None:
    """Refuse throughput tiers that are not the run's context axis (each ``--context-tokens`` must be a loaded tier and
    each loaded tier a ``--context-tokens``), before anything is sent.

    Raises:
        ConfigError: the tiers and the contexts differ.
    """
    from specscope.workload.context import context_label
    from specscope.workload.dataset_defs import tier_of
    from specscope.workload.datasets import parse_dataset_spec

    tiers = sorted({k for k in (tier_of(parse_dataset_spec(d).config) for d in options.datasets) if k is not None})
    if not tiers:
        return
    wanted = sorted(options.contexts)
    if wanted != [k * 1024 for k in tiers]:
        have = ", ".join(f"{k}k" for k in tiers)
        raise ConfigError(
            "SPEED-Bench throughput tiers do not match the requested context axis",
            found=f"tiers {have}, --context-tokens {', '.join(context_label(c) for c in wanted) or '(none)'}",
            expected="--context-tokens equal to the tiers of the throughput configs given (their prompts are not "
            "extended)",
            fix=f"pass --context-tokens {','.join(f'{k}k' for k in tiers)}, or a --dataset "
            "speed-bench:throughput_<tier> for each context",
        )


def base_prompts(options: BenchOptions, edit_pack: Any) -> tuple[dict[str, list[Prompt]], dict[str, Prompt]]:
    """Base workload -> its prompts and its warm-up prompt (packs, user files, dataset categories).

    ``edit_pack(workload)`` names the pack behind a pack workload (``edit`` -> ``edit-prefill``).
    """
    from specscope.workload import PACK_NAMES, load_pack, warmup_prompt
    from specscope.workload.userfile import load_prompt_rows

    prompts: dict[str, list[Prompt]] = {}
    warm: dict[str, Prompt] = {}
    extra = _dataset_prompts(options) if options.datasets else {}
    for w in options.workloads:
        if options.trace and w == "trace":
            continue  # built with the server's tokenizer (prepare_workloads)
        if w in PACK_NAMES:
            whole = load_pack(edit_pack(w), seed=options.seed)
            prompts[w] = shortest_edit(options, w, whole)
            warm[w] = shortest_edit_warmup(options, w, whole) or warmup_prompt(edit_pack(w), seed=options.seed)
            continue
        if w in options.workload_files:
            prompts[w] = load_prompt_rows(w, options.workload_files[w], drop_bad_rows=options.drop_bad_rows)[0]
            warm[w] = _warmup(prompts[w][-1])
            continue
        keys = [k for k in extra if k == w or k.startswith(w + "@")]
        if not keys:
            names = [*PACK_NAMES, *options.workload_files, *extra]
            raise ConfigError.invalid_value(
                "--workloads",
                w,
                f"one of {', '.join(names)}",
                choices=names,
                fix=f"name one of those in --workloads, or add your own prompts: --workload {w}=FILE",
            )
        for k in keys:
            prompts[k], warm[k] = extra[k], _warmup(extra[k][-1])
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
    """A warm-up of a file or dataset prompt's shape (its first turn only) that shares no prefix with it."""
    messages = [dict(m) for m in base.messages]
    first = next(i for i, m in enumerate(messages) if m["role"] == "user")
    messages[first]["content"] = "Warm-up request, not measured. " + message_text(messages[first])
    return Prompt(f"{base.workload}-warmup", base.workload, messages, meta={**base.meta, "warmup": True})


def check_sources(options: BenchOptions, endpoint: str = "/v1/chat/completions") -> None:
    """Load every non-pack workload once, so a malformed file or a too-small one fails before the run.

    Args:
        endpoint: the API the run sends to (``--endpoint``): conversations go only where
            :func:`specscope.adapters.openai.endpoints.conversations_refusal` allows them.

    Raises:
        ConfigError: a malformed line, throughput tiers that are not the context axis, or conversations with
            ``--request-rate`` or on an endpoint that takes one prompt per request (``--endpoint /v1/completions``).
    """
    from specscope.adapters.openai.endpoints import conversations_refusal
    from specscope.workload import PACK_NAMES

    check_tiers(options)
    if options.trace:
        from specscope.workload.trace import load_trace

        load_trace(options.trace)  # a malformed row fails here, before the run folder exists
        if options.rates or options.datasets or options.workload_files:
            raise ConfigError(
                "--trace replays its own load",
                found="--trace with --request-rate, --dataset or --workload",
                expected="--trace alone (its rows are the workload and its clock the rate)",
                fix="run the trace and the other workloads as separate runs",
            )
        return
    if all(w in PACK_NAMES for w in options.workloads):
        return
    prompts, _ = base_prompts(options, lambda w: w)
    multi = sorted(w for w, items in prompts.items() if any(p.follow_ups for p in items))
    chat_only = conversations_refusal(endpoint) if multi else None
    if chat_only is not None:
        raise ConfigError(
            f"multi-turn workloads cannot be sent on {endpoint}",
            found=f"multi-turn rows in {', '.join(multi[:3])}",
            expected=chat_only,
            fix=f"drop --endpoint {endpoint} for these workloads, or run single-turn workloads on it",
        )
    if options.rates and multi:
        raise ConfigError(
            "open-loop rates cannot send conversations",
            found=f"multi-turn rows in {', '.join(multi[:3])}",
            expected="single-turn workloads with --request-rate (a turn waits for the answer before it, not for the "
            "clock)",
            fix="pass --max-concurrency instead of --request-rate for these workloads",
        )
    # no size check: every row is sent once per repeat, at most `level` at a time or at the rate (cell_prompts)


async def prepare_workloads(
    options: BenchOptions, edit_pack: Any, http: Any, server: Any
) -> tuple[dict[str, list[Prompt]], dict[str, Prompt], dict[str, Any]]:
    """Workload label -> prompts and warm-up prompt, and manifest fields learnt on the way; ``@<context>`` labels
    get prompts extended to length, a trace gets its text, dataset rows longer than the server's context are refused
    (:func:`specscope.bench.context_check.refuse_too_long`) before anything is sent.

    Only the prompts a run can send are extended: a pack's ``max(levels) * repeats``, every row of a file or
    dataset (:func:`cell_prompts`). The manifest's ``packs`` get each file and dataset workload's row counts after
    the context check (:func:`rows_manifest`).
    """
    from specscope.bench.context_check import refuse_too_long
    from specscope.workload import PACK_NAMES
    from specscope.workload.context import ContextBuilder, context_label

    base, warm = base_prompts(options, edit_pack)
    packs: dict[str, list[Prompt]] = {}
    warmups: dict[str, Prompt] = {}
    builder = ContextBuilder(http, server.base_url, server.model_name, server.server_kind)
    notes: dict[str, Any] = {}
    answered: dict[str, Any] = {}
    if options.workload_files:  # rows ending with a recorded answer: its token count is their max_tokens
        from specscope.bench.answer_lengths import answer_lengths

        base, answered = await answer_lengths(base, list(options.workload_files), builder)
    if options.trace:
        from specscope.workload.trace import load_trace
        from specscope.workload.trace_prompts import trace_prompts

        t = load_trace(options.trace)
        items, made = await trace_prompts(t, builder, options.trace_rows)
        base["trace"], warm["trace"] = items, _warmup(items[0])
        notes["trace"] = {**t.provenance(options.trace_scale, options.trace_rows), **made}
    need = max(options.levels) * options.repeats
    for label in expand_workloads(options):
        v = parse_label(label)
        tier = None if v.context_tokens is None else f"{v.base}@{context_label(v.context_tokens)}"
        if tier in base:  # a SPEED-Bench throughput tier: its prompts are already that long
            packs[label], warmups[label] = base[tier], warm[tier]
            continue
        items, w = base[v.base], warm[v.base]
        if v.context_tokens is not None:
            some = items[:need] if v.base in PACK_NAMES else items
            items = [await builder.extend(p, v.context_tokens, i) for i, p in enumerate(some)]
            w = await builder.extend(w, v.context_tokens, len(items) + 1)
        packs[label], warmups[label] = items, w
    if options.datasets or options.trace:
        checked = await refuse_too_long(options, packs, builder)
        check, refused = checked.pop("trace_check"), checked.pop("trace_refused")
        if "trace" in notes:
            file_refused = list(notes["trace"].get("rows_refused") or [])  # rows the file itself refused (output 0)
            notes["trace"] |= {"context_check": check, "rows_refused": [*file_refused, *refused]}
        notes |= checked
    if not options.trace and any(w not in PACK_NAMES for w in options.workloads):
        notes["packs"] = sources_manifest(options, edit_pack, packs)
        for name, how in answered.items():
            notes["packs"][name]["recorded_answers"] = how
        if options.datasets:
            notes["datasets"] = datasets_manifest(options, notes.get("datasets"), notes["packs"])
    return packs, warmups, notes


def sources_manifest(
    options: BenchOptions, edit_pack: Any, prepared: dict[str, list[Prompt]] | None = None
) -> dict[str, Any]:
    """The manifest's ``packs``: workload -> pack manifest, or for a file its path and SHA-256, for a dataset
    category its ``--dataset`` spec and path; a file or dataset workload also gets its row counts
    (:func:`rows_manifest`, from ``prepared``, the labels' prompts after the context check, else as read)."""
    from specscope.bench.workload_rows import rows_manifest
    from specscope.workload import PACK_NAMES, load_pack, pack_manifest
    from specscope.workload.userfile import file_fingerprint

    rows = rows_manifest(options, prepared)

    out: dict[str, Any] = {}
    for w in options.workloads:
        if w in PACK_NAMES:
            out[w] = pack_manifest(edit_pack(w), seed=options.seed)
            if w == "edit" and options.edit_shortest is not None:
                subset = shortest_edit(options, w, load_pack(edit_pack(w), seed=options.seed))
                out[w] |= {"shortest": len(subset), "prompt_ids": [p.prompt_id for p in subset]}
        elif options.trace and w == "trace":
            out[w] = {"name": w, "form": "trace", "path": options.trace}
        elif w in options.workload_files:
            path = options.workload_files[w]
            out[w] = {"name": w, "form": "file", "path": path, "sha256": file_fingerprint(path)}
        else:
            out[w] = {"name": w, "form": "dataset", "datasets": list(options.datasets), "path": options.dataset_path}
        out[w] |= rows.get(w, {})
    return out


def datasets_manifest(
    options: BenchOptions, entries: list[dict[str, Any]] | None = None, packs: dict[str, Any] | None = None
) -> list[dict[str, Any]] | None:
    """The manifest's ``datasets``: each ``--dataset``'s provenance (``entries``: as the context check left it) with
    ``rows_sent_per_repeat`` and ``rows_skipped``, summed over its categories' row counts (``packs``: the manifest's
    ``packs``, else :func:`rows_manifest`); None without datasets."""
    if not options.datasets:
        return None
    loads = dataset_loads(options)
    out = entries or [{"spec": load.spec.label(), **load.provenance} for load in loads]
    from specscope.bench.workload_rows import rows_manifest

    counts = packs if packs is not None else rows_manifest(options)
    for entry, load in zip(out, loads, strict=True):
        mine = [counts[w] for w in load.workloads if w in counts and "rows_sent_per_repeat" in counts[w]]
        entry["rows_sent_per_repeat"] = sum(c["rows_sent_per_repeat"] for c in mine)
        entry["rows_skipped"] = sum(c["rows_skipped"] for c in mine)
    return out


def cell_request(options: BenchOptions, label: str, prompt: Prompt, max_tokens: int) -> dict[str, Any]:
    """Per-cell request settings of ``label``: temperature, thinking, and the prompt's own ``max_tokens``."""
    v = parse_label(label)
    warmup = bool(prompt.meta.get("warmup"))
    return {
        "temperature": options.temperature if v.temperature is None else v.temperature,
        "thinking": v.thinking,
        "max_tokens": prompt.meta.get("max_tokens", max_tokens) if not warmup else max_tokens,
        "ignore_eos": bool(prompt.meta.get("ignore_eos")) and not warmup,
    }


def cli_overrides(
    workloads: tuple[str, ...] | None,
    files: list[str] | None,
    datasets: list[str] | None,
    dataset_path: str | None,
    contexts: str | None = None,
    temperatures: str | None = None,
    drop_bad_rows: bool = False,
) -> dict[str, Any]:
    """``profile_options`` overrides from ``bench``'s workload options (None: not given).

    With ``--workload``/``--dataset`` and no ``--workloads``, the matrix's workloads are the files' names
    and the datasets' categories only; with ``--workloads`` too, those packs come first. SPEED-Bench throughput
    configs give the context axis (their tiers) when ``--context-tokens`` is not given.

    Raises:
        ConfigError: a bad spec, a missing file, a malformed dataset (or, without ``drop_bad_rows``, a row that is
            not a workload), a bad context or temperature, tiers that do not match ``--context-tokens``.
    """
    from specscope.workload.context import parse_context
    from specscope.workload.datasets import load_dataset, parse_dataset_spec
    from specscope.workload.userfile import parse_workload_specs

    out: dict[str, Any] = {}
    file_map = parse_workload_specs(list(files or []))
    specs = [parse_dataset_spec(d) for d in datasets or []]
    names = list(file_map)
    tiers: list[int] = []
    for spec in specs:
        load = load_dataset(spec, dataset_path, drop_bad_rows=drop_bad_rows)
        names.extend(w for w in load.workloads if w not in names)
        tiers += [] if load.tier_k is None else [load.tier_k * 1024]
    if names:
        out["workloads"] = (*(workloads or ()), *names)
        out["workload_files"] = file_map
        out["datasets"] = tuple(s.label() for s in specs)
        out["dataset_path"] = None if dataset_path is None else str(dataset_path)
        out["drop_bad_rows"] = drop_bad_rows
    elif workloads:
        out["workloads"] = workloads
    if contexts:
        out["contexts"] = tuple(parse_context(c) for c in csv_items(contexts, "--context-tokens", "4k,32k"))
    elif tiers:
        out["contexts"] = tuple(sorted(set(tiers)))
    if temperatures:
        try:
            out["temperatures"] = tuple(float(t) for t in csv_items(temperatures, "--temperatures", "0,0.6"))
        except ValueError:
            raise ConfigError(
                "--temperatures takes numbers", found=temperatures, expected="e.g. 0,0.6,1.0", fix="fix the list"
            ) from None
    return out
