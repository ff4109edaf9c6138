"""The bench matrix: server configs x workloads x concurrency levels x shuffled repeats.

``plan`` orders the cells; ``targets`` gives a server per config (the embedded engine or a server the user
started); ``runner`` measures each cell and commits it to the run store.
"""

from specscope.bench.plan import plan_cells
from specscope.bench.runner import BenchProgress, run_bench

__all__ = ["plan_cells", "run_bench", "BenchProgress"]
