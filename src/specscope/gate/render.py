"""Show a gate run: a pass/fail table per config like seed 002's P2 gate table, the thinking-termination
table (thinking tokens and finish reason per probe), the base-vs-speculative comparison, and a plain
one-line summary. Rich tables for the terminal, Markdown for reports. Display-only: no numbers computed here
beyond counts.
"""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from specscope.gate.model import GATES, GateRun, GateVerdict

__all__ = ["summary_line", "render_gate_table", "render_thinking_table", "render_gate_markdown"]

_LABELS = {
    "thinking": "Thinking termination",
    "arithmetic": "Arithmetic word problems",
    "code": "Code (tests in a sandbox)",
    "tool_call": "JSON tool call",
    "long_context": "Long-context retrieval",
    "repetition": "Repetition",
    "compare": "Base vs speculative",
}


def summary_line(run: GateRun) -> str:
    """One plain sentence: did the deployment pass, and which gates failed where."""
    if not run.verdicts:
        return "NO GATES RAN: nothing was checked."
    failed = [v for v in run.verdicts if not v.passed]
    unjudged = [v for v in run.verdicts if v.metrics.get("judged") is False]
    if not failed:
        judged = len(run.verdicts) - len(unjudged)
        line = f"PASSED: all {judged} gate checks passed." if judged else "NOTHING JUDGED:"
        if unjudged:
            names = ", ".join(f"{v.gate} on {v.config}" for v in unjudged)
            line += f" {names} not judged (sampled at temperature > 0)."
        return line
    names = ", ".join(f"{v.gate} on {v.config}" for v in failed)
    line = (
        f"FAILED: {len(failed)} of {len(run.verdicts)} gate checks failed ({names}). "
        "Do not trust this deployment's speed numbers until these pass."
    )
    cols = _columns(run)
    if len(cols) >= 2:
        base = cols[0]
        on_base = sorted({v.gate for v in failed if v.config == base})
        if on_base:
            line += (
                f" {', '.join(on_base)} also fail{'s' if len(on_base) == 1 else ''} on the baseline {base!r}: "
                "that is the model's own capability, not something speculation broke."
            )
        spec_only = sorted({v.gate for v in failed if v.config not in (base,) and v.gate != "compare"} - set(on_base))
        if spec_only:
            line += f" Failing only with speculation: {', '.join(spec_only)}."
    return line


def _columns(run: GateRun) -> list[str]:
    return [c["name"] for c in run.configs] or list(
        dict.fromkeys(v.config for v in run.verdicts if v.gate != "compare")
    )


def _word(v: GateVerdict) -> str:
    return "NOT JUDGED" if v.metrics.get("judged") is False else "PASS" if v.passed else "FAIL"


def _cell(v: GateVerdict) -> str:
    return f"{'PASS' if v.passed else 'FAIL'} {v.passed_probes}/{v.total_probes}"


def render_gate_table(run: GateRun) -> Table:
    """Rows = gates, columns = configs; each cell ``PASS 8/8`` or ``FAIL 3/8``; the compare rows name the pair."""
    cols = _columns(run)
    table = Table(title="Quality gates", caption=summary_line(run))
    table.add_column("Gate", overflow="fold")  # every column folds: a value wraps, never cut
    for c in cols:
        table.add_column(c, overflow="fold")
    for gate in GATES:
        if gate == "compare":
            continue
        row = {v.config: v for v in run.verdicts if v.gate == gate}
        if not row:
            continue
        cells = []
        for c in cols:
            v = row.get(c)
            cells.append("-" if v is None else f"[{'green' if v.passed else 'red'}]{_cell(v)}[/]")
        table.add_row(_LABELS[gate], *cells)
    for v in run.verdicts:
        if v.gate == "compare":
            color = "yellow" if v.metrics.get("judged") is False else "green" if v.passed else "red"
            text = f"[{color}]{_word(v)}[/] {escape(v.why)}"  # a token such as '[' or '[request]' is text
            table.add_row(f"{_LABELS['compare']} ({v.config})", text, *[""] * (len(cols) - 1))
    return table


def render_thinking_table(run: GateRun) -> Table:
    """Per thinking probe and config: thinking tokens, closed, finish reason, verdict and why."""
    table = Table(title="Thinking termination")
    for col in ("Config", "Probe", "Thinking tokens", "Closed", "Finish", "Verdict"):
        table.add_column(col, justify="right" if col == "Thinking tokens" else "left", overflow="fold")
    for r in run.results:
        if r.gate != "thinking":
            continue
        tokens = "?" if r.output.reasoning_tokens is None else f"{r.output.reasoning_tokens:,}"
        closed = {True: "yes", False: "no", None: "no thinking"}[r.check.metrics.get("closed")]
        verdict = "[green]pass[/]" if r.check.passed else f"[red]fail[/]: {r.check.why}"
        table.add_row(r.config, r.probe_id, tokens, closed, str(r.output.finish_reason), verdict)
    return table


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def render_gate_markdown(run: GateRun) -> str:
    """The gate run as Markdown: summary, gate table, thinking table, comparisons, failing probes."""
    cols = _columns(run)
    lines = ["# Quality gates", "", f"**{summary_line(run)}**", ""]
    lines += ["| Gate | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for gate in GATES:
        if gate == "compare":
            continue
        row = {v.config: v for v in run.verdicts if v.gate == gate}
        if row:
            lines.append(f"| {_LABELS[gate]} | " + " | ".join(_cell(row[c]) if c in row else "-" for c in cols) + " |")
    comps = [v for v in run.verdicts if v.gate == "compare"]
    if comps:
        lines += ["", "## Base vs speculative", "", "| Pair | Verdict | Detail |", "|---|---|---|"]
        lines += [f"| {v.config} | {_word(v)} | {_md_escape(v.why)} |" for v in comps]
        lines += [
            "",
            "| Probe | Pair | Identical | First divergence | Base answer | Spec answer | Expected |",
            "|---|---|---|---:|---:|---:|---:|",
        ]
        for c in run.comparisons:
            div = "-" if c.first_divergence is None else f"{c.unit[:-1]} {c.first_divergence}"
            lines.append(
                f"| {c.probe_id} | {c.base_config} vs {c.spec_config} | {'yes' if c.identical else 'no'} | "
                f"{div} | {c.base_answer or '-'} | {c.spec_answer or '-'} | {c.expected_answer or '-'} |"
            )
    thinking = [r for r in run.results if r.gate == "thinking"]
    if thinking:
        lines += [
            "",
            "## Thinking termination",
            "",
            "| Config | Probe | Thinking tokens | Finish | Verdict |",
            "|---|---|---:|---|---|",
        ]
        for r in thinking:
            tokens = "?" if r.output.reasoning_tokens is None else f"{r.output.reasoning_tokens:,}"
            verdict = "pass" if r.check.passed else f"fail: {_md_escape(r.check.why)}"
            lines.append(f"| {r.config} | {r.probe_id} | {tokens} | {r.output.finish_reason} | {verdict} |")
    failing = [r for r in run.results if not r.check.passed and r.gate != "compare"]
    if failing:
        lines += ["", "## Failing probes", ""]
        lines += [f"- `{r.config}` / `{r.probe_id}`: {_md_escape(r.check.why)}" for r in failing]
    return "\n".join(lines) + "\n"
