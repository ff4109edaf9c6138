"""Every column name docs/cli.md says ``advise --from-csv`` reads (generated from ``stats/csv_cells.SYNONYMS``),
reached through the command: a two-round table written with that name in its column's place is advised (the same
1.79x pick as with the canonical names) and the note names the column as read."""

from __future__ import annotations

from pathlib import Path

import pytest

from clirun import cli
from specscope.stats.csv_cells import SYNONYMS

COLUMNS = ["config", "workload", "concurrency", "repeat", "output_tok_s", "acceptance", "acceptance_length"]
ROWS = ["base,prose,1,0,50,,", "mtp,prose,1,0,90,0.72,2.5", "base,prose,1,1,51,,", "mtp,prose,1,1,91,0.71,2.4"]


@pytest.mark.parametrize("name", sorted(SYNONYMS))
def test_advise_reads_each_documented_column_name(tmp_path: Path, capsys, monkeypatch, name: str) -> None:
    column = SYNONYMS[name]
    header = [name if c == column else c for c in COLUMNS]
    path = tmp_path / "t.csv"
    path.write_text(",".join(header) + "\n" + "\n".join(ROWS) + "\n")
    code, out, err = cli(["advise", "--from-csv", path, "--mix", "prose=1"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert f"column '{name}' read as {column}" in out, out
    assert "mtp 1.79x [1.70x, 1.89x] faster" in out
