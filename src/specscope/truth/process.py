"""Run the ground-truth server in a child process, for tests and benchmarks.

Usage::

    with TruthServer(TruthScript(default=ResponsePlan(ttft_ms=20, inter_chunk_ms=5))) as ts:
        ... stream against ts.base_url ...
        served = ts.served()          # the truth log (see specscope.truth.server)

A child process (not a thread) so the server never competes with the client for the GIL, started with
:class:`specscope.seam.ManagedProcess`: its stdout and stderr go to a log file (never an unread pipe), and
it is healthy once the log holds its ``LISTENING <url>`` line (polled, so the start timeout really fires).
It has the :class:`specscope.seam.ServerTarget` shape (kind ``truth``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from pydantic import ValidationError

from specscope.errors import ConfigError, ServerStartError
from specscope.readfile import SETTINGS_FILE_MAX_BYTES, FileKind, read_user_file
from specscope.seam import ManagedProcess, start_announced, stop_and_clean
from specscope.truth.script import TruthScript

__all__ = ["TruthServer", "read_script"]

_ANNOUNCE = "LISTENING "
#: a script file's words in a user error (:func:`specscope.readfile.read_user_file`)
_SCRIPT_FILE = FileKind(
    "the script file",
    expected="a readable JSON file",
    fix="check the --script path",
    limit_fix="a script is a few KiB of JSON: check the --script path",
)


def read_script(path: Path) -> TruthScript:
    """A :class:`TruthScript` from a JSON file (the fields of ``specscope.truth.script.TruthScript``).

    Raises:
        ConfigError: the file cannot be read, or a field is invalid (the first one is named).
    """
    text = read_user_file(path, _SCRIPT_FILE, SETTINGS_FILE_MAX_BYTES, text=True)
    try:
        return TruthScript.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        if not first["loc"]:  # the document itself: not JSON, or JSON that is not an object (no field to name)
            what = "not JSON" if first["type"] == "json_invalid" else "not a JSON object"
            raise ConfigError(
                "the script is not a valid TruthScript",
                found=f"{path}: {what} ({first['msg']})",
                expected="a JSON object of the fields of specscope.truth.script.TruthScript",
                fix='write a JSON object of TruthScript fields, e.g. {"default": {"output_tokens": 16}}',
            ) from exc
        raise ConfigError(
            "the script is not a valid TruthScript",
            found=f"{path}: {'.'.join(map(str, first['loc']))}: {first['msg']}",
            expected="fields of specscope.truth.script.TruthScript",
            fix="fix the named field",
        ) from exc


class TruthServer:
    """A ground-truth server in a child process, usable as a context manager.

    Args:
        script: the programme (default: 16 tokens per request, no delays).
        cpu: pin the child to this CPU core (``os.sched_setaffinity``), or ``None``.
        start_timeout_s: how long to wait for the LISTENING line, seconds.
        stop_grace_s: seconds between SIGTERM and SIGKILL on stop.

    Attributes:
        base_url: ``http://127.0.0.1:<port>`` once started. log_path: the child's log (in a temporary folder
        removed on stop).

    Raises:
        ServerStartError: the child exited or did not announce itself in time (``log_tail`` has its output).
    """

    kind = "truth"
    name = "truth"
    model_name = "truth"

    def __init__(
        self,
        script: TruthScript | None = None,
        *,
        cpu: int | None = None,
        start_timeout_s: float = 30.0,
        stop_grace_s: float = 5.0,
    ):
        self.script = script or TruthScript()
        self.cpu = cpu
        self.start_timeout_s = start_timeout_s
        self.stop_grace_s = stop_grace_s
        self.base_url = ""
        self.log_path: Path | None = None
        self._proc: ManagedProcess | None = None
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> TruthServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def metrics_url(self) -> str:
        return self.base_url + "/metrics"

    def start(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="specscope-truth-")
        d = Path(self._dir.name)
        (d / "script.json").write_text(self.script.model_dump_json())
        log_path = self.log_path = d / "server.log"
        argv = [sys.executable, "-m", "specscope.truth.server", "--port", "0", "--script", str(d / "script.json")]
        self._proc = ManagedProcess(
            argv, log_path, name="the ground-truth server", stop_grace_s=self.stop_grace_s, cpu=self.cpu
        )

        try:
            self.base_url = start_announced(self._proc, log_path, self.start_timeout_s, _ANNOUNCE)
        except ServerStartError as exc:
            exc.fix = "see the log tail"  # the log lives in a folder removed on stop
            self.stop()
            raise
        except BaseException:
            self.stop()
            raise

    def alive(self) -> bool:
        """True while the child runs."""
        return self._proc is not None and self._proc.running()

    def kill(self) -> None:
        """SIGKILL the server now, as a crash would (tests of crash handling); :meth:`stop` still cleans up."""
        if self._proc is not None:
            self._proc.kill()

    def facts(self) -> dict[str, Any]:
        """Manifest facts: kind, URL, the script."""
        return {"kind": self.kind, "base_url": self.base_url, "script": self.script.model_dump(mode="json")}

    def stop(self) -> None:
        self._proc, self._dir = stop_and_clean(self._proc, self._dir)

    # -- control endpoints
    def served(self) -> list[dict[str, Any]]:
        """The truth log: one dict per request (``arrival_ns``, ``writes``, ``end_ns``, ``output_tokens``...)."""
        log: list[dict[str, Any]] = httpx.get(self.base_url + "/truth/log", timeout=30).json()
        return log

    def set_script(self, script: TruthScript) -> None:
        """Replace the programme (counters go back to 0)."""
        self.script = script
        httpx.post(self.base_url + "/truth/script", content=script.model_dump_json(), timeout=10).raise_for_status()

    def reset_counters(self) -> None:
        """All /metrics counters to 0, as a server restart would."""
        httpx.post(self.base_url + "/truth/reset", timeout=10).raise_for_status()

    def clear_log(self) -> None:
        httpx.post(self.base_url + "/truth/clear", timeout=10).raise_for_status()
