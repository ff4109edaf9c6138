"""``bench --dry-run``: read the workloads exactly as a run reads them and say what each would send, without a server.

The run's own checks run first (:func:`specscope.bench.workloads.check_sources`: a malformed file, a row that is no
workload without ``--drop-bad-rows``, conversations on an endpoint or at a rate that cannot send them), so a file the
run would refuse is refused here with the same one-line error (exit 2). Then, per workload: where it comes from (a
``--workload`` file, a ``--dataset`` category, a pack), the census layouts its rows were read as with each one's
source (:mod:`specscope.workload.census`, :mod:`specscope.workload.layout_of`), its row count (and the rows
``--drop-bad-rows`` leaves out), and its first rows: row id, the messages of the first request, the later user turns,
and the output length with where it comes from. The lines a run prints at the start about the rows follow
(:func:`specscope.bench.workload_rows.rows_notice`). Nothing is started, contacted or written.

What a run does later with a server is not done: ``--context-tokens`` extension, the token count of a recorded answer
(named as such), the context-length check.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from specscope.bench.workload_rows import file_refused, rows_notice
from specscope.bench.workloads import base_prompts, check_sources
from specscope.config import BenchOptions
from specscope.textsafe import clip
from specscope.workload.census import CENSUS
from specscope.workload.census_hub import HUB_DATASETS
from specscope.workload.layout_of import OWN_LAYOUT
from specscope.workload.prompt import Prompt, message_text

__all__ = ["FIRST_ROWS", "dry_run", "dry_run_text"]

#: the rows shown per workload
FIRST_ROWS = 3
#: the longest message text shown in the text form (the JSON form holds all of it)
_SHOWN = 200


def dry_run(options: BenchOptions, endpoint: str = "/v1/chat/completions") -> dict[str, Any]:
    """What each workload of ``options`` would send, read as the run reads it (module doc).

    Raises:
        ConfigError: what the run refuses before it starts (:func:`check_sources`).
    """
    from specscope.workload import PACK_NAMES

    check_sources(options, endpoint)
    prompts, _ = base_prompts(options, lambda w: w)
    out: list[dict[str, Any]] = []
    for label, rows in prompts.items():
        entry: dict[str, Any] = {"workload": label, "rows": len(rows)}
        if label in options.workload_files:
            entry["file"] = options.workload_files[label]
            entry["rows_refused"] = len(file_refused(options, label))
            entry["layouts"] = _layouts(rows)
        elif label in PACK_NAMES:
            entry["pack"] = label
        else:
            entry["dataset"] = str(rows[0].meta.get("source", "")) if rows else ""
        entry["first_rows"] = [_row(p, options.max_tokens) for p in rows[:FIRST_ROWS]]
        out.append(entry)
    return {"dry_run": True, "endpoint": endpoint, "workloads": out, "notices": rows_notice(options)}


def _layouts(rows: list[Prompt]) -> list[dict[str, Any]]:
    """The layouts the rows were read as, most rows first: census keys with their tool and source, and the rows."""
    by_key = {lay.key: (lay.tool, lay.source) for lay in CENSUS}
    by_key.update({h.key: ("AIPerf", h.source) for h in HUB_DATASETS})  # a hub dataset's export (mt_bench_prompts)
    seen = Counter((tuple(p.meta.get("layout", ())), str(p.meta.get("own_layout", OWN_LAYOUT))) for p in rows)
    out = []
    for (keys, own), n in seen.most_common():
        census = [{"layout": k, "tool": by_key[k][0], "source": by_key[k][1]} for k in keys if k in by_key]
        out.append({"census": census, "rows": n} if census else {"census": [], "own": own, "rows": n})
    return out


def _row(p: Prompt, default_max_tokens: int) -> dict[str, Any]:
    """One row as a run sends it: its id, the first request's messages, the later user turns, the output length."""
    meta = p.meta
    if "max_tokens" in meta:
        length, source = meta["max_tokens"], str(meta.get("output_length_field", "the row"))
    elif "recorded_answer" in meta:
        length, source = None, "the recorded answer's token count (the server's tokenizer, counted when the run starts)"
    else:
        length, source = default_max_tokens, "--max-tokens"
    row: dict[str, Any] = {"row_id": str(meta.get("row_id", p.prompt_id)), "messages": p.messages}
    if p.follow_ups:
        row["follow_ups"] = list(p.follow_ups)
        row["turns_self_contained"] = bool(meta.get("turns_self_contained"))
    if meta.get("turn_max_tokens"):  # each turn's own output length (None: --max-tokens)
        row["turn_max_tokens"] = [default_max_tokens if v is None else v for v in meta["turn_max_tokens"]]
    if p.follow_up_messages:  # AA-RWLT steps: each sent as recorded, the server's answer discarded
        row["follow_up_messages"] = [list(m) for m in p.follow_up_messages]
    if meta.get("tools"):  # the row's tool definitions, sent in the request body
        row["tools"] = [(t.get("function") or {}).get("name") or t.get("type") for t in meta["tools"]]
    return row | {"max_tokens": length, "max_tokens_from": source}


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def _clip(text: str) -> str:
    """``text`` on one line (``\\n`` for each newline), clipped to :data:`_SHOWN` characters
    (:func:`specscope.textsafe.clip`)."""
    return clip(text.replace("\n", "\\n"), _SHOWN)


def _shown(message: dict[str, Any]) -> str:
    """A message's text, clipped, and the names of the functions its ``tool_calls`` call (a recorded assistant turn
    of ``content: null``)."""
    calls = message.get("tool_calls")
    names = [c.get("function", {}).get("name") for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
    shown = _clip(message_text(message))
    return f"{shown} [tool calls: {', '.join(map(str, names))}]".lstrip() if names else shown


def dry_run_text(doc: dict[str, Any]) -> str:
    """:func:`dry_run`'s result as text lines (message texts longer than 200 characters cut, the rest counted)."""
    lines: list[str] = [f"dry run: nothing sent; requests to {doc['endpoint']}"]
    for w in doc["workloads"]:
        where = w.get("file") or (f"--dataset {w['dataset']}" if "dataset" in w else f"pack {w.get('pack')}")
        refused = f", {w['rows_refused']} refused by --drop-bad-rows" if w.get("rows_refused") else ""
        lines.append(f"workload {w['workload']}: {where}: {_rows(w['rows'])}{refused}")
        for lay in w.get("layouts", []):
            names = "; ".join(f"{c['layout']} ({c['tool']}: {c['source']})" for c in lay["census"]) or lay["own"]
            lines.append(f"  layout ({_rows(lay['rows'])}): {names}")
        for row in w["first_rows"]:
            length = row["max_tokens"] if row["max_tokens"] is not None else "?"
            lines.append(f"  row {row['row_id']}: max_tokens {length} from {row['max_tokens_from']}")
            if row.get("tools"):
                lines.append(f"    tools ({len(row['tools'])}): {', '.join(map(str, row['tools']))}")
            lines += [f"    {m['role']}: {_shown(m)}" for m in row["messages"]]
            alone = " (sent alone)" if row.get("turns_self_contained") else ""
            for k, t in enumerate(row.get("follow_ups", [])):
                recorded = row.get("follow_up_messages", [])[k : k + 1]
                if recorded:  # the step's own history as recorded: its size, then the turn it ends with
                    n, s = len(recorded[0]), "" if len(recorded[0]) == 1 else "s"
                    lines.append(f"    then {n} recorded message{s} (the server's answer discarded), "
                                 f"ending {recorded[0][-1]['role']}: {_clip(t)}")  # fmt: skip
                else:
                    cap = row.get("turn_max_tokens", [])[k + 1 : k + 2]
                    own = f" (max_tokens {cap[0]})" if cap else ""
                    lines.append(f"    then user{alone}{own}: {_clip(t)}")
    lines += doc["notices"]
    return "\n".join(lines) + "\n"
