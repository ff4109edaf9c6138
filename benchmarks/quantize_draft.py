"""NVFP4 quantizer against compressed-tensors, side by side in one run, every output byte compared.

The input is the Qwen3.6-27B MTP head's 8 linears at their real shapes (0.79 GiB of BF16, deterministic random
values; seed 004: hidden 5120, intermediate 17408, 24 query heads x 256 with the output gate (2x), 4 KV heads x 256),
written once to a safetensors file. Each tool runs in its own child process, reads that file and writes its NVFP4
tensors (``<name>_packed`` U8, ``<name>_scale`` E4M3, ``<name>_global_scale`` F32 [1]) to a safetensors file of its
own; q/k/v and gate/up share one global scale. Rows:

* ``specscope numba|numpy, 1 thread``: pinned to one CPU (``os.sched_setaffinity``): the table-lookup encoder
  (:mod:`specscope.surgery.nvfp4_stream`) with its compiled loop (numba, the ``fast`` extra) and with numpy alone,
  tensors streamed in row chunks from the file (``Checkpoint.read_rows``) and written with the surgery's own shard
  writer (SHA-256 of every tensor, re-opened with ``safetensors``);
* ``specscope, N threads``: the same on every CPU this process may use (chunks of a tensor on N threads);
* ``specscope element-wise`` (``--elementwise``): the plain float32 path
  (:func:`specscope.surgery.nvfp4.quantize_nvfp4`, whole tensors), the quantizer before the table;
* ``specscope surgery quantize-draft``: the command end to end on a checkpoint folder holding the head and a
  compressed-tensors config (plan with its amax pass, SHA-256 of the inputs, write, re-read and hash every tensor,
  audit of the result), with the default thread count;
* ``compressed-tensors``: ``scripts/ct_quantize_nvfp4.py`` in the compressed-tensors venv (``make ct-venv``; torch's
  CPU path with its own thread count): ``generate_gparam``, ``calculate_qparams``, ``NVFP4PackedCompressor.compress``.

Time = from before reading to after the output file is closed (imports and loading the compiled loop excluded, the
latter reported); GB/s = BF16 input bytes / time; CPU s = the child's user + system time over all its threads
(``time.process_time``; on a shared machine the single-thread row's GB/s per CPU-second is what one free core would
do); peak memory = the child's own ``VmHWM`` (not ``ru_maxrss``, which inherits the parent's). Every packed byte,
block scale and global scale of each specscope row is compared with compressed-tensors' and the script exits 1 on
any difference.

Usage (from the repository root; re-executes itself with ``.venv/bin/python``):

    python benchmarks/quantize_draft.py              # the full head: ~1 min on a quiet 2-core machine
    python benchmarks/quantize_draft.py --quick      # 1/10 of every out_features: ~15 s
    python benchmarks/quantize_draft.py --results    # also write its section of benchmarks/RESULTS.md
"""

from __future__ import annotations

import _venv

_venv.ensure_project_python()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from datetime import date  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from _results import RESULTS, write_section  # noqa: E402

from specscope.surgery import nvfp4  # noqa: E402
from specscope.surgery.nvfp4_kernel import kernel  # noqa: E402
from specscope.surgery.nvfp4_stream import default_workers, quantize_stream, stream_amax  # noqa: E402
from specscope.surgery.shards import NUMPY_DTYPES, ShardWriter, open_checkpoint  # noqa: E402

SECTION = "quantize_draft"
TITLE = "NVFP4 quantizer against compressed-tensors (benchmarks/quantize_draft.py)"
ROOT = Path(__file__).resolve().parents[1]
CT_SCRIPT = ROOT / "scripts" / "ct_quantize_nvfp4.py"
HID, INTER, Q, KV = 5120, 17408, 2 * 24 * 256, 4 * 256
SHAPES = {  # [out, in] of the 8 linears of the Qwen3.6-27B MTP head
    "mtp.fc.weight": (HID, 2 * HID),
    "mtp.layers.0.self_attn.q_proj.weight": (Q, HID),
    "mtp.layers.0.self_attn.k_proj.weight": (KV, HID),
    "mtp.layers.0.self_attn.v_proj.weight": (KV, HID),
    "mtp.layers.0.self_attn.o_proj.weight": (HID, 24 * 256),
    "mtp.layers.0.mlp.gate_proj.weight": (INTER, HID),
    "mtp.layers.0.mlp.up_proj.weight": (INTER, HID),
    "mtp.layers.0.mlp.down_proj.weight": (HID, INTER),
}
GROUPS = [
    [f"mtp.layers.0.self_attn.{p}_proj.weight" for p in "qkv"],
    [f"mtp.layers.0.mlp.{p}_proj.weight" for p in ("gate", "up")],
]
GOALS = {"ratio": 10.0, "one_core_gb_s": 0.5, "peak_x_head": 1.5}  # issue 30


def peak_rss_bytes() -> int:
    """This process's own peak resident memory: ``VmHWM`` of ``/proc/self/status``. ``ru_maxrss`` is not: Linux
    carries the parent's high-water mark across fork and exec into it (a child of a parent holding 0.4 GB reports
    0.4 GB, measured), so each tool's figure would include the benchmark's own input generation."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def make_input(folder: Path, scale: float) -> tuple[Path, int]:
    """Write the head's linears (BF16, N(0, 0.02) with a few outliers) to ``folder/model.safetensors``."""
    shapes = {n: (max(16, int(o * scale) // 16 * 16), i) for n, (o, i) in SHAPES.items()}
    writer = ShardWriter(folder / "model.safetensors", [(n, "BF16", s) for n, s in shapes.items()])
    for i, (name, shape) in enumerate(shapes.items()):
        rng = np.random.default_rng(i)
        w = rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
        w[:: max(1, shape[0] // 7), 3] *= 40  # outlier columns: blocks with small E4M3 scales
        writer.write(name, w.astype(ml_dtypes.bfloat16))
    writer.close()
    ct = {  # a compressed-tensors checkpoint whose draft head is left BF16 (the quantize-draft input)
        "quant_method": "compressed-tensors",
        "format": "nvfp4-pack-quantized",
        "config_groups": {},
        "ignore": ["re:mtp.*"],
    }
    (folder / "config.json").write_text(json.dumps({"model_type": "qwen3_5", "quantization_config": ct}))
    return folder / "model.safetensors", sum(o * i * 2 for o, i in shapes.values())


def child_specscope(src: Path, out: Path, workers: int, elementwise: bool, engine: str) -> dict:
    """Quantize every tensor of ``src`` (compressed-tensors rules) into ``out``; timing and peak memory.

    The compiled loop is loaded (numba's import and its on-disk cache, compiled on the first run) before the clock
    starts, and that time is reported on its own (``startup_s``)."""
    s0 = time.perf_counter_ns()
    warm = np.zeros((1, 16), ml_dtypes.bfloat16)
    quantize_stream(lambda a, b: warm[a:b], (1, 16), warm.dtype, amax=1.0, workers=1, engine=engine)
    stream_amax(lambda a, b: warm[a:b], (1, 16), warm.dtype)  # loads the compiled abs-max too
    startup_s = (time.perf_counter_ns() - s0) / 1e9
    t0 = time.perf_counter_ns()
    c0 = time.process_time()
    ck = open_checkpoint(src.parent)
    names = ck.names()
    infos = {n: ck.info(n) for n in names}
    amax = {
        n: stream_amax(partial(ck.read_rows, n), tuple(infos[n].shape), NUMPY_DTYPES["BF16"], name=n) for n in names
    }
    for g in GROUPS:
        shared = max(amax[n] for n in g if n in amax)
        amax.update({n: shared for n in g if n in amax})
    entries = []
    for n in names:
        o, i = infos[n].shape
        entries += [
            (f"{n}_packed", "U8", (o, i // 2)),
            (f"{n}_scale", "F8_E4M3", (o, i // 16)),
            (f"{n}_global_scale", "F32", (1,)),
        ]
    writer = ShardWriter(out, entries)
    for n in names:
        shape = tuple(infos[n].shape)
        if elementwise:
            q = nvfp4.quantize_nvfp4(ck.read_array(n), amax=amax[n], rules="compressed-tensors", name=n)
        else:
            q = quantize_stream(
                partial(ck.read_rows, n),
                shape,
                NUMPY_DTYPES["BF16"],
                amax=amax[n],
                name=n,
                workers=workers,
                engine=engine,
            )
        writer.write(f"{n}_packed", q.packed)
        writer.write(f"{n}_scale", q.block_scale)
        writer.write(f"{n}_global_scale", np.array([q.global_scale], np.float32))
        del q
    writer.close()
    elapsed_s = (time.perf_counter_ns() - t0) / 1e9
    nbytes = sum(x.nbytes for x in infos.values())
    return {
        "elapsed_s": elapsed_s,
        "cpu_s": time.process_time() - c0,
        "startup_s": startup_s,
        "input_bytes": nbytes,
        "peak_rss_bytes": peak_rss_bytes(),
    }


def child_surgery(src: Path, out: Path) -> dict:
    """``specscope surgery quantize-draft`` on ``src``'s folder (a compressed-tensors checkpoint) into ``out``."""
    from specscope.surgery import apply_plan, plan_quantize_draft

    t0, c0 = time.perf_counter_ns(), time.process_time()
    result = apply_plan(plan_quantize_draft(src.parent, out.parent / "result", layout="compressed-tensors"))
    elapsed_s = (time.perf_counter_ns() - t0) / 1e9
    shard = next((out.parent / "result").glob("model-mtp-nvfp4*.safetensors"))
    shard.rename(out)  # the tensors are named as the reference names them: <name>.weight_packed, ...
    return {
        "elapsed_s": elapsed_s,
        "cpu_s": time.process_time() - c0,
        "input_bytes": sum(p.stat().st_size for p in src.parent.glob("*.safetensors")),
        "peak_rss_bytes": peak_rss_bytes(),
        "audit_exit_code": result.audit_exit_code,
    }


def run_child(args: list[str], cpus: set[int] | None = None) -> dict:
    cmd = [sys.executable, __file__, *args]
    p = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        env={**os.environ, "TORCHDYNAMO_DISABLE": "1"},
        preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,
    )
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_ct(python: str, src: Path, out: Path, groups_json: Path) -> dict:
    if not Path(python).exists():
        return {"error": f"no compressed-tensors venv at {python} (make ct-venv)"}
    p = subprocess.run(
        [python, str(CT_SCRIPT), str(src), str(out), str(groups_json)],
        capture_output=True,
        text=True,
        env={"TORCHDYNAMO_DISABLE": "1", "PATH": "/usr/bin:/bin"},
    )
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def differing_bytes(a: Path, b: Path) -> dict[str, int]:
    """Tensor name -> number of bytes that differ (every tensor of ``b`` must be in ``a`` with the same size)."""
    ca, cb = open_checkpoint(a.parent), open_checkpoint(b.parent)
    out = {}
    for n in cb.names():
        x, y = np.frombuffer(ca.read_bytes(n), np.uint8), np.frombuffer(cb.read_bytes(n), np.uint8)
        out[n] = int((x != y).sum()) if x.size == y.size else max(x.size, y.size)
    return out


def fmt_row(r: dict) -> str:
    if "error" in r:
        return f"| {r['tool']} | failed: {r['error']} | | | | | | |"
    gib = r["input_bytes"] / 2**30
    diff = "reference" if r.get("diff") is None else f"{r['diff']:,} of {r['out_bytes']:,}"
    return (
        f"| {r['tool']} | {gib:.3f} | {r['elapsed_s']:.2f} | {r['input_bytes'] / r['elapsed_s'] / 1e9:.3f} | "
        f"{r['cpu_s']:.2f} | {r['input_bytes'] / r['cpu_s'] / 1e9:.3f} | {r['peak_rss_bytes'] / 2**30:.2f} | {diff} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every out_features (1.0 = the real head)")
    ap.add_argument("--quick", action="store_true", help="--scale 0.1")
    ap.add_argument("--elementwise", action="store_true", help="add the element-wise path's row (slow: ~6 s/GiB)")
    ap.add_argument("--ct-python", default=str(Path.home() / ".cache/specscope-test-venvs/ct/bin/python"))
    ap.add_argument("--tmp", type=Path, default=None, help="folder for the input and outputs (default: a temp dir)")
    ap.add_argument("--results", action="store_true", help="write the table into benchmarks/RESULTS.md")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    ap.add_argument("--child", choices=("specscope", "surgery"), help=argparse.SUPPRESS)
    ap.add_argument("--input", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--output", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--engine", default="auto", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child == "surgery":
        print(json.dumps(child_surgery(a.input, a.output)))
        return 0
    if a.child:
        print(json.dumps(child_specscope(a.input, a.output, a.workers, a.elementwise, a.engine)))
        return 0
    scale = 0.1 if a.quick else a.scale
    cpus = sorted(os.sched_getaffinity(0))
    tmp = Path(tempfile.mkdtemp(prefix="specscope-qbench-", dir=a.tmp))
    load0 = os.getloadavg()[0]
    try:
        (tmp / "in").mkdir()
        src, head_bytes = make_input(tmp / "in", scale)
        (tmp / "groups.json").write_text(json.dumps(GROUPS))
        rows = []
        engines = ["numba", "numpy"] if kernel() is not None else ["numpy"]
        plan = [(f"specscope {e}, 1 thread (1 CPU)", ["--workers", "1", "--engine", e], {cpus[-1]}) for e in engines]
        plan.append(
            (
                f"specscope {engines[0]}, {default_workers()} threads ({len(cpus)} CPUs)",
                ["--workers", str(default_workers()), "--engine", engines[0]],
                None,
            )
        )
        if a.elementwise:
            plan.append(("specscope element-wise (before)", ["--workers", "1", "--elementwise"], {cpus[-1]}))
        plan.append(("specscope surgery quantize-draft, end to end", ["--child", "surgery"], None))
        for tool, extra, pin in plan:
            folder = tmp / f"out{len(rows)}"
            folder.mkdir()
            child = [] if "--child" in extra else ["--child", "specscope"]
            r = run_child([*child, "--input", str(src), "--output", str(folder / "q.safetensors"), *extra], pin)
            rows.append({"tool": tool, "path": folder / "q.safetensors", **r})
        (tmp / "ct").mkdir()
        ct = {
            "tool": f"compressed-tensors (torch CPU, {len(cpus)} CPUs)",
            "path": tmp / "ct" / "q.safetensors",
            **run_ct(a.ct_python, src, tmp / "ct" / "q.safetensors", tmp / "groups.json"),
        }
        for r in rows:
            if "error" not in r and "error" not in ct:
                d = differing_bytes(r["path"], ct["path"])
                r["diff"], r["diff_by_tensor"] = sum(d.values()), {k: v for k, v in d.items() if v}
                r["out_bytes"] = ct["path"].stat().st_size
        rows.append(ct)
    finally:
        load1 = os.getloadavg()[0]
        shutil.rmtree(tmp, ignore_errors=True)
    for r in rows:
        r.pop("path", None)
    verdict = verdicts(rows, head_bytes)
    if a.format == "json":
        print(json.dumps({"head_bytes": head_bytes, "rows": rows, "verdicts": verdict}, indent=2))
    else:
        print(table(rows))
        print("\n".join(verdict))
    if a.results:
        flags = (" --quick" if a.quick else "") + (" --elementwise" if a.elementwise else "")
        body = (
            f"`python benchmarks/quantize_draft.py{flags}` "
            f"on {date.today()}: the Qwen3.6-27B MTP head's 8 linears ({head_bytes / 2**30:.3f} GiB of BF16, random), "
            f"safetensors in and out, each tool in its own process; `os.cpu_count()` = {os.cpu_count()}, load average "
            f"{load0:.1f} at the start, {load1:.1f} at the end.\n\n"
            + table(rows)
            + "\n\n"
            + "\n".join(f"- {v}" for v in verdict)
        )
        write_section(RESULTS, SECTION, f"## {TITLE}\n\n{body}")
    return 1 if any(r.get("diff") for r in rows) else 0


def table(rows: list[dict]) -> str:
    head = (
        "| tool | GiB in | wall s | GB/s (wall) | CPU s | GB/s per CPU-s | peak RSS GiB "
        "| bytes differing from compressed-tensors |"
    )
    return "\n".join([head, "|---|---|---|---|---|---|---|---|", *map(fmt_row, rows)])


def verdicts(rows: list[dict], head_bytes: int) -> list[str]:
    ok = [r for r in rows if "error" not in r]
    ct = next((r for r in ok if r["tool"].startswith("compressed")), None)
    one = max((r for r in ok if "1 thread" in r["tool"]), key=lambda r: r["input_bytes"] / r["elapsed_s"], default=None)
    many = next((r for r in ok if "threads" in r["tool"]), None)
    rate = {id(r): r["input_bytes"] / r["elapsed_s"] for r in ok}
    out = []
    if ct and many and one:
        best = max(rate[id(one)], rate[id(many)])
        out.append(f"speed: {best / rate[id(ct)]:.1f}x compressed-tensors (goal >= {GOALS['ratio']:.0f}x)")
    if one:
        out.append(
            f"one core ({one['tool']}): {rate[id(one)] / 1e9:.3f} GB/s wall, "
            f"{one['input_bytes'] / one['cpu_s'] / 1e9:.3f} GB/s per CPU-second (goal >= {GOALS['one_core_gb_s']} "
            f"GB/s; the wall figure holds on a quiet machine); loading the compiled loop took "
            f"{one.get('startup_s', 0.0):.2f} s before the clock started"
        )
    spec = [r for r in ok if r["tool"].startswith("specscope") and "element-wise" not in r["tool"]]
    if spec:
        peak = max(r["peak_rss_bytes"] for r in spec)
        out.append(
            f"peak memory: {peak / head_bytes:.2f}x the head's {head_bytes / 2**30:.3f} GiB "
            f"(goal <= {GOALS['peak_x_head']}x)"
        )
    compared = [r for r in ok if r.get("diff") is not None]
    if compared:
        bad = {k: v for r in compared for k, v in r["diff_by_tensor"].items()}
        out.append(
            f"bytes differing: {sum(r['diff'] for r in compared):,}"
            + (f" ({bad})" if bad else " (every packed byte, block scale and global scale equal in every row)")
        )
    return out


if __name__ == "__main__":
    sys.exit(main())
