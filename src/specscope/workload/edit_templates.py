"""Building blocks of the edit pack's modules: function templates over one record type.

Each template is realistic, self-contained Python over a frozen dataclass with four fields (an id, a
group, a float amount, an int count) and one method. :mod:`specscope.workload.edit_corpus` picks a
subset per domain (``data/edit_domains.txt``) and assembles a 40-80 line module. Templates use
:class:`string.Template` placeholders so Python's own braces need no escaping:

``$C`` class, ``$s`` singular variable, ``$P`` plural variable, ``$id`` / ``$grp`` / ``$amt`` /
``$cnt`` fields, ``$method`` the method, ``$CONST`` the module's threshold constant.

Source: specscope's own content, written for this project (shape of the edit pack: seeds/000).
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template

__all__ = [
    "FunctionTemplate",
    "FUNCTION_TEMPLATES",
    "CLASS_TEMPLATE",
    "PARSE_TEMPLATE",
    "SAMPLE_ROWS_TEMPLATE",
    "MAIN_HEAD_PARSED",
    "MAIN_HEAD_LITERAL",
]


@dataclass(frozen=True)
class FunctionTemplate:
    """One function: its code, the demo lines ``main()`` runs with it, and the imports it needs.

    ``imports`` are ``(module, name)`` pairs merged into one ``from module import a, b`` line each.
    ``uses_const`` says the module must define ``$CONST``.
    """

    key: str
    code: Template
    demo: Template
    imports: tuple[tuple[str, str], ...] = ()
    uses_const: bool = False


def _t(text: str) -> Template:
    return Template(text.strip("\n"))


CLASS_TEMPLATE = _t("""
@dataclass(frozen=True)
class $C:
    $id: str
    $grp: str
    $amt: float
    $cnt: int

    def $method(self) -> float:
        return self.$amt * self.$cnt
""")

MAIN_HEAD_PARSED = _t("""
def main() -> None:
    records = parse_$P(SAMPLE_ROWS)
""")

MAIN_HEAD_LITERAL = _t("""
def main() -> None:
    records = [
        $C($row0),
        $C($row1),
        $C($row2),
    ]
""")

FUNCTION_TEMPLATES: tuple[FunctionTemplate, ...] = (
    FunctionTemplate(
        "total",
        _t('''
def total_$amt($P: Iterable[$C]) -> float:
    """Sum of $method over all records."""
    return sum($s.$method() for $s in $P)
'''),
        _t("""
    print(f"total: {total_$amt(records):.2f}")
"""),
        (("typing", "Iterable"),),
    ),
    FunctionTemplate(
        "group",
        _t('''
def group_by_$grp($P: Iterable[$C]) -> dict[str, list[$C]]:
    """Bucket records by $grp, keeping input order inside each bucket."""
    buckets: dict[str, list[$C]] = defaultdict(list)
    for $s in $P:
        buckets[$s.$grp].append($s)
    return dict(buckets)
'''),
        _t("""
    for name, members in group_by_$grp(records).items():
        print(name, len(members))
"""),
        (("collections", "defaultdict"), ("typing", "Iterable")),
    ),
    FunctionTemplate(
        "top",
        _t('''
def top_$P($P: Iterable[$C], limit: int = 3) -> list[$C]:
    """The records with the largest $method, ties broken by $id."""
    ranked = sorted($P, key=lambda $s: (-$s.$method(), $s.$id))
    return ranked[:limit]
'''),
        _t("""
    print([$s.$id for $s in top_$P(records, limit=2)])
"""),
        (("typing", "Iterable"),),
    ),
    FunctionTemplate(
        "below",
        _t('''
def below_threshold($P: Iterable[$C], threshold: int = $CONST) -> list[$C]:
    """Records whose $cnt is under the threshold."""
    return [$s for $s in $P if $s.$cnt < threshold]
'''),
        _t("""
    print(len(below_threshold(records)))
"""),
        (("typing", "Iterable"),),
        uses_const=True,
    ),
    FunctionTemplate(
        "index",
        _t('''
def index_by_$id($P: Iterable[$C]) -> dict[str, $C]:
    """Map each $id to its record; a repeated $id raises ValueError."""
    index: dict[str, $C] = {}
    for $s in $P:
        if $s.$id in index:
            raise ValueError(f"duplicate $id: {$s.$id}")
        index[$s.$id] = $s
    return index
'''),
        _t("""
    print(sorted(index_by_$id(records)))
"""),
        (("typing", "Iterable"),),
    ),
    FunctionTemplate(
        "validate",
        _t('''
def validate_$s($s: $C) -> list[str]:
    """Problems with one record, as sentences; empty when it is valid."""
    problems: list[str] = []
    if $s.$amt < 0:
        problems.append("$amt must not be negative")
    if $s.$cnt < 0:
        problems.append("$cnt must not be negative")
    if not $s.$grp:
        problems.append("$grp is empty")
    return problems
'''),
        _t("""
    for $s in records:
        print($s.$id, validate_$s($s) or "ok")
"""),
    ),
    FunctionTemplate(
        "share",
        _t('''
def share_by_$grp($P: Iterable[$C]) -> dict[str, float]:
    """Fraction of the overall $method contributed by each $grp."""
    totals: dict[str, float] = {}
    for $s in $P:
        totals[$s.$grp] = totals.get($s.$grp, 0.0) + $s.$method()
    grand_total = sum(totals.values())
    if grand_total == 0:
        return {name: 0.0 for name in totals}
    return {name: value / grand_total for name, value in totals.items()}
'''),
        _t("""
    print(share_by_$grp(records))
"""),
        (("typing", "Iterable"),),
    ),
    FunctionTemplate(
        "csv",
        _t('''
def to_csv_lines($P: Iterable[$C]) -> list[str]:
    """Render records as CSV lines under a header row."""
    lines = ["$id,$grp,$amt,$cnt"]
    for $s in $P:
        lines.append(f"{$s.$id},{$s.$grp},{$s.$amt:.2f},{$s.$cnt}")
    return lines
'''),
        _t("""
    print("\\n".join(to_csv_lines(records)))
"""),
        (("typing", "Iterable"),),
    ),
    FunctionTemplate(
        "range",
        _t('''
def ${amt}_range($P: Iterable[$C]) -> tuple[float, float, float]:
    """Minimum, mean and maximum $amt; raises ValueError when empty."""
    values = [$s.$amt for $s in $P]
    if not values:
        raise ValueError("no records to summarise")
    return min(values), sum(values) / len(values), max(values)
'''),
        _t("""
    print(${amt}_range(records))
"""),
        (("typing", "Iterable"),),
    ),
    FunctionTemplate(
        "merge",
        _t('''
def merge_$P(first: Iterable[$C], second: Iterable[$C]) -> list[$C]:
    """Combine two lists; on a shared $id the record from second wins."""
    merged = {$s.$id: $s for $s in first}
    merged.update({$s.$id: $s for $s in second})
    return sorted(merged.values(), key=lambda $s: $s.$id)
'''),
        _t("""
    print(len(merge_$P(records, records[:1])))
"""),
        (("typing", "Iterable"),),
    ),
    FunctionTemplate(
        "scale",
        _t('''
def scale_$amt($P: Iterable[$C], factor: float) -> list[$C]:
    """New records with $amt multiplied by factor, rounded to 2 places."""
    if factor <= 0:
        raise ValueError(f"factor must be positive, got {factor}")
    return [replace($s, $amt=round($s.$amt * factor, 2)) for $s in $P]
'''),
        _t("""
    print(scale_$amt(records, 1.1)[0])
"""),
        (("dataclasses", "replace"), ("typing", "Iterable")),
    ),
    FunctionTemplate(
        "page",
        _t('''
def page_of_$P($P: list[$C], page: int, size: int = 10) -> list[$C]:
    """One page of records; pages count from 1."""
    if page < 1 or size < 1:
        raise ValueError("page and size must be at least 1")
    start = (page - 1) * size
    return $P[start : start + size]
'''),
        _t("""
    print(page_of_$P(records, 1, size=2))
"""),
    ),
)

# The parse function is not in the pool: it is chosen per module together with SAMPLE_ROWS.
PARSE_TEMPLATE = _t('''
def parse_$P(rows: Iterable[Mapping[str, str]]) -> list[$C]:
    """Build records from CSV-like rows, skipping rows that have no $id."""
    parsed: list[$C] = []
    for row in rows:
        key = row.get("$id", "").strip()
        if not key:
            continue
        parsed.append(
            $C(
                $id=key,
                $grp=row.get("$grp", "").strip() or "unknown",
                $amt=float(row.get("$amt") or 0.0),
                $cnt=int(row.get("$cnt") or 0),
            )
        )
    return parsed
''')

SAMPLE_ROWS_TEMPLATE = _t("""
SAMPLE_ROWS = [
    $row0,
    $row1,
    $row2,
]
""")
