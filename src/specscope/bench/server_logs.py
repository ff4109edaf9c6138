"""``bench --server NAME=URL --server-log NAME=FILE``: log facts for servers specscope did not launch.

The captured log is parsed (:func:`specscope.launch.serverlog.server_log_facts`) and merged into that config's server
facts in the run, in the same ``log_facts`` shape a launched vLLM records, so the report's KV table, capacity and
failure signatures cover external servers too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from specscope.launch.serverlog import loaded_vs_census, merge_server_logs
from specscope.store import open_run

__all__ = ["attach_server_logs", "server_log_lines"]

WARNINGS_SAID = 5  # warnings of one log printed by bench; the rest are counted (all are stored)


def server_log_lines(server_facts: dict[str, dict[str, Any]]) -> list[str]:
    """One line per engine pool of each config's captured log (``log_pools`` of
    :func:`specscope.launch.serverlog.server_log_facts`): its pooled counts, the alarm and the counts that contradict
    each other (``INCONSISTENT ACCEPTED_OVER_DRAFTED(line 2: ...)``), then its warnings (``LOG_LINE_UNREADABLE``...)
    one ``warning:`` line each, as ``bench`` says them."""
    out = []
    for name, facts in server_facts.items():
        for pool in facts.get("log_pools") or []:
            rate = pool.get("acceptance_rate")
            steps = pool.get("verify_steps")
            counted = (
                f"{pool['draft_tokens']:,} drafted, {pool['accepted_tokens']:,} accepted ({rate:.1%}) over "
                + (f"{steps:,} verify steps" if steps is not None else f">= {pool['verify_steps_at_least']:,} steps")
                if pool.get("draft_tokens") is not None and rate is not None
                else "no counts printed"
            )
            bound = pool.get("acceptance_rate_at_most")
            if bound is not None and rate is None:  # windows without counts: the bound they allow (launch/logpool.py)
                counted += (
                    f"; at most {bound:.1%} of drafted tokens accepted over >= {pool['verify_steps_at_least']:,} "
                    "verify steps"
                )
            alarm = f"; ALARM {pool['alarm']}" if pool.get("alarm") else ""
            # the consistency rules counters applies, each statistic's (launch/logpool.py): as serve --parse-log says
            alarm += "".join(f"; INCONSISTENT {r}" for r in pool.get("inconsistencies") or [])
            out.append(f"server log {name} ({pool['engine']}: {', '.join(pool['forms'])}): {counted}{alarm}")
            out += _warning_lines(name, pool.get("warnings") or [])
    return out


def _warning_lines(name: str, warnings: list[str]) -> list[str]:
    """One ``warning:`` line per warning of a log pool (``LOG_LINE_UNREADABLE(line N: ...)`` and the others the
    reading names), the first :data:`WARNINGS_SAID` of them, then how many more the run stores."""
    said = [f"warning: server log {name}: {w}" for w in warnings[:WARNINGS_SAID]]
    more = len(warnings) - WARNINGS_SAID
    if more > 0:
        said.append(
            f"warning: server log {name}: {more} more warning{'s' if more != 1 else ''} of this log (stored in the run)"
        )
    return said


def attach_server_logs(run_dir: Path, logs: dict[str, Path], preflight: dict[str, Any] | None = None) -> list[str]:
    """Merge the facts of each config's captured log into the run's server facts (config name -> log file), and
    record the pre-flight outcome of launched recipes (``--no-preflight`` included) in the manifest, with
    "Model loading took X GiB" against the audit's census per config where both are known. Returns
    :func:`server_log_lines` of the logs attached (empty without any)."""
    if not logs and not preflight:
        return []
    run = open_run(run_dir, writable=True)
    try:
        if preflight:
            run.update_manifest(preflight=preflight)
        stored = {name: dict(facts.stored) for name, facts in run.server_facts.items()}
        merged = merge_server_logs(stored, {name: path.resolve() for name, path in logs.items()})
        for name in logs:
            run.save_server_facts(name, merged[name])
        for name, checked in (preflight or {}).items():  # "Model loading took X GiB" vs the audit's census
            facts = merged.get(name) or {}
            loaded = (facts.get("log_facts") or {}).get("weights_loaded_gib")
            compared = loaded_vs_census(loaded, checked.get("census_bytes"))
            if compared is not None:
                run.save_server_facts(name, {**facts, "loaded_vs_census": compared})
    finally:
        run.close()
    return server_log_lines({name: merged[name] for name in logs})
