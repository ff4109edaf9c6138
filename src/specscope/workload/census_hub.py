"""The census of AIPerf's hub-backed dataset loaders: public datasets AIPerf downloads by name (``--public-dataset
NAME``, and its SPEED-Bench loaders), each with what specscope does with the dataset's file when the user downloads it.

Read at ai-dynamo/aiperf ``src/aiperf/plugin/plugins.yaml`` @018a03fc (section ``public_dataset_loader``: each name's
loader class and its ``hf_dataset_name`` / ``hf_subset`` / ``hf_split`` / ``prompt_column`` / media columns; the
SPEED-Bench loaders sit under ``custom_dataset_loader``) and the loader modules at the commits named per row. specscope
downloads nothing for ``--workload``: a dataset published as Parquet is a binary file (refused by name, with the
conversion to JSON Lines); the rows below say what a JSON Lines export of the dataset (the same column names) is:
read as a census layout (:data:`specscope.workload.census.CENSUS`), read through ``--dataset``, or refused by name
with the fix. ``tests/workload/test_census_hub.py`` writes a row of each with the columns named here and checks it.
"""

from __future__ import annotations

from dataclasses import dataclass

from specscope.workload.census import EACH_ROW

__all__ = [
    "HubDataset",
    "HUB_DATASETS",
    "MT_BENCH_PROMPTS_FIELDS",
    "PROBLEM_REFUSAL",
    "hub_dataset",
    "is_mt_bench_prompts",
]

_REPO = "ai-dynamo/aiperf src/aiperf/dataset/loader"
_HF_IR = f"{_REPO}/hf_instruction_response.py @27917cc7 HFInstructionResponseDatasetLoader"
_HF_CONV = f"{_REPO}/hf_conversation.py @6a5359ab HFConversationDatasetLoader"
_WEKA = f"{_REPO}/semianalysis_cc_traces_weka.py @729cf27f SemiAnalysisCCTracesWekaLoader"

#: What a row whose prompt is a ``problem`` column is, and the fix: no peer tool's file layout reads ``problem``.
PROBLEM_REFUSAL = (
    "a `problem` row (vLLM's AIMODataset, vllm-project/vllm vllm/benchmarks/datasets.py @0056b87f, for "
    "AI-MO/aimo-validation-aime, AI-MO/NuminaMath-1.5 and AI-MO/NuminaMath-CoT: `problem` the prompt, the token count "
    "of `solution` its output length; AIPerf public datasets aimo, aimo_aime, aimo_numina_cot, aimo_numina_1_5, "
    "spec_al_math500: HFInstructionResponseDatasetLoader sends the `problem` column as the prompt)",
    "write `problem` as the user message and `solution`, when the row has one, as the recorded answer whose token "
    f"count is the output length, as vLLM sizes it (never sent), e.g. jq -c '{EACH_ROW}"
    '{messages: ([{role: "user", content: '
    '.problem}] + (if .solution then [{role: "assistant", content: .solution}] else [] end)), id}\' FILE > '
    "OUT.jsonl, and pass OUT.jsonl with --workload",
)

#: The columns of a HuggingFaceH4/mt_bench_prompts row that tell it (AIPerf ``spec_al_mtbench``): ``prompt`` a LIST of
#: user turns, ``prompt_id`` its id (sqjian/aiperf ``src/aiperf/dataset/loader/mt_bench.py`` @90651162).
MT_BENCH_PROMPTS_FIELDS = ("prompt", "prompt_id")


def is_mt_bench_prompts(record: dict[str, object]) -> bool:
    """True for a row of HuggingFaceH4/mt_bench_prompts: its ``prompt`` a list (one user turn each), a ``prompt_id``."""
    return isinstance(record.get(MT_BENCH_PROMPTS_FIELDS[0]), list) and MT_BENCH_PROMPTS_FIELDS[1] in record


@dataclass(frozen=True)
class HubDataset:
    """One hub-backed AIPerf dataset loader (or a group of names sharing a loader and a reading).

    Attributes:
        key: the id tests name (``aiperf.hub.sharegpt``).
        names: AIPerf's ``--public-dataset`` names (or loader names) this row covers.
        source: repository, file, class and commit of the loader read.
        dataset: where AIPerf downloads it from (hub id, config, split; or the URL).
        reads: the columns AIPerf sends and how.
        specscope: ``read: ...`` (how, and as which census layout or ``--dataset``) or ``refused: ... -> fix``.
        layout: the census layout a JSON Lines export is read as (``""``: none; ``--dataset`` or refused).
    """

    key: str
    names: str
    source: str
    dataset: str
    reads: str
    specscope: str
    layout: str = ""

    @property
    def refused(self) -> bool:
        return self.specscope.startswith("refused")


HUB_DATASETS: tuple[HubDataset, ...] = (
    HubDataset(
        "aiperf.hub.sharegpt",
        "`sharegpt`",
        f"{_REPO}/sharegpt.py @2980cd9e ShareGPTLoader",
        "anon8231489123/ShareGPT_Vicuna_unfiltered `ShareGPT_V3_unfiltered_cleaned_split.json` (one JSON array)",
        "`conversations`: every human -> gpt pair a turn, the answer's token count its output length",
        "read: the downloaded file as the census layout aiperf.sharegpt (--workload NAME=FILE)",
        "aiperf.sharegpt",
    ),
    HubDataset(
        "aiperf.hub.spec_bench",
        "`spec_bench`",
        f"{_REPO}/spec_bench.py @27ebfc9e SpecBenchLoader",
        "hemingkx/Spec-Bench `data/spec_bench/question.jsonl` @fd2c1cd7 (GitHub)",
        "`turns`[0] (all turns with `multi_turn`)",
        "read: --dataset spec-bench --dataset-path question.jsonl (its six tasks), or --workload as vllm.spec_bench; "
        "every turn a conversation (AIPerf's default sends the first turn only)",
        "vllm.spec_bench",
    ),
    HubDataset(
        "aiperf.hub.speed_bench",
        "`speed_bench_qualitative`, `speed_bench_<category>`, `speed_bench_throughput_<1k|2k|8k|16k|32k>[_<tier>]`",
        f"{_REPO}/speed_bench.py @f35147dd SpeedBenchQualitativeLoader / SpeedBenchThroughput*Loader",
        "nvidia/SPEED-Bench, configs `qualitative`, `throughput_1k` ... `throughput_32k`",
        "the row's turns, one category or entropy tier per name",
        "read: --dataset speed-bench[:CONFIG] (a workload per category or tier; docs: Datasets)",
    ),
    HubDataset(
        "aiperf.hub.blazedit",
        "`blazedit_5k`, `blazedit_10k`",
        _HF_IR,
        "vdaita/edit_5k_char, vdaita/edit_10k_char, split `train`",
        "`code` and `change_request` in vLLM's BlazeditDataset template (`prompt_template`)",
        "read: --dataset blazedit:5k / blazedit:10k (the same template)",
    ),
    HubDataset(
        "aiperf.hub.instruct_coder",
        "`instruct_coder`",
        _HF_IR,
        "likaixin/InstructCoder, split `train`",
        "`instruction` alone",
        "read: --dataset instructcoder (vLLM's form: the input, a blank line, the instruction and its closing "
        "sentence; AIPerf sends the instruction alone); a JSON Lines export as --workload: the instruction and its "
        "input (Alpaca's join)",
    ),
    HubDataset(
        "aiperf.hub.question_columns",
        "`spec_al_gsm8k` (openai/gsm8k), `spec_al_humaneval` (openai/openai_humaneval), `spec_al_mbpp` "
        "(google-research-datasets/mbpp)",
        _HF_IR,
        "openai/gsm8k config `main`, openai/openai_humaneval, google-research-datasets/mbpp config `full`; split "
        "`test`",
        "`question`, `prompt`, `text` (`prompt_column`)",
        "read: a JSON Lines export as guidellm.jsonl: the first text column in the row's order is that column "
        "(gsm8k's `answer`, HumanEval's `canonical_solution`, MBPP's `code` never sent); Parquet refused as a binary "
        "file -> convert it to JSON Lines",
        "guidellm.jsonl",
    ),
    HubDataset(
        "aiperf.hub.problem_columns",
        "`aimo` (AI-MO/NuminaMath-TIR), `aimo_aime` (AI-MO/aimo-validation-aime), `aimo_numina_cot` "
        "(AI-MO/NuminaMath-CoT), `aimo_numina_1_5` (AI-MO/NuminaMath-1.5), `spec_al_math500` "
        "(HuggingFaceH4/MATH-500)",
        _HF_IR,
        "those hub ids, split `train` (MATH-500: `test`)",
        "`problem` (`prompt_column`)",
        "refused: a `problem` row by name (no peer tool's file layout reads `problem`; a row that also holds "
        "`messages` is read as chat messages instead) -> write `problem` as the user message, `solution` the "
        "recorded answer that sizes the output as vLLM's AIMODataset does (the refusal's jq)",
    ),
    HubDataset(
        "aiperf.hub.mt_bench",
        "`spec_al_mtbench`",
        "ai-dynamo/aiperf src/aiperf/plugin/plugins.yaml @018a03fc (`aiperf.dataset.loader.mt_bench:"
        "MTBenchDatasetLoader`); the module read at the fork sqjian/aiperf src/aiperf/dataset/loader/mt_bench.py "
        "@90651162 MTBenchDatasetLoader (the index holds no copy under ai-dynamo/aiperf)",
        "HuggingFaceH4/mt_bench_prompts, split `train`",
        "each row's `prompt` list (one user turn each, empty ones skipped): one conversation, each turn sent after "
        "the server's answer with that answer in its history (AIPerf's default context mode), no output length of "
        "its own (`--osl`)",
        "read: --dataset mt-bench --dataset-path question.jsonl (FastChat's file of the same 80 questions, two turns, "
        "a conversation); a JSON Lines export of its rows as --workload: each row's `prompt` list one conversation "
        "as AIPerf sends it (turns stripped, empty ones skipped), row id `prompt_id`, `--max-tokens` per turn",
    ),
    HubDataset(
        "aiperf.hub.multimodal",
        "`mmstar` (Lin-Chen/MMStar), `mmvu` (yale-nlp/MMVU), `vision_arena` (lmarena-ai/VisionArena-Chat), "
        "`llava_onevision` (lmms-lab/LLaVA-OneVision-Data)",
        f"{_HF_IR}; {_REPO}/mmvu.py @67cd74a3 MMVUDatasetLoader; {_HF_CONV}",
        "those hub ids (vision_arena, llava_onevision streamed)",
        "a question or the first user message with its `image` / `images` / `video`",
        "refused: the media column by name (specscope sends text) -> drop the media column to send the texts alone; an "
        "MMStar, MMVU, VisionArena or LLaVA-OneVision row is named with vLLM's reader and the jq that writes its "
        "prompt text (MMStar's question up to its options, LLaVA-OneVision's first two turns)",
    ),
    HubDataset(
        "aiperf.hub.asr",
        "`librispeech`, `voxpopuli`, `gigaspeech`, `ami`, `spgispeech`",
        f"{_REPO}/hf_asr.py @27917cc7 HFASRDatasetLoader",
        "openslr/librispeech_asr, facebook/voxpopuli, speechcolab/gigaspeech, edinburghcstr/ami, kensho/spgispeech",
        "the `audio` column, sent to /v1/audio/transcriptions",
        "refused: a speech-recognition row by name (`audio` a Hugging Face Audio value; specscope sends chat text) "
        "-> no specscope form: speech recognition is not a chat workload",
    ),
    HubDataset(
        "aiperf.hub.exgentic",
        "`exgentic`, `exgentic_v2`",
        f"{_REPO}/exgentic.py @58028d5b ExgenticDatasetLoader; exgentic_v2: {_REPO}/exgentic_v2.py @af50293e "
        "ExgenticV2DatasetLoader (at that commit a subclass of ExgenticDatasetLoader that reads nothing of its own, "
        "the dataset pinned at hub revision 4b8ad4ab; plugins.yaml @018a03fc names this class)",
        "Exgentic/agent-llm-traces, Exgentic/agent-llm-traces-v2, split `train` (streamed)",
        "per row (`harness`, `session_id`, `models`, `spans`): each LLM-call span's recorded messages and tool "
        "definitions, sent verbatim with its `max_tokens`",
        "refused: an Exgentic row by name -> write the calls' messages as chat rows (`messages`, `max_tokens`) for "
        "--workload; tool definitions have no specscope form",
    ),
    HubDataset(
        "aiperf.hub.weka",
        "`semianalysis_cc_traces_weka*`, `weka_hf`",
        _WEKA,
        "semianalysisai/cc-traces-weka-* (one WekaTrace per row), split `train`",
        "token counts and hash_ids of agentic requests (as aiperf.weka_trace)",
        "refused: a Weka trace by name (as aiperf.weka_trace) -> convert its requests to a Mooncake trace and pass it "
        "with --trace FILE",
    ),
)


def hub_dataset(key: str) -> HubDataset:
    """The row ``key`` (``StopIteration`` when there is none)."""
    return next(row for row in HUB_DATASETS if row.key == key)
