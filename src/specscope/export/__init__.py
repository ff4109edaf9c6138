"""A run's results carried out of the run folder (``specscope export RUN --to ...``).

- :mod:`~specscope.export.mlflow_run`: one MLflow run per specscope run (params, metrics per cell and comparison,
  verdicts as tags, the JSON and HTML reports as artifacts), through MLflow's own client;
- :mod:`~specscope.export.profile`: speculation profiles in the ``speculation_profile.json`` schema of NVIDIA
  Model-Optimizer's specdec_bench, one per config x workload x level x phase.

Every figure comes from the report's one judgement (:mod:`specscope.report.build`); nothing here measures or
re-derives.
"""
