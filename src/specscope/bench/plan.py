"""Cell order of a bench run: :mod:`specscope.bench.order` (interleaved configs, or counterbalanced blocks
with baseline sentinels when servers launch one at a time), and the check of the names a run uses.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from specscope.bench.order import Design, blocks_plan, interleaved_plan, server_config
from specscope.bench.targets import embedded_config_names, recipe_names
from specscope.config import BenchOptions
from specscope.errors import ConfigError
from specscope.kaxis import K_MAX, split_k_name
from specscope.records import CellKey

__all__ = ["plan_cells", "design_of", "check_names", "EMBEDDED_MAX_PARALLEL"]

EMBEDDED_MAX_PARALLEL = 256  # the embedded engine's slot limit (specscope.engine.EngineConfig.n_parallel)


def plan_cells(options: BenchOptions, design: Design = "interleaved") -> list[CellKey]:
    """Every cell of the matrix, in the order they are run (deterministic for given options)."""
    return interleaved_plan(options) if design == "interleaved" else blocks_plan(options)


def design_of(servers: dict[str, str] | None, engine: str, order: str = "auto") -> Design:
    """``order`` when forced; else ``blocks`` when servers launch one at a time (``--launch vllm``), else
    ``interleaved``."""
    if order in ("interleaved", "blocks"):
        return "blocks" if order == "blocks" else "interleaved"
    return "blocks" if not servers and engine == "vllm" else "interleaved"


def check_names(options: BenchOptions, servers: dict[str, str] | None, engine: str, recipes: Path | None) -> None:
    """Refuse unknown workload / config names, a baseline outside the configs, or too many embedded streams.

    Raises:
        ConfigError: naming the first unknown name and the known ones.
    """
    from specscope.workload import PACK_NAMES

    sourced = (*options.workload_files, *(w for w in options.workloads if "." in w and options.datasets))
    sourced += ("trace",) if options.trace else ()
    unknown_w = [w for w in options.workloads if w not in PACK_NAMES and w not in sourced]
    if unknown_w:
        raise ConfigError.invalid_value(
            "--workloads",
            ",".join(unknown_w),
            f"one of {', '.join(PACK_NAMES)}",
            choices=PACK_NAMES,
            fix="e.g. --workloads prose,code,edit",
        )
    if servers:
        known = tuple(servers)
        fix = "name each server's config with --server NAME=URL"
    elif engine == "vllm":
        known = recipe_names(recipes)
        fix = "pick recipes from `specscope serve --list`, or pass --recipes FILE"
    else:
        known = embedded_config_names()
        fix = f"pass configs the embedded engine has ({', '.join(known)}), or --server URL for your own server"
    unknown_c = [c for c in options.run_configs() if c not in known and split_k_name(server_config(c))[0] not in known]
    if not servers and engine == "embedded" and max(options.levels) > EMBEDDED_MAX_PARALLEL:
        raise ConfigError(
            "concurrency level too high for the embedded engine",
            found=max(options.levels),
            expected=f"at most {EMBEDDED_MAX_PARALLEL} streams (llama.cpp slots)",
            fix=f"pass --max-concurrency up to {EMBEDDED_MAX_PARALLEL}, or --server URL for a bigger server",
        )
    if options.baseline is not None and options.baseline not in options.configs:
        raise ConfigError(
            f"baseline {options.baseline!r} is not among the configs",
            found=options.baseline,
            expected=f"one of {', '.join(options.configs)}",
        )
    if unknown_c:
        drafts = "" if servers else f", or a speculative one's NAME-kK with K from 1 to {K_MAX} (a draft length)"
        expected = f"one of {', '.join(known)}{drafts}"
        raise ConfigError.invalid_value("--configs", ",".join(unknown_c), expected, choices=known, fix=fix)
    if not servers:  # each config as its server would start it: a -kK its base cannot run is refused here, before
        _resolve_all(options, engine == "embedded", recipes)  # the run folder is made (refused at its server's start)


def _resolve_all(options: BenchOptions, embedded: bool, recipes: Path | None) -> None:
    """Resolve every config of ``options`` as its launched server would (the embedded engine's config, the
    recipe), so a name the engine refuses (``synth-k2``: synth has 3 synthetic rates) is refused before a run.

    Raises:
        ConfigError: the engine's or the recipe book's refusal.
    """
    if embedded:
        from specscope.engine import get_config

        resolve: Callable[[str], object] = get_config
    else:  # launched recipes
        from specscope.launch.recipes import load_recipes

        resolve = load_recipes(recipes).get
    for name in dict.fromkeys(server_config(c) for c in options.run_configs()):
        resolve(name)
