"""One run, four formats: every number of the report document appears, with the same text, in each rendering;
an mtp config at 0.8 % acceptance raises the broken-head alarm in all of them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from bench_run import make_run

from hangguard import HANG_S
from specscope.report.build import load_document

# a number with its unit as the report writes it: 1,234 / 2.00x / 47.5% / 0.105 s / 1.23 GiB / -10%
NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?(?:x|%| s\b| GiB)?")


def numbers(text: str) -> Counter[str]:
    return Counter(NUMBER.findall(text))


class _Text(HTMLParser):
    """The text a browser shows (tags dropped, entities decoded), without the stylesheet."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = False

    def handle_starttag(self, tag, attrs):
        self._skip = tag == "style"
        if tag in ("td", "th", "li", "p", "div", "h1", "h2", "h3", "figcaption", "br", "tr"):
            self.parts.append("\n")

    def handle_endtag(self, tag):
        self._skip = False
        self.parts.append("\n")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def _json_strings(x) -> list[str]:
    if isinstance(x, str):
        return [x]
    if isinstance(x, dict):
        return [s for v in x.values() for s in _json_strings(v)]
    if isinstance(x, list):
        return [s for v in x for s in _json_strings(v)]
    return []


def _cli(*args: str) -> str:
    """The command's stdout; exit 1: the run's head accepts 0.8 % (ACCEPTANCE_NEAR_ZERO), a problem found."""
    res = subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)
    assert res.returncode == 1, res.stderr
    return res.stdout


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("formats")
    run = make_run(tmp / "run")
    out = {}
    for fmt, name in (("text", "r.txt"), ("markdown", "r.md"), ("json", "r.json"), ("html", "r.html")):
        _cli("report", str(run), "-f", fmt, "-o", str(tmp / name))
        out[fmt] = (tmp / name).read_text(encoding="utf-8")
    out["run"] = str(run)
    return out


def _document_texts(run: str) -> list[str]:
    doc = load_document([Path(run)])
    texts = [a.text for a in doc.alarms]
    for s in doc.sections:
        texts += [s.title, *s.verdicts, *s.notes]
        for t in s.tables:
            texts += [t.title, t.note, *t.headers, *(c for row in t.rows for c in row)]
    return texts


def test_every_number_of_the_document_appears_identically_in_each_format(rendered):
    want = numbers("\n".join(_document_texts(rendered["run"])))
    assert sum(want.values()) > 150  # the run has many figures; the check is not vacuous
    parser = _Text()
    parser.feed(rendered["html"])
    outputs = {
        "text": rendered["text"],
        "markdown": rendered["markdown"],
        "json": "\n".join(_json_strings(json.loads(rendered["json"]))),
        "html": "".join(parser.parts),
    }
    for fmt, text in outputs.items():
        got = numbers(text)
        missing = {n: k - got[n] for n, k in want.items() if got[n] < k}
        assert not missing, (fmt, missing)


def test_exact_figures_of_the_run(rendered):
    doc = load_document([Path(rendered["run"])])
    tables = {t.key: t for t in doc.tables}
    # workloads in the store's order (code, prose); mtp pooled over 4 ok cells per workload (steps = generated tokens
    # less accepted, bench_run._counters): code 204 / 408 draft tokens over 204 steps (64 + 72 + 128 + 144 generated,
    # half accepted), prose 4 / 520 over 260 steps (39 + 47 + 79 + 95, one accepted per cell); length 1 + accepted /
    # drafts
    assert tables["acceptance"].headers == ["config", "code (%)", "prose (%)"]
    # each figure says what it rests on: its verify steps and drafted tokens
    assert tables["acceptance"].rows == [
        ["mtp", "50.0% (len 2.00; 204 verify steps, 408 drafted)", "0.8% (len 1.02; 260 verify steps, 520 drafted)"]
    ]
    # N=1: code 32 + 36 steps, prose 39 + 47 (2 / 172 = 1.2 %); N=2: code 64 + 72, prose 79 + 95 (2 / 348 = 0.6 %)
    assert tables["acceptance_by_n"].rows == [
        ["1", "50.0% (68 verify steps, 136 drafted)", "1.2% (86 verify steps, 172 drafted)"],
        ["2", "50.0% (136 verify steps, 272 drafted)", "0.6% (174 verify steps, 348 drafted)"],
    ]
    # base prose N=1: 40 tokens in 1.100 s and 48 in 1.150 s -> mean of 36.36 and 41.74 tok/s
    assert tables["throughput:prose"].rows[0][:2] == ["1", "39.1"]
    # the degraded base code N=2 repeat 1 is listed with its reason and kept out of every mean
    assert tables["not_ok"].rows == [
        ["base", "code", "2", "1", "degraded", "2.00 / 2", "—", "STREAM_DEGRADED(degraded:truncated)"]
    ]
    # CV of 36.36 and 41.74 tok/s: sd (ddof 1) 3.80 / mean 39.05 = 9.7 %
    assert tables["cv"].rows[0][:3] == ["base", "code", "9.7%"]
    assert tables["cv"].rows[0][3] == "—"  # base code N=2 has one ok repeat: no CV


def test_the_broken_head_alarm_is_in_text_json_markdown_and_html(rendered):
    alarm = (
        "ALARM ACCEPTANCE_NEAR_ZERO (mtp on prose): mtp acceptance 0.8% over 260 verify steps (below 5.0%). "
        "Likely cause: an uninitialised or mis-quantized draft head"
    )
    fixes = ("specscope audit org/model-NVFP4", """--model-loader-extra-config '{"enable_weights_track": true}'""")
    doc = json.loads(rendered["json"])
    assert [a["code"] for a in doc["alarms"]] == ["ACCEPTANCE_NEAR_ZERO"]
    assert doc["alarms"][0]["text"].startswith(alarm)
    assert all(f in doc["alarms"][0]["text"] for f in fixes)
    flat_text = " ".join(rendered["text"].split())
    assert alarm in flat_text and all(f in flat_text for f in fixes)
    assert alarm in rendered["markdown"]
    parser = _Text()
    parser.feed(rendered["html"])
    page_text = "".join(parser.parts)
    assert alarm in page_text and all(f in page_text for f in fixes)
    assert '<div class="alarm">' in rendered["html"]
