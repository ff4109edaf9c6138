"""Pure parts of the crash trials (issue 14, "Crashes under load"): the crash levels a run already knows, and the
request counts of a trial. The whole path, with real servers, is tests/integration/test_bench_crash_trials.py."""

from __future__ import annotations

from specscope.bench.crash_trials import known_ceilings, log_name, trial_counts
from specscope.records import CellKey, CellResult, StreamRecord


def stream(status: str) -> StreamRecord:
    return StreamRecord("p", 0, 0, None, None, None, 1, 0, 0, None, None, "missing", None, status, None, 200)  # type: ignore[arg-type]


def test_known_ceilings_take_the_lowest_crash_level_per_config():
    manifest = {"crash_trials": {"a": [{"level": 8}, {"level": 4}], "b": [{"level": 2}], "c": []}}
    assert known_ceilings(manifest) == {"a": 4, "b": 2}
    assert known_ceilings({}) == {}


def test_trial_counts_ok_failed_and_not_sent():
    key = CellKey("a", "prose", 4, 0)
    result = CellResult(key, (stream("ok"), stream("failed"), stream("degraded")), 0, 1, None, None, crashed=True)
    assert trial_counts(result, 4) == {"planned": 4, "ok": 1, "failed": 2, "not_sent": 1}
    assert log_name("a", "crash-trial-2") == "a.crash-trial-2.log"
