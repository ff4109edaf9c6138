"""A gate run folder: ``manifest.json`` (``"kind": "gate"``) + ``gate.json`` (every probe record, comparisons,
verdicts and the profile used). Both written atomically with :mod:`specscope.fsio` (temp file in the same folder,
then ``os.replace``).
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

from specscope.errors import StoreError
from specscope.fsio import write_json_atomic
from specscope.gate.model import GateRun
from specscope.readfile import read_limited
from specscope.redact import redact

#: the largest gate manifest.json / gate.json read (bytes); a gate writes some KiB.
_MAX_GATE_FILE_BYTES = 16 * 2**20

__all__ = ["SCHEMA_VERSION", "write_gate_run", "load_gate_run"]

SCHEMA_VERSION = 1


def write_gate_run(run: GateRun, folder: str | Path, *, extra_manifest: dict[str, Any] | None = None) -> Path:
    """Write ``run`` into ``folder`` (created if needed); returns the folder.

    ``gate.json`` is written before ``manifest.json``, so a folder with a manifest always has its data.

    Raises:
        StoreError: ``folder`` exists and holds a run of another kind.
    """
    from specscope import __version__

    out = Path(folder)
    manifest_path = out / "manifest.json"
    if manifest_path.exists():
        try:
            kind = json.loads(manifest_path.read_text(encoding="utf-8")).get("kind")
        except (OSError, ValueError, RecursionError, AttributeError):  # damaged: refused below as another run
            kind = None
        if kind != "gate":
            raise StoreError(
                "the output folder already holds another run",
                found=f"{out} (kind {kind!r})",
                expected="a new folder or a gate run folder",
                fix="choose another --out folder",
            )
    out.mkdir(parents=True, exist_ok=True)
    data = redact({"schema_version": SCHEMA_VERSION, **run.to_dict()})  # the one redaction, as every run folder
    write_json_atomic(out / "gate.json", data, ensure_ascii=False)
    manifest = {
        "kind": "gate",
        "schema_version": SCHEMA_VERSION,
        "specscope_version": __version__,
        "created_utc": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "configs": list(run.configs),
        "passed": run.passed,
        "gates_failed": sum(not v.passed for v in run.verdicts),
        "gates_total": len(run.verdicts),
        **(extra_manifest or {}),
    }
    write_json_atomic(manifest_path, redact(manifest), ensure_ascii=False)
    return out


def load_gate_run(path: str | Path) -> GateRun:
    """Read a gate run folder (or its ``gate.json``) back into a :class:`GateRun`.

    Raises:
        StoreError: no manifest, a manifest of another kind, or unreadable JSON.
    """
    p = Path(path)
    folder = p.parent if p.name in ("gate.json", "manifest.json") else p
    try:  # regular files of bounded size only (a FIFO would block, /dev/zero never end)
        manifest = json.loads(read_limited(folder / "manifest.json", _MAX_GATE_FILE_BYTES).decode("utf-8"))
        data = json.loads(read_limited(folder / "gate.json", _MAX_GATE_FILE_BYTES).decode("utf-8"))
    except FileNotFoundError as exc:
        raise StoreError(
            "not a gate run folder",
            found=f"{folder}: missing {Path(exc.filename).name}",
            expected="manifest.json and gate.json",
            fix="pass the folder written by specscope gate",
        ) from None
    except (OSError, ValueError, RecursionError) as exc:  # RecursionError: JSON nested deeper than the parser goes
        what = "JSON nested too deep" if isinstance(exc, RecursionError) else str(exc)[:300]
        raise StoreError(
            "gate run folder has unreadable JSON",
            found=f"{folder}: {what}",
            expected="JSON written by specscope gate",
            fix="re-run specscope gate",
        ) from None
    if not isinstance(manifest, dict) or not isinstance(data, dict):
        raise StoreError(
            "gate run folder holds JSON of the wrong shape",
            found=f"{folder}: manifest.json {type(manifest).__name__}, gate.json {type(data).__name__}",
            expected="a JSON object in each",
            fix="re-run specscope gate",
        )
    if manifest.get("kind") != "gate":
        raise StoreError(
            "not a gate run",
            found=f"kind {manifest.get('kind')!r} in {folder}/manifest.json",
            expected="kind 'gate'",
            fix="use specscope report for other runs",
        )
    if data.get("schema_version") != SCHEMA_VERSION:
        raise StoreError(
            "gate run from an incompatible specscope",
            found=f"schema {data.get('schema_version')}",
            expected=f"schema {SCHEMA_VERSION}",
            fix="run the gates again with this version: `specscope gate`",
        )
    try:
        return GateRun.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a field missing or of the wrong shape
        raise StoreError(
            "gate run folder does not match the gate schema",
            found=f"{folder}/gate.json: {type(exc).__name__}: {str(exc)[:200]}",
            expected=f"gate.json schema {SCHEMA_VERSION} as `specscope gate` writes it",
            fix="restore gate.json or re-run specscope gate",
        ) from None
