"""A run's report as one MLflow run (``specscope export RUN --to mlflow [--tracking-uri URI]``).

Through MLflow's own tracking client (``mlflow.tracking.MlflowClient``; the optional ``mlflow`` extra,
``mlflow-skinny``), offline: the default tracking URI is the local file store ``./mlruns`` (MLflow 3 keeps that
backend in maintenance mode behind ``MLFLOW_ALLOW_FILE_STORE=true``, which this sets for a ``file:`` URI only).

What is logged, all from the report's JSON document (:func:`specscope.report.render.json_document`, the one
judgement):

- experiment ``specscope``; one MLflow run per specscope run, named after the run folder and tagged
  ``specscope.run_key`` (the run folder's absolute path and its manifest's ``created``) and ``specscope.report_sha256``;
- params: ``configs``, ``baseline``, ``workloads``, ``levels``, ``repeats``, ``engine``, ``max_tokens``,
  ``temperature``, ``min_effect``, ``confidence`` and per config its model, the tool it was imported from and its
  speculative method as the server facts name it (``engine.CONFIG.*``; :func:`specscope.stats.server_spec.methods_of`);
  an option the run does not have (an imported run's ``max_tokens``) is not logged, never the string ``None``;
- metrics per ok or degraded cell ``cell.CONFIG.WORKLOAD.LEVEL.rREPEAT.FIGURE`` (output_tok_s, ttft_p50_s,
  tpot_p50_s, acceptance_rate, acceptance_length; a figure the cell does not have is not logged) and per comparison
  ``cmp.CONFIG.WORKLOAD.LEVEL.{speedup,low,high,rounds}`` (the paired rounds the interval rests on);
- tags: each comparison's verdict, ``verdict.CONFIG.WORKLOAD.LEVEL``, and its reason codes when it has any,
  ``reasons.CONFIG.WORKLOAD.LEVEL`` (``DRIFT``, ``TOO_FEW_ROUNDS,ROUNDS_DROPPED``: the report's 'why'); each judged
  alarm, ``alarm.CODE.CONFIG.WORKLOAD`` (its figure; ``alarm.CODE.CONFIG`` for a run-wide one such as ``DRIFT``,
  never the string ``None``); the status of each cell that was not ok,
  ``status.CONFIG.WORKLOAD.LEVEL.rREPEAT``;
- artifacts: ``report.json`` and ``report.html``.

Exporting again does not duplicate: a run with the same ``specscope.run_key`` and report hash is left as it is
(``unchanged``); one whose report changed (cells added) is deleted and logged afresh (``replaced``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specscope.errors import ConfigError
from specscope.facts import RunFacts
from specscope.stats.server_spec import methods_of, served_model
from specscope.store.schema import facts_record

__all__ = ["EXPERIMENT", "CELL_FIGURES", "MlflowExport", "export_mlflow", "metric_key"]

EXPERIMENT = "specscope"
CELL_FIGURES = ("output_tok_s", "ttft_p50_s", "tpot_p50_s", "acceptance_rate", "acceptance_length")
_BATCH = 100  # MLflow's log_batch takes at most 1000 metrics, 100 params and 100 tags per call
_UNSAFE = re.compile(r"[^A-Za-z0-9_\-. /]")


@dataclass(frozen=True)
class MlflowExport:
    """The outcome: the tracking URI, experiment and run ids, and ``created``, ``unchanged`` or ``replaced``."""

    tracking_uri: str
    experiment_id: str
    run_id: str
    outcome: str
    metrics: int
    params: int


def metric_key(*parts: object) -> str:
    """An MLflow key from parts joined by ``.`` (characters MLflow refuses become ``_``)."""
    return ".".join(_UNSAFE.sub("_", str(p)) for p in parts)


def _params(doc: Mapping[str, Any]) -> dict[str, str]:
    m = doc.get("manifest") or {}
    opts = m.get("options") or {}
    out = {
        "configs": ",".join(opts.get("configs") or []),
        "baseline": str(m.get("baseline")),
        "workloads": ",".join(opts.get("workloads") or []),
        "levels": ",".join(map(str, opts.get("levels") or [])),
        "repeats": str(opts.get("repeats")),
        "engine": str(m.get("engine")),
        "max_tokens": str(opts.get("max_tokens")),
        "temperature": str(opts.get("temperature")),
        "min_effect": str(doc.get("min_effect")),
        "confidence": str(doc.get("confidence")),
    }
    out = {k: v for k, v in out.items() if v not in ("None", "")}  # an option the run never had is absent
    stored = {c: f for c, f in (doc.get("server_facts") or {}).items() if isinstance(f, Mapping)}
    for config, facts in sorted(stored.items()):
        model = served_model(facts_record(facts, f"server_facts.{config}"))
        if model:
            out[metric_key("engine", config, "model")] = model[:500]
        if facts.get("imported_from"):
            out[metric_key("engine", config, "imported_from")] = str(facts["imported_from"])[:500]
    typed = RunFacts({c: facts_record(f, f"server_facts.{c}") for c, f in stored.items()})
    for config, method in methods_of(typed).items():
        out[metric_key("engine", config, "method")] = str(method)  # None: the facts say it does not speculate
    return out


def _metrics(doc: Mapping[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for c in doc.get("cells") or []:
        if c.get("status") not in ("ok", "degraded"):  # a failed or crashed cell has no figure (its status is a tag)
            continue
        for fig in CELL_FIGURES:
            v = c.get(fig)
            if isinstance(v, int | float) and not isinstance(v, bool):
                out[metric_key("cell", c["config"], c["workload"], c["concurrency"], f"r{c['repeat']}", fig)] = v
    for cmp in doc.get("comparisons") or []:
        for fig in ("speedup", "low", "high", "rounds"):  # each interval with the paired rounds it rests on
            v = cmp.get(fig)
            if isinstance(v, int | float) and not isinstance(v, bool):
                out[metric_key("cmp", cmp["config"], cmp["workload"], cmp["level"], fig)] = v
    return out


def _tags(doc: Mapping[str, Any]) -> dict[str, str]:
    """Verdicts, the judged alarms (``alarm.CODE.CONFIG.WORKLOAD``: the figure it rests on) and the status of each
    cell that was not ok, the same the report shows."""
    out = {
        metric_key("verdict", c["config"], c["workload"], c["level"]): str(c.get("verdict"))
        for c in doc.get("comparisons") or []
    }
    for c in doc.get("comparisons") or []:
        codes = [str(r.get("code")) for r in c.get("reasons") or []]
        if codes:  # why the verdict is what it is (the report's 'why'), as its reason codes
            out[metric_key("reasons", c["config"], c["workload"], c["level"])] = ",".join(codes)
    for a in doc.get("judged_alarms") or []:
        where = [
            p for p in (a.get("code"), a.get("config"), a.get("workload")) if p is not None
        ]  # run-wide: no workload
        out[metric_key("alarm", *where)] = str(a.get("figure"))
    for c in doc.get("cells") or []:
        if c.get("status") != "ok":
            key = metric_key("status", c["config"], c["workload"], c["concurrency"], f"r{c['repeat']}")
            out[key] = str(c.get("status"))
    return out


def _chunks(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), _BATCH):
        yield items[i : i + _BATCH]


#: the tracking URIs the `mlflow` extra (mlflow-skinny) takes: a server or a file store. Not a database URI: its store
#: needs SQLAlchemy, which mlflow-skinny does not install (its model registry refuses ``sqlite:`` at the client's start)
_URI_FORMS = "http(s)://HOST:PORT of an MLflow server or a folder as a file: URI (file:///ABS/PATH)"

#: SQLAlchemy's database URI schemes, as MLflow's SQL store reads them (``sqlite``, ``postgresql+psycopg2`` ...)
_DATABASE_SCHEMES = ("sqlite", "postgresql", "mysql", "mssql")


def _database_refusal(tracking_uri: str) -> ConfigError | None:
    """The refusal of a database URI when this MLflow has no database store (no SQLAlchemy); None otherwise."""
    import importlib.util

    scheme = tracking_uri.partition(":")[0].partition("+")[0].lower()
    if scheme not in _DATABASE_SCHEMES or importlib.util.find_spec("sqlalchemy") is not None:
        return None
    return ConfigError(
        "--tracking-uri names a database store this MLflow cannot use",
        found=f"{tracking_uri} (the MLflow installed has no database store: the mlflow extra is mlflow-skinny, "
        "without SQLAlchemy)",
        expected=_URI_FORMS,
        fix=f"pass --tracking-uri {default_tracking_uri()}, or an MLflow server's URL",
    )


def _client(tracking_uri: str) -> Any:
    try:
        from mlflow.tracking import MlflowClient
    except ImportError:
        raise ConfigError(
            "MLflow is not installed",
            found="no module mlflow",
            expected="MLflow's tracking client (the optional extra `mlflow`)",
            fix="pip install 'specscope[mlflow]' (or mlflow-skinny), then export again",
        ) from None
    if tracking_uri.startswith("file:"):
        os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
    # one attempt, as every other server specscope asks (MLflow's default: 7 retries with backoff, 4 minutes against
    # a port nothing listens on); a user's own setting wins
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "30")
    from mlflow.exceptions import MlflowException

    try:  # MLflow reads the URI here: a bare path (``::::``) is its file store, refused unless opted in
        return MlflowClient(tracking_uri=tracking_uri)
    except (MlflowException, ValueError) as exc:
        refusal = _database_refusal(tracking_uri)
        if refusal is not None:
            raise refusal from None
        bare = ":" not in tracking_uri.split("/", 1)[0]  # no scheme: a folder (./mlruns, the help's own default)
        raise ConfigError(
            "--tracking-uri is no tracking URI MLflow can use",
            found=f"{tracking_uri}: {type(exc).__name__}: {str(exc).splitlines()[0][:300]}",
            expected=_URI_FORMS,
            fix=f"pass the folder as a file: URI, --tracking-uri {Path(tracking_uri).resolve().as_uri()}"
            if bare
            else "pass --tracking-uri http://127.0.0.1:5000 (or leave it out: ./mlruns)",
        ) from None


def default_tracking_uri() -> str:
    """``./mlruns`` (in the current directory) as a file URI."""
    return (Path.cwd() / "mlruns").resolve().as_uri()


def _refuse_a_store_in_the_run(uri: str, run_path: Path) -> None:
    """Refuse a local tracking store (a ``file:`` folder or a ``sqlite:///`` file) that is the run folder or lies
    inside it: MLflow wrote its experiment folder into the run (``--tracking-uri file:///ABS/RUN``, or the default
    ./mlruns from inside RUN; attack50). A run is read-only after bench.

    Raises:
        ConfigError: the store is or lies inside ``run_path``.
    """
    from urllib.parse import urlparse
    from urllib.request import url2pathname

    try:
        parsed = urlparse(uri)
    except ValueError:  # http://[::zz]: no local store; the client's first request names it
        return
    if parsed.scheme == "file" and parsed.netloc in ("", "localhost"):
        store = Path(url2pathname(parsed.path))
    elif parsed.scheme == "sqlite" and uri.startswith("sqlite:///"):
        store = Path(uri.removeprefix("sqlite:///"))
    else:
        return
    run, target = run_path.resolve(), store.resolve()
    if run != target and run not in target.parents:
        return
    raise ConfigError(
        "--tracking-uri would write into what this command reads",
        found=f"--tracking-uri {uri}: " + (f"the run folder {run_path}" if run == target else f"inside {run_path}"),
        expected=f"a tracking store outside {run_path} (a run is never written after bench)",
        fix=f"pass --tracking-uri {(run.parent / 'mlruns').as_uri()}",
    )


def export_mlflow(doc: Mapping[str, Any], html: str, run_path: Path, tracking_uri: str | None) -> MlflowExport:
    """Log the report document ``doc`` (its JSON form) and its ``html`` page as one MLflow run (module docstring).

    Raises:
        ConfigError: MLflow is not installed; the tracking server does not answer its first request; a local store
            that cannot be made or written (a file: URI of a device, a file, a folder without write permission).
    """
    uri = tracking_uri or default_tracking_uri()
    _refuse_a_store_in_the_run(uri, run_path)
    try:
        return _export(doc, html, run_path, uri)
    except OSError as exc:  # a local store MLflow cannot make or write: file:///dev/null was exit 3 (attack53)
        raise ConfigError(
            "--tracking-uri names a store MLflow cannot write",
            found=f"{uri}: {exc.strerror or type(exc).__name__}"
            + (f" ({exc.filename})" if isinstance(exc.filename, str) else ""),
            expected="a folder MLflow can create or write (file:///ABS/PATH), or http(s)://HOST:PORT of an MLflow "
            "server",
            fix=f"pass --tracking-uri of a folder you can write, e.g. --tracking-uri "
            f"{(run_path.resolve().parent / 'mlruns').as_uri()}",
        ) from None


def _export(doc: Mapping[str, Any], html: str, run_path: Path, uri: str) -> MlflowExport:
    """:func:`export_mlflow`'s exchange with MLflow's client at ``uri``; an ``OSError`` of a local store rises."""
    client = _client(uri)
    from mlflow.exceptions import MlflowException

    try:
        exp = client.get_experiment_by_name(EXPERIMENT)
    except ValueError as exc:  # a URI MLflow cannot take: a host that is not one (http://[::zz]), a bare path
        raise ConfigError(
            "--tracking-uri is no tracking URI MLflow can use",
            found=f"{uri}: {type(exc).__name__}: {str(exc).splitlines()[0][:300]}",
            expected=_URI_FORMS,
            fix="pass --tracking-uri http://127.0.0.1:5000 (or leave it out: ./mlruns)",
        ) from None
    except MlflowException as exc:  # the first request: a server that does not answer, or answers no MLflow API
        raise ConfigError(
            "the MLflow tracking server did not answer",
            found=f"{uri}: {str(exc).splitlines()[0][:300]}",
            expected="an MLflow tracking server at --tracking-uri (or a local folder, the default ./mlruns)",
            fix="start the server (mlflow server), or pass --tracking-uri of one that runs",
        ) from None
    exp_id = exp.experiment_id if exp is not None else client.create_experiment(EXPERIMENT)
    text = json.dumps(doc, sort_keys=True, default=str)
    digest = hashlib.sha256(text.encode()).hexdigest()
    created = (doc.get("manifest") or {}).get("created")
    key = hashlib.sha256(f"{run_path.resolve()}|{created}".encode()).hexdigest()[:32]
    found = client.search_runs([exp_id], filter_string=f"tags.`specscope.run_key` = '{key}'")
    outcome = "created"
    for old in found:
        if old.data.tags.get("specscope.report_sha256") == digest:
            return MlflowExport(uri, exp_id, old.info.run_id, "unchanged", len(old.data.metrics), len(old.data.params))
        client.delete_run(old.info.run_id)
        outcome = "replaced"
    from mlflow.entities import Metric, Param, RunTag

    tags = {"specscope.run_key": key, "specscope.report_sha256": digest, "specscope.run": str(run_path.resolve())}
    run = client.create_run(exp_id, tags=tags, run_name=run_path.name)
    rid = run.info.run_id
    params, metrics = _params(doc), _metrics(doc)
    for batch in _chunks([Param(k, v) for k, v in params.items()]):
        client.log_batch(rid, params=list(batch))
    now_ms = int(time.time() * 1000)
    for batch in _chunks([Metric(k, float(v), now_ms, 0) for k, v in metrics.items()]):
        client.log_batch(rid, metrics=list(batch))
    for batch in _chunks([RunTag(k, v) for k, v in _tags(doc).items()]):
        client.log_batch(rid, tags=list(batch))
    with tempfile.TemporaryDirectory(prefix="specscope-mlflow-") as tmp:
        (Path(tmp) / "report.json").write_text(json.dumps(doc, indent=2, default=str))
        (Path(tmp) / "report.html").write_text(html)
        client.log_artifact(rid, str(Path(tmp) / "report.json"))
        client.log_artifact(rid, str(Path(tmp) / "report.html"))
    client.set_terminated(rid)
    return MlflowExport(uri, exp_id, rid, outcome, len(metrics), len(params))
