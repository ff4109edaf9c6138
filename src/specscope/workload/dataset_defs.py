"""The published definitions of the standard speculative-decoding datasets: configs, splits, columns, categories.

Every fact here was read from the dataset's own definition at a named revision (``source`` of each
:class:`DatasetDef`); each column says what specscope does with it (``read``, or ``ignored`` with the reason), so
``docs/workloads.md`` and the refusals name the same columns:

* SPEED-Bench: the dataset card's ``dataset_info`` of ``nvidia/SPEED-Bench`` (revision ``487aa718`` as pinned by
  SGLang's SPEED-Bench loader; PR #8 "SPEED-Bench v1.1" changed only the throughput ``src_id`` values), the
  placeholder text of NVIDIA's ``specdec_bench`` / NeMo-Skills ``speed-bench/prepare.py`` (``TURNS_PLACEHOLDER``:
  rows whose source does not allow redistribution ship this text and are filled by that prepare step, which writes
  ``messages`` instead of ``turns``), the qualitative / throughput categories of AIPerf's ``SpeedBenchLoader`` and
  SGLang's loader, and the tier length of ``prepare.py`` (``throughput_Nk``: N x 1000 tokens of tiktoken
  ``o200k_base``);
* Spec-Bench: ``hemingkx/Spec-Bench`` ``evaluation/eval.py`` (FastChat's ``load_questions``: one JSON object per
  line, ``question_id``, ``category``, ``turns``; turn j+1 is asked after the model's own answer to turn j) and
  ``evaluation/speed.py`` (its six tasks: ``mt_bench`` = the MT-Bench categories, ``translation``,
  ``summarization``, ``qa``, ``math_reasoning``, ``rag``);
* MT-Bench: FastChat ``fastchat/llm_judge/data/mt_bench/question.jsonl`` (80 questions, 8 categories, 2 turns each,
  ``reference`` on math / reasoning / coding), the layout NVIDIA's ``specdec_bench`` ``datasets/mtbench.py`` reads;
* Blazedit / InstructCoder: vLLM ``benchmarks/datasets.py`` (``BlazeditDataset``, ``InstructCoderDataset``) and the
  Blazedit template of ``ise-uiuc/blazedit`` ``dataset/create_refined_dataset.py`` at ``7765137e``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from specscope.errors import ConfigError

__all__ = [
    "Column",
    "DatasetDef",
    "DATASETS",
    "SPEED_PLACEHOLDER",
    "SPEED_QUALITATIVE",
    "SPEED_THROUGHPUT",
    "SPEC_BENCH_TASKS",
    "MT_BENCH_CATEGORIES",
    "tier_of",
    "require_columns",
    "category_list",
    "categories_against",
]

#: The text SPEED-Bench ships in place of a turn whose source forbids redistribution (a prompt template may follow
#: it after a blank line); NeMo-Skills ``speed-bench/prepare.py`` / specdec_bench fill it from the source dataset.
SPEED_PLACEHOLDER = "FULL BENCHMARK DATA SHOULD BE FETCHED FROM THE SOURCE USING SPECDEC_BENCH"
#: The 11 categories of the ``qualitative`` config (80 rows each).
SPEED_QUALITATIVE = frozenset(
    {"coding", "humanities", "math", "multilingual", "qa", "rag", "reasoning", "roleplay", "stem", "summarization",
     "writing"}
)  # fmt: skip
#: The entropy tiers of every ``throughput_*`` config (512 rows each per input-length tier).
SPEED_THROUGHPUT = frozenset({"low_entropy", "mixed", "high_entropy"})
#: MT-Bench's eight categories (FastChat ``question.jsonl``; Spec-Bench's ``mt_bench`` task).
MT_BENCH_CATEGORIES = frozenset(
    {"writing", "roleplay", "reasoning", "math", "coding", "extraction", "stem", "humanities"}
)
#: Spec-Bench row category -> its task (``evaluation/speed.py``): the MT-Bench categories form ``mt_bench``.
SPEC_BENCH_TASKS = {
    **{c: "mt_bench" for c in MT_BENCH_CATEGORIES},
    **{t: t for t in ("translation", "summarization", "qa", "math_reasoning", "rag")},
}


@dataclass(frozen=True)
class Column:
    """One published column: its name and type as the source names them, and what specscope does with it."""

    name: str
    dtype: str
    use: str  # "read: ..." or "ignored: <why>"


@dataclass(frozen=True)
class DatasetDef:
    """One dataset as published.

    Attributes:
        name: specscope's name (``--dataset NAME``).
        hub_id: the hub dataset id (``{config}`` is the config's place in the id), or the repository holding the file.
        configs: the published configs (None: none); default_config: the one ``--dataset NAME`` means.
        split: the hub split the rows are published under (None: not a hub dataset).
        id_column: the column naming a row (None: the row's index names it).
        columns: the published columns, in the source's order.
        source: where these facts were read, with its revision.
        licence: the licence its card or repository states (docs/workloads.md's Datasets table).
        note: what its configs hold, where the configs alone do not say it ("" when nothing).
    """

    name: str
    hub_id: str
    configs: tuple[str, ...] | None
    default_config: str | None
    split: str | None
    id_column: str | None
    columns: tuple[Column, ...]
    source: str
    licence: str
    note: str = ""

    def required(self) -> tuple[str, ...]:
        """The columns a row must have (those specscope reads)."""
        return tuple(c.name for c in self.columns if c.use.startswith("read"))


_SPEED_COLUMNS = (
    Column(
        "question_id", "str, 32 hex", "read: the row id (conversation id, `meta.question_id`); a repeated id is refused"
    ),
    Column(
        "category",
        "str",
        "read: the workload `speed-bench.<category>`; must be the config's categories (the "
        'qualitative 11, or the 3 entropy tiers of a throughput config), else the file is refused as "a '
        'throughput split given as qualitative" (or back)',
    ),
    Column("sub_category", "str", "ignored: kept in the prompt's meta; not an axis"),
    Column(
        "turns",
        "list of str",
        "read: the user turns: turn 1 is the prompt, turns 2.. follow answers; a turn "
        f"holding `{SPEED_PLACEHOLDER}` is a placeholder and refused with the row id and the `source` to fill it "
        "from; an empty turn is refused; the prepared layout's `messages` (list of {role, content}: NeMo-Skills "
        "`prepare.py`, AIPerf's cache, vLLM's `SpeedBench` input) in place of `turns`: its user contents",
    ),
    Column("source", "str", "ignored: named in a placeholder refusal"),
    Column("src_id", "str", "ignored: the row id in that source dataset"),
    Column("difficulty", "str", "ignored: kept in the prompt's meta; not an axis"),
    Column("multiturn", "bool", "ignored: the number of turns is read from `turns`"),
)
_QUESTION_ID = Column("question_id", "int", "read: the row id (conversation id); a repeated id is refused")
_TURNS = Column("turns", "list of str", "read: the user turns, as SPEED-Bench's: turn k+1 is sent after the answer "
                "to turn k (the MT-Bench rows are two-turn conversations)")  # fmt: skip
_REFERENCE = Column("reference", "list of str", "ignored: reference answers for judging, never sent")
_SPEC_BENCH_COLUMNS = (
    _QUESTION_ID,
    Column("category", "str", "read: its task is the workload: the MT-Bench categories (writing, roleplay, reasoning, "
           "math, coding, extraction, stem, humanities) form `spec-bench.mt_bench`; `translation`, `summarization`, "
           "`qa`, `math_reasoning`, `rag` are their own; the row's category is kept as `meta.row_category`; another "
           "category is refused"),
    _TURNS,
    _REFERENCE,
)  # fmt: skip
_MT_BENCH_COLUMNS = (
    _QUESTION_ID,
    Column("category", "str", "read: the workload `mt-bench.<category>`"),
    _TURNS,
    _REFERENCE,
)

DATASETS: dict[str, DatasetDef] = {
    "speed-bench": DatasetDef(
        "speed-bench",
        "nvidia/SPEED-Bench",
        ("qualitative", "throughput_1k", "throughput_2k", "throughput_8k", "throughput_16k", "throughput_32k"),
        "qualitative",
        "test",
        "question_id",
        _SPEED_COLUMNS,
        "nvidia/SPEED-Bench dataset card dataset_info @487aa718 (the revision SGLang's SPEED-Bench loader pins; PR #8 "
        '"v1.1" changed only throughput src_id); TURNS_PLACEHOLDER and the prepared messages layout of NeMo-Skills '
        "speed-bench/prepare.py @aeda1da4 (= NVIDIA Model-Optimizer specdec_bench/datasets/speed.py); categories of "
        "AIPerf's SpeedBenchLoader",
        "NVIDIA Evaluation Dataset License",
        f"qualitative: {len(SPEED_QUALITATIVE)} categories x 80; throughput_*: entropy tiers "
        f"{', '.join(sorted(SPEED_THROUGHPUT))}, 512 each",
    ),
    "spec-bench": DatasetDef(
        "spec-bench",
        "hemingkx/Spec-Bench data/spec_bench/question.jsonl",
        None,
        None,
        None,
        "question_id",
        _SPEC_BENCH_COLUMNS,
        "hemingkx/Spec-Bench evaluation/eval.py @70f8b28f (FastChat load_questions: turn j+1 asked after the model's "
        "own answer) and evaluation/speed.py @132ba4cf (six tasks)",
        "Apache-2.0",
        "not a hub dataset: --dataset-path",
    ),
    "mt-bench": DatasetDef(
        "mt-bench",
        "lm-sys/FastChat fastchat/llm_judge/data/mt_bench/question.jsonl",
        None,
        None,
        None,
        "question_id",
        _MT_BENCH_COLUMNS,
        "FastChat fastchat/llm_judge/data/mt_bench/question.jsonl (80 questions, 8 categories, 2 turns), as NVIDIA "
        "Model-Optimizer specdec_bench/datasets/mtbench.py @c777c44c reads it",
        "Apache-2.0 (FastChat)",
        "a local file: --dataset-path",
    ),
    "blazedit": DatasetDef(
        "blazedit",
        "vdaita/edit_{config}_char",
        ("5k", "10k"),
        "5k",
        "train",
        None,
        (
            Column(
                "code",
                "str",
                "read: the original file, into Blazedit's own template; empty text refused (row id: the row index)",
            ),
            Column("change_request", "str", "read: the edit asked for, into the template; empty text refused"),
            Column("norm_distance", "float", "read: the category `small` (< 0.1), `medium` (< 0.3), `large`"),
        ),  # fmt: skip
        "vLLM benchmarks/datasets.py BlazeditDataset; template of ise-uiuc/blazedit "
        "dataset/create_refined_dataset.py @7765137e",
        "see the dataset card",
    ),
    "instructcoder": DatasetDef(
        "instructcoder",
        "likaixin/InstructCoder",
        None,
        None,
        "train",
        None,
        (
            Column(
                "instruction",
                "str",
                'read: after the input and a blank line, + " Just output the code, do not '
                "include any explanation.\" (vLLM's form)",
            ),
            Column("input", "str", "read: the code to edit, first"),
            Column("output", "str", "ignored: the reference answer, never sent"),
        ),  # fmt: skip
        "vLLM benchmarks/datasets.py InstructCoderDataset",
        "see the dataset card",
    ),
}


def tier_of(config: str | None) -> int | None:
    """The input-length tier of a SPEED-Bench throughput config in kilo-tokens (``throughput_8k`` -> 8), else None.

    The tier's nominal length is ``N x 1000`` tokens of tiktoken ``o200k_base`` (NeMo-Skills ``prepare.py``
    ``_get_num_tokens_from_config``); the server's own tokenizer counts differently, so the report shows the
    measured ``usage.prompt_tokens`` beside it."""
    if config is None or not config.startswith("throughput_") or not config.endswith("k"):
        return None
    digits = config[len("throughput_") : -1]
    return int(digits) if digits.isdigit() else None


def require_columns(
    name: str, spec: str, found: Iterable[str], needed: Sequence[str], known: Iterable[str] = ()
) -> None:
    """Refuse a file whose columns lack one the dataset publishes, naming the columns found and the closest match
    among the columns the dataset does not publish (``known``: its published columns; a published column, such as
    SPEED-Bench's ``sub_category``, is never a rename of another).

    Raises:
        ConfigError: a needed column is missing.
    """
    have = sorted(found)
    missing = [c for c in needed if c not in have]
    if not missing:
        return
    col = missing[0]
    strangers = [c for c in have if c not in set(known)]
    close = difflib.get_close_matches(col, strangers, n=1, cutoff=0.5)
    hint = f" (closest match: {close[0]!r}, renamed?)" if close else " (no column like it)"
    raise ConfigError(
        f"{spec}: column {col!r} is missing{hint}",
        found=f"columns {', '.join(have) or '(none)'}",
        expected=f"the columns {name} publishes: {', '.join(needed)}",
        fix=f"pass the {name} files as published (or rename {close[0]!r} to {col!r})"
        if close
        else f"pass the {name} files as published with --dataset-path",
    )


def category_list(name: str, config: str | None) -> tuple[frozenset[str], str] | None:
    """The full list of row categories dataset ``name`` publishes in ``config`` and its name in words (None: the
    dataset has no fixed list: Blazedit's sizes and InstructCoder's one category are derived by specscope)."""
    if name == "speed-bench":
        if config == "qualitative":
            return SPEED_QUALITATIVE, "the qualitative categories"
        return SPEED_THROUGHPUT, "the throughput entropy tiers"
    if name == "spec-bench":
        return frozenset(SPEC_BENCH_TASKS), "Spec-Bench's categories"
    if name == "mt-bench":
        return MT_BENCH_CATEGORIES, "MT-Bench's categories"
    return None


def categories_against(name: str, config: str | None, found: Iterable[str]) -> dict[str, list[str]] | None:
    """The row categories ``found`` named against the dataset's full list: ``{"present", "missing", "full_list"}``
    (sorted names; a subset file runs, and the run says which categories it lacks). None: no fixed list."""
    want = category_list(name, config)
    if want is None:
        return None
    present = sorted(set(found))
    return {"present": present, "missing": sorted(want[0] - set(present)), "full_list": sorted(want[0])}
