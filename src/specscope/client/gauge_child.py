"""The gauge sampler's child process: standard library only, run by path
(``python gauge_child.py URL INTERVAL_S TIMEOUT_S NAMES [COPIES]``) so that it starts in milliseconds and never
imports the client.

Every ``INTERVAL_S`` seconds it GETs the ``/metrics`` URL over a plain HTTP/1.0 socket and prints one line
``t_ns running waiting queue_sum_s queue_count`` (``t_ns``: ``time.perf_counter_ns()`` just before connecting,
CLOCK_MONOTONIC on Linux, so it compares with the parent's instants; ``-`` for a figure the server does not expose)
or ``x`` when the read failed. It reads once at start, and once more when its stdin closes, then exits.

Names read (Prometheus text exposition, ``name{labels} value [timestamp]``), summed over label sets: ``NAMES`` is
``name=slot,name=slot,...`` (slot 0 running, 1 waiting, 2 queue-time sum s, 3 queue-time count), built by the parent
from the engine adapters' declarations (:func:`specscope.adapters.names.gauge_slots`), so that this file names no
engine and starts without importing specscope. The optional ``COPIES`` (``name=label/label,...``,
:func:`specscope.adapters.names.gauge_copies`) names the labels that mark copies of one count written by several ranks
of one replica: of the series of such a name that differ only in those labels, the lowest ranks' alone is added
(:func:`rank_order`, the order the /metrics reader keeps too).
"""

from __future__ import annotations

import os
import select
import socket
import sys
import time
from urllib.parse import urlsplit

# specscope.seam.target.GAUGE_USER_AGENT (this child runs as a script: standard library only; a test ties the two)
GAUGE_USER_AGENT = "specscope-gauges"

__all__ = ["sums", "fetch", "main", "parse_copies", "parse_names", "rank_order"]


def parse_names(spec: str) -> dict[str, int]:
    """``"a=0,b=1"`` (the command line's NAMES) -> ``{"a": 0, "b": 1}``."""
    out = {}
    for item in spec.split(","):
        name, _, slot = item.rpartition("=")
        if name and slot.isdigit():
            out[name] = int(slot)
    return out


def parse_copies(spec: str) -> dict[str, tuple[str, ...]]:
    """``"a=tp_rank/pp_rank"`` (the command line's COPIES) -> ``{"a": ("tp_rank", "pp_rank")}``."""
    out = {}
    for item in spec.split(","):
        name, _, labels = item.rpartition("=")
        if name and labels:
            out[name] = tuple(labels.split("/"))
    return out


def rank_order(labels: dict[str, str], copy_labels: tuple[str, ...]) -> tuple[tuple[bool, int, str], ...]:
    """Where a series stands among its copies: its copy labels' values in the declared order, numbers by value (the
    lowest first: rank 0 of the group)."""
    out = []
    for k in copy_labels:
        v = labels.get(k, "")
        digits = v.isascii() and v.isdigit() and len(v) <= 9
        out.append((not digits, int(v) if digits else 0, v))
    return tuple(out)


def _labels(inside: str) -> dict[str, str]:
    """The labels of ``k="v",k2="v2"`` (the text between a sample's braces; ``\\"`` escapes kept as written)."""
    out, i, n = {}, 0, len(inside)
    while i < n:
        eq = inside.find('="', i)
        if eq < 0:
            break
        key, j, value = inside[i:eq].strip(" ,"), eq + 2, []
        while j < n and inside[j] != '"':
            value.append(inside[j : j + 2] if inside[j] == "\\" else inside[j])
            j += 2 if inside[j] == "\\" else 1
        out[key] = "".join(value)
        i = j + 1
    return out


def sums(text: str, names: dict[str, int], copies: dict[str, tuple[str, ...]] | None = None) -> list[float | None]:
    """Per slot of ``names`` (sample name -> 0 running, 1 waiting, 2 queue sum s, 3 queue count), the sum over label
    sets, or None; a name in ``copies`` adds one series per copy group (the lowest ranks', module doc)."""
    out: list[float | None] = [None, None, None, None]
    first: dict[tuple[str, frozenset[tuple[str, str]]], tuple[tuple[tuple[bool, int, str], ...], float]] = {}
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        brace, space = line.find("{"), line.find(" ")
        cut = brace if 0 <= brace < space or (brace >= 0 and space < 0) else space
        name = line[:cut]
        slot = names.get(name)
        if slot is None:
            continue
        close = line.rfind("}")
        rest = line[close + 1 :] if brace >= 0 else line[cut:]
        try:
            value = float(rest.split()[0])
        except (IndexError, ValueError):
            continue
        marks = copies.get(name) if copies and brace >= 0 else None
        if marks:
            labels = _labels(line[brace + 1 : close])
            if any(k in labels for k in marks):
                key = (name, frozenset((k, v) for k, v in labels.items() if k not in marks))
                rank = rank_order(labels, marks)
                if key not in first or rank < first[key][0]:
                    first[key] = (rank, value)
                continue
        out[slot] = (out[slot] or 0.0) + value
    for (name, _rest), (_rank, value) in first.items():
        slot = names[name]
        out[slot] = (out[slot] or 0.0) + value
    return out


def fetch(url: str, timeout_s: float) -> str | None:
    """The body of ``GET url`` (HTTP/1.0, so the server closes after a plain body), or None on any failure."""
    u = urlsplit(url)
    try:
        with socket.create_connection((u.hostname or "127.0.0.1", u.port or 80), timeout=timeout_s) as sock:
            ask = f"GET {u.path or '/'} HTTP/1.0\r\nHost: {u.netloc}\r\nUser-Agent: {GAUGE_USER_AGENT}\r\n\r\n"
            sock.sendall(ask.encode())
            chunks = []
            while data := sock.recv(65536):
                chunks.append(data)
    except OSError:
        return None
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/") or head.split(b" ", 2)[1:2] != [b"200"]:
        return None
    return body.decode("utf-8", "replace")


def _line(url: str, timeout_s: float, names: dict[str, int], copies: dict[str, tuple[str, ...]]) -> str:
    t0 = time.perf_counter_ns()
    body = fetch(url, timeout_s)
    if body is None:
        return "x"
    values = sums(body, names, copies)
    if values[0] is None and values[1] is None:
        return "x"
    return " ".join([str(t0), *("-" if v is None else repr(v) for v in values)])


def main(argv: list[str]) -> int:
    """Sample until stdin closes; a parent that is gone (its end of stdout closed: ``BrokenPipeError``) or Ctrl-C
    ends the child quietly (stdout pointed at /dev/null, so that the interpreter's last flush cannot fail either)."""
    try:
        _sample(argv)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: the parent says what happened
        return 130
    return 0


def _sample(argv: list[str]) -> None:
    url, interval_s, timeout_s, names = argv[1], float(argv[2]), float(argv[3]), parse_names(argv[4])
    copies = parse_copies(argv[5]) if len(argv) > 5 else {}
    next_s = time.monotonic()
    while True:
        print(_line(url, timeout_s, names, copies), flush=True)
        next_s += interval_s
        ready, _, _ = select.select([sys.stdin], [], [], max(0.0, next_s - time.monotonic()))
        if ready and not sys.stdin.readline():  # stdin closed: one last reading, then exit
            print(_line(url, timeout_s, names, copies), flush=True)
            return


if __name__ == "__main__":
    sys.exit(main(sys.argv))
