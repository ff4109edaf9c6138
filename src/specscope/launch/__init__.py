"""specscope.launch: vLLM recipes -> command lines, server lifecycle, and facts read from vLLM logs.

- :mod:`specscope.launch.recipes` — Recipe / RecipeBook (TOML), ``vllm_argv``, ``docker_argv`` (pure).
- :mod:`specscope.launch.process` — ``VllmServer`` context manager (local process or docker).
- :mod:`specscope.launch.logfacts` — ``parse_log_facts`` / ``read_log_facts`` -> ``LogFacts`` (exported here as
  ``parse_vllm_log`` / ``read_vllm_log``, their first names).
- :mod:`specscope.launch.failures` — known failure signatures with explanations and fixes.
"""

from specscope.launch.failures import FailureSignature
from specscope.launch.kv_table import KvRow, kv_table
from specscope.launch.logfacts import LogFacts, SpecDecodingSample
from specscope.launch.logfacts import parse_log_facts as parse_vllm_log
from specscope.launch.logfacts import read_log_facts as read_vllm_log
from specscope.launch.process import VllmServer
from specscope.launch.recipes import Recipe, RecipeBook, docker_argv, load_recipes, parse_recipes, vllm_argv

__all__ = [
    "FailureSignature",
    "KvRow",
    "LogFacts",
    "Recipe",
    "RecipeBook",
    "SpecDecodingSample",
    "VllmServer",
    "docker_argv",
    "kv_table",
    "load_recipes",
    "parse_recipes",
    "parse_vllm_log",
    "read_vllm_log",
    "vllm_argv",
]
