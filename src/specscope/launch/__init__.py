"""specscope.launch: vLLM recipes -> command lines, server lifecycle, and facts read from vLLM logs.

- :mod:`specscope.launch.recipes` — Recipe / RecipeBook (TOML), ``vllm_argv``, ``docker_argv`` (pure).
- :mod:`specscope.launch.process` — ``VllmServer`` context manager (local process or docker).
- :mod:`specscope.launch.logfacts` — ``parse_log_facts`` / ``read_log_facts`` -> ``LogFacts`` (exported here as
  ``parse_vllm_log`` / ``read_vllm_log``, their first names).
- :mod:`specscope.launch.failures` — known failure signatures with explanations and fixes.
- :mod:`specscope.launch.spec_metrics` — vLLM's per-request spec-decode metrics and their reconciliation.
"""

from specscope.launch.failures import FailureSignature
from specscope.launch.kv_table import KvRow, kv_table
from specscope.launch.logfacts import LogFacts, SpecDecodingSample
from specscope.launch.logfacts import parse_log_facts as parse_vllm_log
from specscope.launch.logfacts import read_log_facts as read_vllm_log
from specscope.launch.process import VllmServer
from specscope.launch.recipes import Recipe, RecipeBook, docker_argv, load_recipes, parse_recipes, vllm_argv
from specscope.launch.spec_metrics import PerRequestSpecDecode, read_per_request_spec_decode, reconcile_with_counters

__all__ = [
    "FailureSignature",
    "KvRow",
    "LogFacts",
    "PerRequestSpecDecode",
    "Recipe",
    "RecipeBook",
    "SpecDecodingSample",
    "VllmServer",
    "docker_argv",
    "kv_table",
    "load_recipes",
    "parse_recipes",
    "parse_vllm_log",
    "read_per_request_spec_decode",
    "read_vllm_log",
    "reconcile_with_counters",
    "vllm_argv",
]
