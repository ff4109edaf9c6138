"""The given options of ``bench`` (canonical, by name: :func:`specscope.bench.runfile.given_options`) turned into
what a run needs: who serves the configs, the matrix (:class:`~specscope.config.BenchOptions`), the client's
settings and the resume choices.

Options with a ``field`` in the spec go to :func:`specscope.config.profile_options` as they are; the others are
used here: the targets (``configs``, ``server``, ``launch``, ``recipes``, ``k``), the counter sources (``metrics``,
``prometheus_selector``), the workload axes (``workload``, ``dataset``, ``dataset_path``, ``drop_bad_rows``,
``workloads``), the trace (``trace``, ``trace_scale``, ``trace_rows``), ``slo``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from specscope.bench.resume import RunControls
from specscope.bench.runfile import record_of
from specscope.bench.spec import BENCH_SPEC, Opt
from specscope.config import BenchOptions, profile_options
from specscope.errors import ConfigError
from specscope.targets import TargetPlan

__all__ = ["BenchSetup", "bench_setup", "matrix_in_force", "with_defaults"]

#: the embedded engine's configs when none is named: BenchOptions' default, one home
_DEFAULT_CONFIGS: tuple[str, ...] = BenchOptions.model_fields["configs"].default


@dataclass(frozen=True)
class BenchSetup:
    """What one ``bench`` command line asks for.

    Attributes:
        plan: who serves the configs (after the ``--k`` expansion).
        options: the matrix; None with ``--resume`` (the run's own options apply).
        controls: client settings and resume choices; ``controls.given`` holds the given options.
        server_logs: ``--server-log`` files by config, attached after the run.
        record: the manifest's ``run_options`` (given options and the spec's defaults of recorded ones).
    """

    plan: TargetPlan
    options: BenchOptions | None
    controls: RunControls
    server_logs: dict[str, Path] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)


def with_defaults(given: Mapping[str, Any], spec: tuple[Opt, ...] = BENCH_SPEC) -> dict[str, Any]:
    """``given`` plus the spec's default of every option not given that has one (``profile``, ``launch`` ...)."""
    return {**{o.name: o.default for o in spec if o.default is not None}, **given}


def bench_setup(given: Mapping[str, Any], spec: tuple[Opt, ...] = BENCH_SPEC) -> BenchSetup:
    """The run a command line asks for (``given``: canonical values by option name, defaults not applied).

    Raises:
        ConfigError: a bad target, option value, workload source, or a combination the matrix refuses.
    """
    from specscope.bench.controls import client_controls
    from specscope.launch.serverlog import parse_server_log_specs
    from specscope.targets import parse_targets

    values = with_defaults(given, spec)
    recipes = Path(values["recipes"]) if values.get("recipes") else None
    plan = parse_targets(
        configs=values.get("configs"), servers=values.get("server"), launch=values["launch"], recipes=recipes
    )
    if values.get("k"):
        from specscope.targets.k_axis import expand_plan_k

        plan = expand_plan_k(plan, ",".join(map(str, values["k"])), _DEFAULT_CONFIGS)
    logs = parse_server_log_specs(list(values.get("server_log") or []), tuple(plan.servers))
    record = record_of(values, spec)
    controls = client_controls(
        {o.client: values[o.name] for o in spec if o.client and o.name in values},
        bool(values.get("retry_failed")),
        given,
        record,
        spec,
    )
    options = None if values.get("resume") else _options(values, plan, spec)
    return BenchSetup(plan, options, controls, logs, record)


def _aa(values: Mapping[str, Any]) -> bool | None:
    """``--aa`` as given; a k sweep compares draft lengths, so it has the A/A control only when asked (False)."""
    aa = values.get("aa")
    return (False if aa is None else bool(aa)) if values.get("k") else aa


def _field_overrides(values: Mapping[str, Any], spec: tuple[Opt, ...]) -> dict[str, Any]:
    """``profile_options`` overrides of the options that set a :class:`BenchOptions` field one to one, and ``aa``."""
    return {o.field: values.get(o.name) for o in spec if o.field} | {"aa": _aa(values)}


def matrix_in_force(given: Mapping[str, Any], spec: tuple[Opt, ...] = BENCH_SPEC) -> BenchOptions:
    """The matrix fields in force for ``given``: the profile's values under the given field options (no target,
    file, dataset or trace is read: what ``--print-run-file`` writes out).

    Raises:
        ConfigError: an option value the matrix refuses.
    """
    from specscope.targets import parse_targets

    values = with_defaults(given, spec)
    flags = {o.field: o.flag for o in spec if o.field}
    overrides = _field_overrides(values, spec)
    if values.get("request_rate"):
        overrides["levels"] = None  # the rates' positions (BenchOptions)
    # the configs as the run would name them (no file read): the baseline in force depends on them (--server
    # vanilla=URL --server mtp=URL runs against vanilla; the default configs' "base" was printed)
    plan = parse_targets(configs=values.get("configs"), servers=values.get("server"), launch=values["launch"])
    overrides["configs"] = _configs_of(plan)
    return profile_options(values["profile"], flags, **overrides)


def _configs_of(plan: TargetPlan) -> tuple[str, ...] | None:
    """The matrix's configs of a target plan: the given ones, else the servers' names; None: the default."""
    return plan.configs or (tuple(plan.servers) or None)


def _check_prometheus_url(url: str | None) -> None:
    """Refuse a ``--prometheus`` that is no http(s) URL: ``--prometheus ::::`` crashed the first cell (exit 3,
    httpx InvalidURL) after the run had started.

    Raises:
        ConfigError: not an http(s) URL with a host, or a host or port that is not one.
    """
    from urllib.parse import urlsplit

    from specscope.targets.plan import url_problem

    if url is None:
        return
    problem = url_problem(url)
    if problem is None and (urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname):
        problem = "not an http(s) URL with a host"
    if problem is not None:
        raise ConfigError(
            "--prometheus URL is not valid",
            found=f"{url}: {problem}",
            expected="the Prometheus server's root URL, http(s)://HOST:PORT",
            fix="e.g. --prometheus http://127.0.0.1:9090",
        )


def _options(values: Mapping[str, Any], plan: TargetPlan, spec: tuple[Opt, ...]) -> BenchOptions:
    """The matrix: the profile with every ``field`` option, the counter sources and the workload axes."""
    from specscope.bench.counters_source import parse_metrics_specs, parse_selectors
    from specscope.bench.trace_cell import trace_overrides
    from specscope.bench.workloads import cli_overrides

    names = plan.configs or tuple(plan.servers) or _DEFAULT_CONFIGS
    overrides = _field_overrides(values, spec)
    overrides["configs"] = _configs_of(plan)
    overrides["metrics"] = parse_metrics_specs(values.get("metrics") or [], names) or None
    _check_prometheus_url(values.get("prometheus"))
    overrides["prometheus_selectors"] = parse_selectors(values.get("prometheus_selector") or [], names)
    slo = values.get("slo") or {}
    overrides |= {f"slo_{k}_s": v for k, v in slo.items()}
    workloads = tuple(values["workloads"]) if values.get("workloads") else None
    contexts = ",".join(map(str, values["context_tokens"])) if values.get("context_tokens") else None
    axes = cli_overrides(
        workloads,
        values.get("workload"),
        values.get("dataset"),
        values.get("dataset_path"),
        contexts,  # read again there: a dataset's context tiers are refused when they differ from it
        None,
        bool(values.get("drop_bad_rows")),
    ) | trace_overrides(values.get("trace"), values.get("trace_scale"), values.get("trace_rows"))
    overrides |= {k: v for k, v in axes.items() if k not in overrides or overrides[k] is None}
    flags = {o.field: o.flag for o in spec if o.field}
    return profile_options(values["profile"], flags, **overrides)
