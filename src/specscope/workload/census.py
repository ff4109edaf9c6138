"""The census of workload-file layouts that the engines' and peer tools' benchmark clients accept (issue 36, 1b).

One :class:`Layout` per layout that ``vllm bench serve`` (``vllm/benchmarks/datasets.py``), SGLang's
``bench_serving`` (``python/sglang/bench_serving.py``), AIPerf (its custom-dataset loader models and public-dataset
loaders) and GuideLLM (its column mapper and file deserializers) read from a file, each with the repository, file and
commit it was read at, the fields that tool reads (prompt or messages, output length, ids, timestamps) and what
``specscope bench --workload NAME=FILE`` does with it: read (how), or refused by name with what to convert it to.
Synthetic (token-count-only) generators that read no file (``random``, ``prefix_repetition``, ``random-mm``,
``generated-shared-prefix``) are not layouts; published datasets read through ``--dataset`` are in
:mod:`specscope.workload.dataset_defs`.

The field names below are the readers' own: :mod:`specscope.workload.userfile` imports them (one home), and
``docs/workloads.md`` is generated from this table (``scripts/gen_workloads_doc.py``). Every row has a test that
builds a file of that layout from these names and checks what the truth server receives, row by row
(``tests/integration/test_census_layouts.py``); a row without one fails ``tests/workload/test_census.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from specscope.workload.dataset_rows import INSTRUCTCODER_SUFFIX

__all__ = [
    "Layout",
    "CENSUS",
    "TEXT_FIELDS",
    "OUTPUT_LENGTH_FIELDS",
    "ARENA_FIELDS",
    "MT_BENCH_101_TURN_KEYS",
    "ROW_ID_FIELDS",
    "SYSTEM_FIELDS",
    "MESSAGES_FIELDS",
    "MOONCAKE_MESSAGES_MARKS",
    "RECORDED_BODY_MARK",
    "SHAREGPT_FIELDS",
    "MEDIA_FIELDS",
    "SHAREGPT4V_REFUSAL",
    "LLAVA_ONEVISION_REFUSAL",
    "DATASET_VIEWER_REFUSAL",
    "EMBEDDING_FIELDS",
    "EMBEDDING_REFUSAL",
    "TOOLS_JSON_TEXT_FIX",
    "VISION_ARENA_REFUSALS",
    "ASR_REFUSAL",
    "SHAREGPT4V_LINES_FIX",
    "TRACE_ONLY_FIELDS",
    "SPECSCOPE_TRACE_FIELDS",
    "TIMING_FIELDS",
    "UNSENT_FIELDS",
    "OUTPUT_LENGTH_LOOKALIKES",
    "REQUEST_BODY_FIELDS",
    "INPUTS_JSON_SENT",
    "BAILIAN_FIELDS",
    "BAILIAN_REFUSAL",
    "BINARY_SUFFIXES",
    "SGLANG_TOKEN_TRACE_REFUSAL",
    "OTEL_REFUSAL",
    "SGLANG_AGENTIC_REFUSAL",
    "LONGBENCH_V2_FIELDS",
    "AUTOBENCH_FIELDS",
    "AUTOBENCH_FIX",
    "SYNTHETIC_CONFIG_SUFFIXES",
    "SYNTHETIC_REFUSAL",
    "DYNAMIC_PLAN_REFUSAL",
    "FOREIGN_LAYOUTS",
    "UNREAD_DATASET_ROWS",
    "UNPROMPTED_DATASET_ROWS",
    "CHAT_LIST_REFUSALS",
    "GENAI_PERF_INPUTS_REFUSAL",
    "ARENA_PREFERENCE_REFUSAL",
    "GUANACO_TRANSCRIPT",
    "GUANACO_REFUSAL",
    "SHAREGPT_TOOL_TAGS",
    "SHAREGPT_MESSAGES_REFUSAL",
    "SQUAD_REFUSAL",
    "COQA_FILE_REFUSAL",
    "MLPERF_FIELDS",
    "NEMOTRON_POST_TRAINING_LABELS",
    "EACH_ROW",
    "INSTRUCTION_INPUT_NOTE",
    "PASSAGE_FIELDS",
    "PASSAGE_NOTE",
    "HH_TRANSCRIPT",
    "HH_TRANSCRIPT_REFUSAL",
    "TABLE_TO_JSON_LINES",
    "GEMINI_CONTENTS_REFUSAL",
    "BEDROCK_CONVERSATION_REFUSAL",
    "COHERE_ROLES",
    "COHERE_ROLES_REFUSAL",
    "SHAREGPT_TOOL_REFUSAL",
    "MULTI_TURN_CONFIG_REFUSAL",
    "MULTI_TURN_ROW_KEYS",
    "RECORDED_HISTORY_NOTE",
    "SHAREGPT_TURNS_NOTE",
    "SHAREGPT_OPENING_NOTE",
    "LIMA_REFUSAL",
    "CAPYBARA_REFUSAL",
    "VERTEX_BATCH_REFUSAL",
    "DAG_REFUSAL",
    "DYNAMO_TRACE_SCHEMA",
    "DYNAMO_REFUSAL",
    "SAGEMAKER_FIELDS",
    "GUIDELLM_TEXT_COLUMNS",
    "AIPERF_SINGLE_TURN_FIELDS",
    "GUIDELLM_MEDIA_COLUMNS",
    "GUIDELLM_OUTPUT_COLUMNS",
    "GUIDELLM_COLUMN_PATTERN",
    "GUIDELLM_NOT_PLURALS",
    "GUIDELLM_UNUSED_COLUMNS",
    "GUIDELLM_MAPPED_COLUMNS",
    "layout",
    "FieldUse",
    "EVERY_ROW_READS",
    "FIELD_USE",
]

#: Fields that hold one prompt: specscope's and vLLM's ``prompt`` and GuideLLM's other text-column names
#: (``GenerativeColumnMapper.defaults["text_column"]``; ``conversation`` when it is a string), of which the row's
#: FIRST in its own key order (a CSV file's: its header's) is read, as GuideLLM takes the first matching column in the
#: dataset's column order (``mappers.py`` @ee7a7745 ``datasets_mappings``); then AIPerf's ``text_input``. An
#: ``instruction`` read first is joined with its ``input`` (Alpaca; :mod:`specscope.workload.userfile`).
TEXT_FIELDS = ("prompt", "question", "input", "context", "content", "conversation", "turn", "text", "text_input")
#: Per-row output length (tokens), in the order tried: specscope's / OpenAI's ``max_tokens`` and OpenAI's newer
#: ``max_completion_tokens`` (request bodies: AIPerf ``raw_payload`` rows, GuideLLM's chat bodies), AIPerf's
#: ``output_length``, vLLM's per-line ``output_tokens``, GuideLLM's ``output_tokens_count`` /
#: ``completion_tokens_count``, SGLang autobench's ``output_len`` and ``completion_tokens`` (autobench.py @3f56497e
#: ``sample_autobench_requests`` tries ``output_len``, ``max_tokens``, ``max_completion_tokens``,
#: ``completion_tokens``).
OUTPUT_LENGTH_FIELDS = (
    "max_tokens",
    "max_completion_tokens",
    "output_length",
    "output_tokens",
    "output_tokens_count",
    "completion_tokens_count",
    "output_len",
    "completion_tokens",
)
#: GuideLLM's text columns in its own list (``GenerativeColumnMapper.defaults["text_column"]`` @0016f762).
GUIDELLM_TEXT_COLUMNS = (
    "prompt",
    "instruction",
    "question",
    "input",
    "context",
    "content",
    "conversation",
    "turn",
    "text",
)
#: GuideLLM's output-count columns (``defaults["output_tokens_count_column"]``).
GUIDELLM_OUTPUT_COLUMNS = ("output_tokens_count", "completion_tokens_count")
#: How GuideLLM matches a column to one of its names (``GenerativeColumnMapper.column_name_pattern``, with ``re.I``):
#: the name in any case, an optional plural ``s`` / ``es``, an optional turn suffix ``-N`` / ``_N`` (``Prompt``,
#: ``prompts``, ``prompt_1`` are all its ``prompt`` column; turn N of a conversation for a suffix).
GUIDELLM_COLUMN_PATTERN = r"^(?P<name>{names})(?:es|s)?(?:[-_](?P<turn>\d+))?$"
#: Field names that GuideLLM's pattern would read as a plural of its own but that are other layouts' fields:
#: AIPerf's ``texts`` (a list), FastChat's / AIPerf's ``turns``, ShareGPT's ``conversations``; never renamed.
GUIDELLM_NOT_PLURALS = ("texts", "turns", "conversations")
#: A system prompt sent before the user turn (GuideLLM's ``prefix_column``: ``system_prompt``, ``system``, ``prefix``).
SYSTEM_FIELDS = ("system_prompt", "system", "prefix")
#: Chat messages (OpenAI; GuideLLM's ``raw_messages_column`` ``messages`` / ``chat_messages``; AIPerf's trace rows).
MESSAGES_FIELDS = ("messages", "chat_messages")
#: The fields of AIPerf's ``MooncakeTrace`` (``models.py`` @0109a64e) that tell a ``messages`` row as its trace row: no
#: OpenAI request body or chat dataset row carries them. AIPerf sends such a row's messages verbatim
#: (``mooncake_trace.py`` @0308411c ``_build_turn``: ``raw_messages``), a trailing assistant turn included.
MOONCAKE_MESSAGES_MARKS = ("output_length", "session_id", "timestamp", "delay", "context_mode")
#: The key with which specscope marks a record read from a request body that AIPerf sends as recorded (an
#: ``inputs.json`` payload, ``InputsJsonPayloadLoader``: ``Turn(raw_payload=...)``; a SageMaker capture,
#: ``SageMakerDataCaptureLoader._build_turn``: ``Turn(raw_messages=..., raw_tools=...)``): its messages are sent
#: verbatim (content parts, tool turns and calls), a trailing assistant turn included.
RECORDED_BODY_MARK = "specscope:recorded_body"
#: ShareGPT turns (``conversations``; SGLang's loader also takes ``conversation``).
SHAREGPT_FIELDS = ("conversations", "conversation")
#: A row's id, the first that names a row (a non-blank text or an integer): specscope's / AIPerf's ``id`` and
#: ``session_id``, FastChat's ``question_id``, HumanEval's and MBPP's ``task_id``, ``prompt_id``
#: (HuggingFaceH4/mt_bench_prompts, ultrachat_200k, no_robots), ``conversation_id`` (lmsys/lmsys-chat-1m),
#: ``conversation_hash`` (allenai/WildChat), ``uid`` (Arena-Hard-Auto v2.0 ``question.jsonl``: ``uid``, ``category``,
#: ``subcategory``, ``prompt``; its row id was the line number), ``idx`` (WizardLMTeam/WizardLM_evol_instruct_V2_196k's
#: ShareGPT rows; it was warned about as unread: no census reader reads a ShareGPT row's id, vLLM naming requests by
#: index, AIPerf by a generated session id).
ROW_ID_FIELDS = (
    "id", "question_id", "session_id", "task_id", "prompt_id", "conversation_id", "conversation_hash", "uid", "idx",
)  # fmt: skip
#: LMSYS Chatbot Arena exports (``lmsys/chatbot_arena_conversations``, ``lmsys/mt_bench_human_judgments``): the two
#: sides' chats of the same user turns (``{"role", "content"}``), beside ``model_a`` / ``model_b``, ``winner`` and
#: ``turn`` (an int: the number of user turns). No peer tool's reader takes this layout; specscope reads the first
#: side's chat as ``messages`` (the other side never sent), so ``turn`` is never GuideLLM's text column.
ARENA_FIELDS = ("conversation_a", "conversation_b")
#: The keys of one turn of an MT-Bench-101 row's ``history`` (``{"task", "id", "history": [{"user", "bot"}]}``,
#: ``mtbench101.jsonl``; open-compass/opencompass opencompass/datasets/subjective/mtbench101.py @a75fa253
#: ``MTBench101Dataset.load``): the question and the recorded answer, the answers before a turn its golden context.
MT_BENCH_101_TURN_KEYS = ("user", "bot")
#: Media a row may carry (AIPerf ``SingleTurn``, its ``image_uuids`` image slots too (models.py @0109a64e); GuideLLM
#: image / audio / video columns): refused by name.
MEDIA_FIELDS = ("image", "images", "image_uuids", "audio", "audios", "video", "videos")
#: Every field of AIPerf's ``SingleTurn`` row (ai-dynamo/aiperf ``src/aiperf/dataset/loader/models.py`` @0109a64e,
#: the census row ``aiperf.single_turn``; ``RandomPool`` holds a subset): a ``text`` row that carries a GuideLLM
#: column outside these is GuideLLM's, not AIPerf's (:mod:`specscope.workload.layout_of`).
AIPERF_SINGLE_TURN_FIELDS = (
    "type", "text", "texts", "role", *MEDIA_FIELDS, "output_length", "session_id", "timestamp", "delay", "extra",
)  # fmt: skip
#: GuideLLM's media column names (``GenerativeColumnMapper.defaults`` ``image_column``, ``video_column``,
#: ``audio_column``, vllm-project/guidellm ``src/guidellm/data/preprocessors/mappers.py`` @0016f762), matched with its
#: column pattern (any case, a plural, a turn suffix): a row with such a column is sent by GuideLLM with that media.
GUIDELLM_MEDIA_COLUMNS = (
    "image", "picture", "photo", "img",
    "video", "clip", "movie", "footage", "mp4", "mov", "avi",
    "audio", "sound", "voice", "speech", "wav", "mp3",
)  # fmt: skip
#: Fields that make a row a trace row (token counts and arrival times, no text): refused with ``--trace`` as the fix.
TRACE_ONLY_FIELDS = ("input_length", "hash_ids", "payload")
#: specscope's own trace row (:mod:`specscope.workload.trace`: ``arrival_s`` in s, ``input_tokens`` a token count):
#: with both and no text it is a trace row too, refused with ``--trace`` as the fix.
SPECSCOPE_TRACE_FIELDS = ("arrival_s", "input_tokens")
#: Per-row arrival times a text row may carry (AIPerf ``SingleTurn`` / ``MooncakeTrace`` ``timestamp`` and ``delay``,
#: ms, also per turn of a ``MultiTurn``; GuideLLM's ``relative_timestamp``): a ``--workload`` file is sent at the
#: cell's concurrency or rate, so they are not replayed and ``bench`` names them in a warning at the start
#: (``--trace FILE`` replays arrivals). ``inferenceTime``: a SageMaker data-capture record's ``eventMetadata`` time;
#: ``arrival_s``: specscope's own trace (:mod:`specscope.workload.trace`), whose rows may carry ``text``.
TIMING_FIELDS = ("timestamp", "delay", "relative_timestamp", "inferenceTime", "arrival_s")
#: Request-body fields a row may carry that specscope does not send (AIPerf ``SingleTurn`` / ``MooncakeTrace``
#: ``extra``: shallow-merged into the request body at dispatch; SGLang autobench's ``param_send`` and
#: ``extra_request_body``, autobench.py @3f56497e ``_collect_extra_request_body``), named in a warning by ``bench``.
UNSENT_FIELDS = ("extra", "param_send", "extra_request_body")
#: Names a row may give its output length under that none of the census's readers takes (each tool reads only the
#: names in :data:`OUTPUT_LENGTH_FIELDS`): never read as the length, so ``--max-tokens`` applies, and ``bench`` names
#: them in a warning rather than drop them silently (issue 36: "each row's output length silently replaced by the
#: default").
OUTPUT_LENGTH_LOOKALIKES = (
    "max_new_tokens",
    "max_output_tokens",
    "output_token_count",
    "num_output_tokens",
    "osl",
    "gen_len",
    "response_len",
)
#: GuideLLM's columns that specscope does not use (``GenerativeColumnMapper.defaults``, vllm-project/guidellm
#: ``src/guidellm/data/preprocessors/mappers.py`` @0016f762: ``prompt_tokens_count_column``, ``tools_column`` beyond
#: ``tools``, ``tool_response_column``, ``requeue_delay_column``, ``request_duration_column``,
#: ``conversation_turns_column``, ``model_column``; their use: ``finalizers/generative.py`` and
#: ``finalizers/conversation_graph.py`` @ee7a7745): ``(names, what GuideLLM does with it and why specscope ignores
#: it)``, matched with :data:`GUIDELLM_COLUMN_PATTERN`; ``bench`` names each in a warning, never drops it silently
#: (issue 36). ``tools``, ``tool_choice`` and ``relative_timestamp`` have their own homes (sent, unsent, timing).
GUIDELLM_UNUSED_COLUMNS: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("prompt_tokens_count", "input_tokens_count"),
        "GuideLLM's prompt token count, recorded as the request's input tokens; specscope counts the prompt as the "
        "server reports it",
    ),
    (
        ("functions", "tool_definitions"),
        "tool definitions GuideLLM sends as the request's tools; specscope sends a `tools` column only: rename it "
        "to tools",
    ),
    (
        ("tool_response", "tool_result", "tool_output"),
        "the tool result GuideLLM sends as the answer to the model's tool call before the next turn; specscope never "
        "answers tool calls",
    ),
    (
        ("requeue_delay",),
        "the time GuideLLM waits before queuing a conversation's next turn; specscope sends the rows at the cell's "
        "concurrency or rate",
    ),
    (
        ("duration", "request_duration"),
        "a request duration GuideLLM's trace replay schedules with; specscope sends the rows at the cell's "
        "concurrency or rate",
    ),
    (
        ("conversation_turns",),
        "a conversation graph (ConversationGraphData JSON) GuideLLM sends in place of the row's other columns; "
        "specscope sends the row's own prompt: write the graph's turns as a `messages` row to send them",
    ),
    (
        ("model",),
        "the model GuideLLM names in that row's request; specscope asks the server for the run's model",
    ),
)
#: Every column name GuideLLM's mapper reads from a row (``GenerativeColumnMapper.defaults`` @0016f762, all of its
#: column types, each matched with :data:`GUIDELLM_COLUMN_PATTERN`): a column of a GuideLLM row matching none of
#: them, and no field specscope reads, is read by neither tool; ``bench`` names it (issue 36: never silent).
GUIDELLM_MAPPED_COLUMNS: tuple[str, ...] = (
    *GUIDELLM_TEXT_COLUMNS,
    *GUIDELLM_OUTPUT_COLUMNS,
    *SYSTEM_FIELDS,
    *MESSAGES_FIELDS,
    *GUIDELLM_MEDIA_COLUMNS,
    "tools",
    "tool_choice",
    "relative_timestamp",
    *(name for names, _ in GUIDELLM_UNUSED_COLUMNS for name in names),
)
#: OpenAI / vLLM / SGLang sampling fields a row may carry as a request body (SGLang's ``openai`` dataset passes every
#: field but ``messages``, ``max_tokens``, ``max_completion_tokens`` and ``model`` into the request): specscope sends
#: its own sampling options, so these are named in the same warning as :data:`UNSENT_FIELDS`.
REQUEST_BODY_FIELDS = (
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "frequency_penalty",
    "presence_penalty",
    "repetition_penalty",
    "stop",
    "seed",
    "n",
    "logit_bias",
    "logprobs",
    "top_logprobs",
    "response_format",
    "ignore_eos",
    "min_tokens",
    "tool_choice",
    "chat_template_kwargs",
)
#: The keys of an AIPerf ``inputs.json`` payload that specscope sends or that do not change the answer (the model name
#: and the streaming switches: specscope streams to the server it is given); any other key is ``extra``, warned.
INPUTS_JSON_SENT = ("messages", "tools", "max_tokens", "max_completion_tokens", "model", "stream", "stream_options")
#: The fields that tell an AIPerf ``BailianTrace`` row (Alibaba Bailian usage traces): chained turns of token counts
#: whose ``timestamp`` is in seconds and whose ``hash_ids`` are 16-token blocks, so it is no Mooncake trace (ms, 512).
BAILIAN_FIELDS = ("chat_id", "parent_chat_id")
#: What a Bailian trace is and what to convert it to (one text for ``--workload`` and ``--trace``).
BAILIAN_REFUSAL = (
    "an AIPerf BailianTrace (chat_id / parent_chat_id: token counts, timestamp in seconds, 16-token hash_ids)",
    "convert it to a Mooncake trace (timestamp in ms = seconds x 1000, input_length, output_length; drop hash_ids) "
    "and pass that with --trace FILE",
)

#: The jq program that writes a CoQA row (hub or published form) as messages: the story and the first question, the
#: first answer after them as the recorded answer (:data:`UNREAD_DATASET_ROWS`, :data:`COQA_FILE_REFUSAL`)
_COQA_JQ = (
    '{messages: [{role: "user", content: (.story + "\\n\\n" + (.questions[0] | if type == "object" then .input_text '
    'else . end))}, {role: "assistant", content: (if (.answers | type) == "object" then .answers.input_text[0] else '
    ".answers[0].input_text end)}]}"
)
#: vLLM's dataset readers, at the release the census rows read
_VLLM = "vllm-project/vllm vllm/benchmarks/datasets.py @0056b87f"
#: vLLM's hub dataset readers after datasets.py was split into a package (MMStarDataset and
#: MultiModalConversationDataset, which the census rows of MMStar and LLaVA-OneVision read)
_VLLM_HF = "vllm-project/vllm vllm/benchmarks/datasets/huggingface.py @237145ea"
#: AIPerf's hub loaders of image rows (plugins.yaml entries ``mmstar``, ``llava_onevision``)
_AIPERF_HF = "ai-dynamo/aiperf src/aiperf/dataset/loader"
#: The jq that keeps a zeta ``output`` from its first ``<|editable_region_start|>`` as vLLM's
#: NextEditPredictionDataset does (``output[output.find(marker):]``, characters; ``output[-1:]`` without it). It splits
#: at the marker, as jq 1.6's ``index`` on a string counts bytes while ``.[n:]`` slices characters (a cut inside the
#: text on a row with non-ASCII text before the marker).
_ZETA_CUT = (
    'split("<|editable_region_start|>") | if length > 1 then "<|editable_region_start|>" + (.[1:] | '
    'join("<|editable_region_start|>")) else (.[0] // "" | .[-1:]) end'
)
#: The one way every row jq of the census starts: each row of a file that is either JSON Lines (each line a row
#: object) or one JSON array of row objects (``Dataset.to_json(lines=False)``, a published ``.json``), so that the same
#: jq runs on both forms.
EACH_ROW = '(if type == "array" then .[] else . end) | '
#: AIPerf's trace and agentic layouts that specscope refuses by name: ``(fields that tell the row, what it is, the
#: fix)``. A row is that layout when it holds every field named (the loaders' own ``can_load`` keys or required
#: fields, read at the commits of their census rows); checked before any other reading, so that none is read as
#: another layout's row (a Baseten row has a ``prompt``: it was sent as a prompt row without its arrival times).
FOREIGN_LAYOUTS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        ("timestamp_start_unix_ms", "input_tokens", "output_tokens"),
        "a Baseten trace row (AIPerf BasetenTraceDatasetLoader, a Parquet trace: each `prompt` replayed at "
        "`timestamp_start_unix_ms`, grouped by `provided_session_id`, asking for exactly `output_tokens`)",
        'for --workload write AIPerf single_turn rows ({"text": prompt, "output_length": output_tokens, '
        '"session_id": provided_session_id}); to replay its arrivals write a specscope trace (arrival_s, text, '
        "output_tokens) and pass it with --trace FILE",
    ),
    (
        ("harness", "models", "spans"),
        "an Exgentic agent trace row (AIPerf public datasets exgentic / exgentic_v2: ExgenticDatasetLoader, "
        "exgentic.py @58028d5b, replays each span's recorded messages and tool definitions)",
        "write the calls' messages as chat rows (messages, max_tokens) for --workload; tool definitions have no "
        "specscope form",
    ),
    (
        ("round_index", "input_tokens_total", "prefix_tokens", "newly_append_tokens", "timing_events"),
        "a TraceLab trace row (AIPerf TraceLabTraceDatasetLoader: agentic rounds of token counts, no text)",
        "convert its rounds to a Mooncake trace (timestamp in ms, input_length, output_length) and pass that with "
        "--trace FILE",
    ),
    (
        ("requests", "block_size", "hash_id_scope"),
        "an AIPerf Weka trace (WekaTraceLoader: one JSON object per file, `requests` of token counts `in` / `out` "
        "with `hash_ids`, times `t` in seconds, subagents nested)",
        "convert its requests to a Mooncake trace (timestamp = t x 1000 ms, input_length = in, output_length = out) "
        "and pass that with --trace FILE",
    ),
)
#: Public dataset rows that no peer tool's file reader takes and that hold no field specscope reads as a prompt
#: (or one it would misread: an OpenAssistant message's ``text``), refused by name as :data:`FOREIGN_LAYOUTS` are:
#: ``(fields that tell the row, what it is, the fix)``.
UNREAD_DATASET_ROWS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        ("article", "highlights"),
        "a CNN/DailyMail row (`article`, `highlights`: abisee/cnn_dailymail; no benchmark client's file reader takes "
        "it)",
        "write each row as a `prompt` (a summarization instruction and the article) with its output length; "
        "`highlights` is the reference summary, never sent",
    ),
    (
        ("id", "items"),
        "a raw ShareGPT export row (`items` of HTML turns, before the cleaning that produced "
        "ShareGPT_V3_unfiltered_cleaned_split.json)",
        "use the cleaned ShareGPT file, or rename `items` to `conversations` once the HTML is stripped",
    ),
    (
        ("message_id", "parent_id"),
        "an OpenAssistant message row (`message_id`, `parent_id`: OpenAssistant/oasst1 messages, one message of a "
        "tree, not a conversation)",
        "build each conversation from its tree (parent_id links, role prompter -> user) and write `messages` rows",
    ),
    (
        ("message_tree_id", "prompt"),
        "an OpenAssistant message tree (`message_tree_id`, `prompt`: the tree's first message with its `replies` "
        "nested, as OpenAssistant/oasst2 `*.trees.jsonl` writes it; not one conversation)",
        "write each path from `prompt` down its `replies` as a `messages` row (role prompter -> user); the last "
        "reply's token count is the output length",
    ),
    (
        ("prompt", "answers", "num_responses"),
        'a Nectar row (berkeley-nest/Nectar: `prompt` a "Human: ... Assistant:" transcript, `answers` ranked '
        "model answers, `turns` a count)",
        "write the transcript's turns as `messages` (Human -> user, Assistant -> assistant, the trailing "
        '"Assistant:" dropped), or a single-turn prompt without its markers as `prompt`',
    ),
    (
        ("question", "answer_0", "answer_1", "quotes_0"),
        "a WebGPT comparison row (openai/webgpt_comparisons: `question` an object of `full_text`, `id`, `dataset`; "
        "`answer_0` / `answer_1` two answers with their `quotes_*` and `score_*`)",
        f"send the question's text as the prompt, e.g. jq -c '{EACH_ROW}"
        "{prompt: .question.full_text, id: .question.id}' FILE > "
        "OUT.jsonl (the answers are reference answers, never sent)",
    ),
    (
        ("session_id", "conversation_input"),
        "a WildBench task row (allenai/WildBench: `conversation_input` the chat up to the user's last turn, as "
        "messages with `language`, `redacted`, `toxic`; `references`, `checklist` the judge's; no benchmark client's "
        "file reader takes it)",
        f"write the chat as `messages`, e.g. jq -c '{EACH_ROW}"
        "{messages: [.conversation_input[] | {role, content}], id: "
        ".session_id}' FILE > OUT.jsonl",
    ),
    (
        ("instruction", "instances"),
        "a Self-Instruct task row (yizhongw/self-instruct: `instruction`, `instances` of {`input`, `output`}; the "
        "instance's input belongs to the prompt, and Alpaca's reading would send the instruction alone)",
        f"write the instruction with its first instance's input as an Alpaca row, e.g. jq -c '{EACH_ROW}"
        "{instruction, input: "
        ".instances[0].input, id}' FILE > OUT.jsonl",
    ),
    (
        ("id", "question", "function"),
        "a Berkeley Function-Calling Leaderboard row (gorilla-llm/Berkeley-Function-Calling-Leaderboard: `question` "
        "a list of turns, each a list of messages; `function` the definitions in BFCL's own types)",
        f"send the first turn's messages, e.g. jq -c '{EACH_ROW}"
        "{messages: .question[0], id}' FILE > OUT.jsonl (to send the "
        "functions, write them as OpenAI function definitions under `tools`)",
    ),
    (
        ("custom_id", "method", "url", "body"),
        "an OpenAI Batch API request line (`custom_id`, `method`, `url`, `body`: the input of a batch runner, "
        "vllm-project/vllm vllm/entrypoints/openai/run_batch.py @0056ae7b BatchRequestInput; no benchmark client's "
        "file reader takes it)",
        "write each line's `body` as a row (a request body: its `messages` and `max_tokens`, as AIPerf raw_payload "
        f"rows are read), e.g. jq -c '{EACH_ROW}.body' FILE > OUT.jsonl",
    ),
    (
        ("custom_id", "params"),
        "a Message Batches request line (`custom_id`, `params`: one request of a batch, the Messages API's own body "
        "under `params`, as Anthropic's POST /v1/messages/batches `requests` items are documented; no benchmark "
        "client's file reader takes it)",
        "write each line's `params` as a row (its `messages` and `max_tokens`; a `system` string there becomes a "
        f"system message), e.g. jq -c '{EACH_ROW}.params' FILE > OUT.jsonl",
    ),
    (
        ("story", "questions"),
        "a CoQA row (stanfordnlp/coqa: `story` the passage, `questions` the conversation's questions and `answers` "
        "its answers, as lists of strings on the hub or of {`input_text`, `turn_id`} objects in the published JSON; "
        "each question after the first follows the answers before it; no benchmark client's file reader takes it)",
        "send the story with its first question, the first answer the recorded answer whose token count is the "
        f"output length (never sent), e.g. jq -c '{EACH_ROW}{_COQA_JQ}' FILE > OUT.jsonl",
    ),
    (
        ("events", "input", "output"),
        "a Next Edit Prediction row (zed-industries/zeta: `events` the user's edits, `input` the excerpt around the "
        f"cursor, `output` the rewritten excerpt; vLLM's NextEditPredictionDataset, {_VLLM}, sends `events` and "
        "`input` in the zeta prompt and sizes the output by `output` from its <|editable_region_start|> marker; "
        "GuideLLM's mapper would send `input` alone)",
        "write the zeta prompt as vLLM does, `output` from the marker the recorded answer whose token count is the "
        f"output length (never sent), e.g. jq -c '{EACH_ROW}"
        '{messages: [{role: "user", content: ("### Instruction:\\nYou are '
        "a code completion assistant and your task is to analyze user edits and then rewrite an excerpt that the "
        "user provides, suggesting the appropriate edits within the excerpt, taking into account the cursor "
        'location.\\n\\n### User Edits:\\n\\n" + .events + "\\n\\n### User Excerpt:\\n\\n" + .input + '
        '"\\n\\n### Response:\\n\\n")}, {role: "assistant", content: (.output | '
        f"{_ZETA_CUT})}}]}}' FILE > OUT.jsonl",
    ),
    (
        ("code", "change_request"),
        "a BlazEdit row (vdaita/edit_5k_char, vdaita/edit_10k_char: `code` a file, `change_request`, "
        f"`norm_distance`; vLLM's BlazeditDataset, {_VLLM}, sends them in BlazEdit's template, asking 4000 tokens "
        "unless told another output length; no prompt field)",
        f"write vLLM's prompt, e.g. jq -c '{EACH_ROW}"
        '{prompt: ("Given a code file, please apply the change requests and '
        'generate the new file.\\n\\nOriginal file:\\n```python\\n" + .code + "\\n```\\n\\nChange request:\\n" + '
        '.change_request + "\\n\\nPlease generate the new code file in the \\"New file\\" section below.")}\' '
        "FILE > OUT.jsonl (--max-tokens 4000 asks what vLLM asks; vLLM skips rows whose `norm_distance` is outside "
        "its minimum and maximum distance, 0 and 1 by default)",
    ),
    (
        ("video", "question", "choices", "question_type"),
        "an MMVU row (yale-nlp/MMVU: `video` a video's URL, `question`, `choices` an object of lettered options, "
        f"`answer`; vLLM's MMVUDataset, {_VLLM}, sends the question, a space and the options as `A.text` joined by "
        "spaces, with the video, asking 128 tokens unless told another output length; specscope sends text)",
        f"drop the video and send vLLM's prompt text, e.g. jq -c '{EACH_ROW}"
        '{prompt: (.question + " " + ([.choices | '
        'to_entries[] | "\\(.key).\\(.value)"] | join(" "))), id}\' FILE > OUT.jsonl (--max-tokens 128 asks what '
        "vLLM asks; `answer` is the answer key, never sent)",
    ),
    (
        ("question", "options", "image_1"),
        "an MMMU row (MMMU/MMMU: `question`, `options` the text of a list, `image_1` ... `image_7`, `answer`; SGLang's "
        "mmmu reader, sgl-project/sglang python/sglang/benchmark/datasets/mmmu.py @0fc1a4fb sample_mmmu_requests, "
        'sends "Question: ", the question and "\\n\\nAnswer: " with `image_1`, asking 256 tokens unless told '
        "another output length, and skips a row without `image_1`; specscope sends text)",
        f'drop the images and send that prompt text, e.g. jq -c \'{EACH_ROW}{{prompt: ("Question: " + .question + '
        '"\\n\\nAnswer: "), id}\' FILE > OUT.jsonl (--max-tokens 256 asks what SGLang asks)',
    ),
    (
        ("question", "image", "l2_category"),
        'an MMStar row (Lin-Chen/MMStar: `index`, `question` with its lettered options after "Options:", `image`, '
        f"`answer`, `category`, `l2_category`; vLLM's MMStarDataset, {_VLLM_HF}, sends the question up to "
        '"Options:", stripped, with the image, asking 128 tokens unless told another output length; AIPerf\'s '
        f"mmstar, {_AIPERF_HF}/hf_instruction_response.py @27917cc7 HFInstructionResponseDatasetLoader, sends the "
        "whole question with the image; specscope sends text)",
        f"drop the image and send vLLM's prompt text, e.g. jq -c '{EACH_ROW}"
        '{prompt: (.question | split("Options:")[0] | sub("^\\\\s+"; "") | sub("\\\\s+$"; "")), id: .index}\' '
        "FILE > OUT.jsonl (--max-tokens 128 asks what vLLM asks; `{prompt: .question, id: .index}` sends AIPerf's "
        "text, the options included; `answer` is the answer key, never sent)",
    ),
    (
        ("uid", "ans_id", "model", "messages"),
        "an Arena-Hard-Auto model answer row (`uid`, `ans_id`, `model`, `messages` ending in the model's answer "
        "object: what lmarena/arena-hard-auto gen_answer.py writes under model_answer/; not questions)",
        "pass the questions they answer, the benchmark's question.jsonl (`uid`, `prompt`), with --workload "
        "NAME=question.jsonl",
    ),
    (
        ("question_id", "answer_id", "model_id", "choices"),
        "a FastChat model answer row (`question_id`, `answer_id`, `model_id`, `choices` of answer `turns`: a model's "
        "answers as lm-sys/FastChat fastchat/llm_judge/gen_model_answer.py writes them, and Spec-Bench, Medusa and "
        "EAGLE under model_answer/; not questions)",
        "pass the questions they answer, the benchmark's question.jsonl (Spec-Bench's with --dataset spec-bench "
        "--dataset-path question.jsonl; MT-Bench's with --workload NAME=question.jsonl)",
    ),
)
#: Public dataset rows that hold no field specscope reads as a prompt, named when nothing else of the row is read
#: (a SWE-bench row with the ``text`` of ``princeton-nlp/SWE-bench_oracle`` is read by that ``text``): ``(fields that
#: tell the row, what it is, the fix)``. They were refused with "no messages/conversations/... field (keys: ...)".
UNPROMPTED_DATASET_ROWS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        ("chosen", "rejected"),
        "a preference pair row (`chosen`, `rejected`: two whole transcripts, as Anthropic/hh-rlhf writes them "
        '("\\n\\nHuman: ...\\n\\nAssistant: ..."); no prompt field)',
        "write the shared opening of each pair (the text up to its last `Assistant:`) as `messages` (Human -> user, "
        "Assistant -> assistant) or as a `prompt`",
    ),
    (
        ("query", "response"),
        "a `query` / `response` row (meta-math/MetaMathQA; no benchmark client reads a `query` column)",
        f"rename the column to prompt (e.g. jq -c '{EACH_ROW}"
        "{prompt: .query}' FILE > OUT.jsonl); `response` is the reference "
        "answer, never sent",
    ),
    (
        ("question_content", "platform"),
        "a LiveCodeBench problem row (`question_title`, `question_content`, `starter_code`, test cases: "
        "livecodebench/code_generation_lite; its runner builds the prompt from `question_content` and `starter_code`)",
        "write each problem as a `prompt` (`question_content`, then `starter_code` when not empty), e.g. "
        f"jq -c '{EACH_ROW}{{prompt: .question_content, id: .question_id}}' FILE > OUT.jsonl",
    ),
    (
        ("instance_id", "problem_statement"),
        "a SWE-bench task row (`instance_id`, `repo`, `base_commit`, `problem_statement`, `patch`: an agent task, "
        "princeton-nlp/SWE-bench; no prompt field)",
        "use a SWE-bench file with the prompt built (princeton-nlp/SWE-bench_oracle or _bm25_*: its `text` column is "
        "read), or write `prompt` rows from `problem_statement`",
    ),
    (
        ("system", "chat"),
        "a Glaive function-calling row (glaiveai/glaive-function-calling-v2: `system` the function definitions, "
        "`chat` a USER / ASSISTANT / FUNCTION RESPONSE transcript; no prompt field)",
        f"write its first user turn as `messages` after the system message, e.g. jq -c '{EACH_ROW}{{messages: [{{role: "
        '"system", content: (.system | ltrimstr("SYSTEM: "))}, {role: "user", content: (.chat | '
        'split("ASSISTANT:")[0] | ltrimstr("USER: ") | gsub("^\\\\s+|\\\\s+$"; ""))}]}\' FILE > OUT.jsonl',
    ),
    (
        ("query", "answers", "tools"),
        "an xLAM function-calling row (Salesforce/xlam-function-calling-60k: `query` the user's request, `answers` and "
        "`tools` JSON text, the tools' parameters in xLAM's own types, not JSON Schema; no prompt field)",
        f"send the query as the prompt, e.g. jq -c '{EACH_ROW}"
        "{prompt: .query, id}' FILE > OUT.jsonl (`answers` are the reference "
        "calls, never sent; to send tools, write them as OpenAI function definitions)",
    ),
    (
        ("query", "answer"),
        "a `query` / `answer` row (m-a-p/CodeFeedback-Filtered-Instruction; no benchmark client reads a `query` "
        "column)",
        f"rename the column to prompt, e.g. jq -c '{EACH_ROW}"
        "{prompt: .query}' FILE > OUT.jsonl (`answer` is the reference "
        "answer, never sent)",
    ),
    (
        ("complete_prompt", "instruct_prompt"),
        "a BigCodeBench task row (bigcode/bigcodebench: `complete_prompt` the code-completion prompt, "
        "`instruct_prompt` the chat instruction; no `prompt` field)",
        "send the chat instruction as the prompt (or `complete_prompt` for the completion split), e.g. jq -c "
        f"'{EACH_ROW}{{prompt: .instruct_prompt, id: .task_id}}' FILE > OUT.jsonl",
    ),
    (
        ("question_text", "document_text"),
        "a Natural Questions row (google-research-datasets/natural-questions, the simplified train file: "
        "`question_text`, `document_text` the whole Wikipedia page, `annotations` the answer spans; no prompt field)",
        f"send the question as the prompt, e.g. jq -c '{EACH_ROW}"
        "{prompt: .question_text}' FILE > OUT.jsonl (`example_id` is "
        "wider than jq's numbers keep exact, so it is left out)",
    ),
    (
        ("post_id", "history", "human_ref_A"),
        "a Stanford Human Preferences row (stanfordnlp/SHP: `history` the post, `human_ref_A` / `human_ref_B` two "
        "comments answering it, `labels` the preferred one; no prompt field)",
        f"send the post as the prompt, e.g. jq -c '{EACH_ROW}"
        "{prompt: .history, id: .post_id}' FILE > OUT.jsonl (the comments "
        "are reference answers, never sent)",
    ),
    (
        ("conv_id", "user_input"),
        "a ToxicChat row (lmsys/toxic-chat: `user_input` the user's prompt, `model_output` the recorded answer, "
        "`toxicity` / `jailbreaking` labels; no prompt field)",
        f"send the user input as the prompt, e.g. jq -c '{EACH_ROW}"
        "{prompt: .user_input, id: .conv_id}' FILE > OUT.jsonl "
        "(`model_output` is the recorded answer, never sent)",
    ),
    (
        ("document", "summary"),
        "an XSum row (EdinburghNLP/xsum: `document` the BBC article, `summary` its one-sentence reference summary, "
        "`id`; no benchmark client's file reader takes it, no prompt field)",
        "write each article with a summarization instruction as messages, its summary the recorded answer whose token "
        f"count is the output length (never sent), e.g. jq -c '{EACH_ROW}"
        '{messages: [{role: "user", content: ("Summarize the '
        'article in one sentence.\\n\\n" + .document)}, {role: "assistant", content: .summary}], id}\' FILE > '
        "OUT.jsonl",
    ),
    (
        ("dialogue", "summary"),
        "a SAMSum row (Samsung/samsum: `dialogue` a chat transcript, `summary` its reference summary, `id`; no "
        "benchmark client's file reader takes it, no prompt field)",
        "write each dialogue with a summarization instruction as messages, its summary the recorded answer whose "
        f'token count is the output length (never sent), e.g. jq -c \'{EACH_ROW}{{messages: [{{role: "user", content: '
        '("Summarize the dialogue.\\n\\n" + .dialogue)}, {role: "assistant", content: .summary}], id}\' FILE > '
        "OUT.jsonl",
    ),
    (
        ("ctx", "endings"),
        "a HellaSwag row (Rowan/hellaswag: `ctx` the context to complete, `endings` four candidate endings, `label` "
        "the right one's index, `ind`; no benchmark client's file reader takes it, no prompt field)",
        f"send the context with its endings as lettered options, e.g. jq -c '{EACH_ROW}"
        '{prompt: (.ctx + "\\n\\n" + ([.endings '
        '| to_entries[] | "\\([.key + 65] | implode). \\(.value)"] | join("\\n"))), id: .ind}\' FILE > OUT.jsonl '
        "(`label` is the answer key, never sent)",
    ),
    (
        ("goal", "sol1", "sol2"),
        "a PIQA row (ybisk/piqa: `goal`, two solutions `sol1` / `sol2`, `label` the right one; no benchmark "
        "client's file reader takes it, no prompt field)",
        f"send the goal with its two solutions as options, e.g. jq -c '{EACH_ROW}"
        '{prompt: (.goal + "\\n\\nA. " + .sol1 + '
        '"\\nB. " + .sol2)}\' FILE > OUT.jsonl (`label` is the answer key, never sent)',
    ),
    (
        ("sentence", "option1", "option2"),
        "a WinoGrande row (allenai/winogrande: `sentence` with a blank `_`, `option1` / `option2` its fillers, "
        "`answer` the right one; no benchmark client's file reader takes it, no prompt field)",
        f"send the sentence with its two fillers as options, e.g. jq -c '{EACH_ROW}"
        '{prompt: (.sentence + "\\n\\nA. " + '
        '.option1 + "\\nB. " + .option2)}\' FILE > OUT.jsonl (`answer` is the answer key, never sent)',
    ),
    (
        ("question_stem", "choices"),
        "an OpenBookQA row (allenai/openbookqa: `question_stem`, `choices` an object of `text` and `label` lists, "
        "`answerKey`, `id`; no benchmark client's file reader takes it, no `question` field)",
        f"send the question stem with its lettered choices, e.g. jq -c '{EACH_ROW}"
        '{prompt: (.question_stem + "\\n\\n" + '
        '([.choices.label, .choices.text] | transpose | map("\\(.[0]). \\(.[1])") | join("\\n"))), id}\' FILE > '
        "OUT.jsonl (`answerKey` is the answer key, never sent)",
    ),
    (
        ("q_id", "title", "answers"),
        "an ELI5 row (the Reddit ELI5 dataset of facebookresearch/ELI5 as the `eli5` hub dataset publishes it: "
        "`q_id`, `title` the question, `selftext` its body, `answers` the Reddit answers with their scores; no "
        "benchmark client's file reader takes it, no prompt field)",
        f"send the question's title and body as the prompt, e.g. jq -c '{EACH_ROW}{{prompt: ([.title, .selftext] | "
        'map(select(. != "")) | join("\\n\\n")), id: .q_id}\' FILE > OUT.jsonl (the answers are reference answers, '
        "never sent)",
    ),
    (
        ("seed", "problem", "solution"),
        "a Magicoder OSS-Instruct row (ise-uiuc/Magicoder-OSS-Instruct-75K: `problem` the generated task, `solution` "
        "its answer, `seed` the open-source snippet it was generated from, `lang`, `index`; no benchmark client's "
        "file reader takes it, no prompt field)",
        "write each problem as messages, its solution the recorded answer whose token count is the output length "
        f"(never sent), e.g. jq -c '{EACH_ROW}"
        '{messages: [{role: "user", content: .problem}, {role: "assistant", content: '
        ".solution}], id: .index}' FILE > OUT.jsonl",
    ),
    (
        ("id", "data"),
        "an `id` / `data` row (stingning/ultrachat: `data` the turns as plain strings, user and assistant "
        "alternating, no roles)",
        'write the turns as `messages` ([{"role": "user", "content": ...}, ...]), e.g. HuggingFaceH4/ultrachat_200k, '
        "which --workload reads",
    ),
)
#: A text column that holds a list of chat messages instead of text, by column: ``(what it is, the fix)``. TRL's
#: conversational prompt-completion rows were named as an SGLang autobench ``prompt`` list. (An OpenAI Evals
#: ``input`` list is read as messages: :func:`specscope.workload.userfile`.)
CHAT_LIST_REFUSALS: dict[str, tuple[str, str]] = {
    "completion": (
        "a `prompt` list of messages with a `completion` (TRL's conversational prompt-completion row: `completion` "
        "the answer's messages)",
        f"write the row as messages, e.g. jq -c '{EACH_ROW}"
        "{messages: (.prompt + .completion)}' FILE > OUT.jsonl (the trailing "
        "answer is not sent; its token count is the output length)",
    ),
}
#: A ``text`` column holding a whole Guanaco transcript (timdettmers/openassistant-guanaco, the OpenAssistant top-rated
#: paths of the QLoRA paper: ``### Human: ...### Assistant: ...`` turns, answers included), told by its opening
#: marker and an answer marker, and the fix. It was sent whole as one user prompt, the recorded answers inside it.
GUANACO_TRANSCRIPT = ("### Human:", "### Assistant:")
GUANACO_REFUSAL = (
    'a Guanaco transcript (timdettmers/openassistant-guanaco: `text` of "### Human: ... ### Assistant: ..." turns, '
    "the recorded answers inside; GuideLLM's and AIPerf's readers would send it whole as one prompt)",
    "write its turns as `messages` (the last answer is not sent; its token count is the output length), e.g. "
    f'jq -c \'{EACH_ROW}{{messages: [.text | match("### (Human|Assistant): ?(.*?)(?=### (?:Human|Assistant):|\\\\z)"; '
    '"gp") | {role: (if .captures[0].string == "Human" then "user" else "assistant" end), content: '
    '(.captures[1].string | gsub("\\\\A\\\\s+|\\\\s+\\\\z"; ""))}]}\' FILE > OUT.jsonl',
)
#: the reading-comprehension text of a ``question`` row, by its datasets' names: ucinlp/drop's and google/boolq's
#: ``passage``, ehovy/race's ``article``, allenai/sciq's ``support`` (SQuAD calls it ``context``, a GuideLLM text
#: column, named by :func:`specscope.workload.userfile_fields.unsent_text_columns`)
PASSAGE_FIELDS = ("passage", "article", "support")
#: what ``bench`` says of it (meta ``unsent_passage_fields``); each jq puts it before the question, a blank line between
PASSAGE_NOTE = (
    "not sent: no peer reader has a column for it (GuideLLM's column mapper sends the question, its first text "
    "column; vLLM's custom reader takes `prompt`, SGLang's and AIPerf's take conversations or `text`), so the "
    "question goes without the text it asks about, in specscope as in them; to send it, prepend it to the question, "
    + "; ".join(
        f"`{k}`: jq -c '{EACH_ROW}.question = .{k} + \"\\n\\n\" + .question | del(.{k})' FILE > OUT.jsonl"
        for k in PASSAGE_FIELDS
    )
    + "; a HotpotQA `context` (hotpotqa/hotpot_qa: its paragraphs as `title` and `sentences` lists on the hub, as "
    f"[title, sentences] pairs in the published JSON array), its paragraphs' sentences joined: jq -c '{EACH_ROW}"
    + EACH_ROW
    + '.question = ((.context | if type == "object" then .sentences else map(.[1]) end '
    '| map(join("")) | join("\\n\\n")) + "\\n\\n" + .question) | del(.context)\' FILE > OUT.jsonl'
)


#: What ``bench`` says of a row sent by Alpaca's join (meta ``instruction_input_fields``): likaixin/InstructCoder's rows
#: have Alpaca's fields, and a file does not carry the hub id that tells them apart, so specscope keeps Alpaca's order
#: and names the order vLLM sends (``INSTRUCTCODER_SUFFIX``, one home with ``--dataset instructcoder``'s reader).
INSTRUCTION_INPUT_NOTE = (
    "sent in Alpaca's order (the instruction, a blank line, the input: tatsu-lab/stanford_alpaca's prompt); "
    "likaixin/InstructCoder's rows have the same fields and a file does not say which it is (only the hub id does): "
    f"vLLM's InstructCoderDataset, {_VLLM}, sends the input, a blank line, the instruction and "
    f"{json.dumps(INSTRUCTCODER_SUFFIX.strip())}, asking 200 tokens unless told another output length (as "
    "`--dataset instructcoder` sends the hub dataset); to send an InstructCoder file as vLLM does: "
    f"jq -c '{EACH_ROW}{{prompt: (.input + \"\\n\\n\" + .instruction + {json.dumps(INSTRUCTCODER_SUFFIX)})}}' FILE > "
    "OUT.jsonl with --max-tokens 200"
)


#: A Llama-Nemotron post-training row (nvidia/Llama-Nemotron-Post-Training-Dataset, SFT splits: ``input`` a list of
#: chat messages, ``output`` the answer, ``system_prompt`` the reasoning switch): no benchmark client's reader takes
#: it; ``output`` is its recorded answer (its token count the output length, as vLLM's and SGLang's readers size a
#: recorded answer) and these labels are never sent.
NEMOTRON_POST_TRAINING_LABELS = ("category", "license", "reasoning", "generator", "used_in_training", "version")
#: An MLPerf inference row as vLLM's ``MLPerfDataset`` reads it (@0056b87f): the system prompt, the question (a chat
#: of the two) and the reference answer, whose token count is the request's output length.
MLPERF_FIELDS = ("system_prompt", "question", "output")
#: CoQA's published JSON (coqa-train-v1.0.json, coqa-dev-v1.0.json: ``version``, ``data`` of CoQA rows), told by a
#: row of ``data`` with ``story`` and ``questions``, and the fix. It was refused as "no messages/conversations/...
#: field (keys: ['data', 'version'])".
COQA_FILE_REFUSAL = (
    "a CoQA file (stanfordnlp/coqa's published JSON: `version`, `data` of rows, each a `story` with its `questions` "
    "and `answers`; not one record per request)",
    f"write each row of `data` as messages, e.g. jq -c '{EACH_ROW}.data[] | {_COQA_JQ}' FILE > OUT.jsonl",
)
#: The published SQuAD JSON (``version``, ``data`` of articles with ``paragraphs``; told by an article's
#: ``paragraphs``, as ``{"version", "data": [records]}`` is records wrapped in one object) and the fix. It was refused
#: as "no messages/conversations/... field (keys: ['data', 'version'])".
SQUAD_REFUSAL = (
    "a SQuAD file (rajpurkar/SQuAD-explorer's JSON: `version`, `data` of articles whose `paragraphs` hold a "
    "`context` and its `qas` questions; not one record per question)",
    f"write each question with its context as a row, e.g. jq -c '{EACH_ROW}"
    ".data[].paragraphs[] | .context as $c | .qas[] | "
    '{prompt: ($c + "\\n\\n" + .question), id}\' FILE > OUT.jsonl',
)
#: A text column holding an Anthropic HH transcript (``"\\n\\nHuman: ...\\n\\nAssistant:"``: Dahoas/full-hh-rlhf and
#: Dahoas/rm-static ``prompt``, as Anthropic/hh-rlhf writes its transcripts), told by its opening ``Human:`` and a
#: ``\\n\\nAssistant:``, and the fix, ``FIELD`` the column. It was sent as the prompt, markers included; a Nectar row
#: of the same prompt is refused by name (:data:`UNREAD_DATASET_ROWS`).
HH_TRANSCRIPT = ("Human:", "\n\nAssistant:")
HH_TRANSCRIPT_REFUSAL = (
    'a `FIELD` that is a Human / Assistant transcript ("\\n\\nHuman: ... \\n\\nAssistant:", the Anthropic HH '
    "format of Dahoas/full-hh-rlhf and Dahoas/rm-static; sent as it is, the model would read the markers as text)",
    f"write its turns as `messages` (the trailing empty `Assistant:` dropped), e.g. jq -c '{EACH_ROW}"
    "{messages: [.FIELD | "
    'match("(?:\\\\A\\\\s*|\\\\n\\\\n)(Human|Assistant): ?(.*?)(?=\\\\n\\\\n(?:Human|Assistant):|\\\\z)"; '
    '"gp") | {role: (if .captures[0].string == "Human" then "user" else "assistant" end), content: '
    '(.captures[1].string | gsub("\\\\A\\\\s+|\\\\s+\\\\z"; ""))} | select(.content != "")]}\' FILE > '
    "OUT.jsonl",
)
#: What a transcript refusal's fix adds for a CSV / TSV file (``DELIM`` the file's ``,`` or ``\\t``): its jq reads
#: JSON, so the rows are written as JSON Lines first, one object per row keyed by the header, as the CSV reader does
#: (the HH and Guanaco jq offered on a ``.csv`` could not run).
TABLE_TO_JSON_LINES = (
    "; this file is a table (CSV or TSV) and jq reads JSON: write its rows as JSON Lines first, one object per row "
    "keyed by the header, e.g. python3 -c 'import csv, json, sys; [print(json.dumps(r)) for r in "
    'csv.DictReader(open(sys.argv[1], newline=""), delimiter="DELIM")]\' FILE > ROWS.jsonl, then run the jq '
    "above on ROWS.jsonl in place of FILE"
)
#: Chat rows of other vendors' fine-tuning files, told by their shape and refused by name with the jq that writes them
#: as OpenAI ``messages`` (each was refused with a generic message naming a field): Vertex AI supervised tuning's
#: Gemini ``contents`` (``role`` user / model, ``parts`` of ``{text}``; ``systemInstruction``), Amazon Bedrock's
#: conversation schema (``schemaVersion`` bedrock-conversation-2024: ``system`` and message ``content`` lists of
#: ``{text}`` with no ``type``), and Cohere's chat fine-tuning roles (``System``, ``User``, ``Chatbot``).
GEMINI_CONTENTS_REFUSAL = (
    "a Gemini `contents` row (Vertex AI supervised tuning: `contents` of {`role` user / model, `parts` of {`text`}}, "
    "`systemInstruction`; no benchmark client's file reader takes it)",
    f"write it as `messages`, e.g. jq -c '{EACH_ROW}"
    '{messages: ([.systemInstruction.parts[]?.text | {role: "system", '
    'content: .}] + [.contents[] | {role: (if .role == "model" then "assistant" else .role end), content: '
    '([.parts[].text] | join(""))}])}\' FILE > OUT.jsonl',
)
BEDROCK_CONVERSATION_REFUSAL = (
    "a Bedrock conversation row (Amazon Bedrock fine-tuning's bedrock-conversation-2024 schema: `system` and each "
    "message's `content` lists of {`text`}, no `type`; no benchmark client's file reader takes it)",
    f"write it as OpenAI `messages`, e.g. jq -c '{EACH_ROW}"
    '{messages: ([.system[]?.text | {role: "system", content: .}] + '
    '[.messages[] | {role, content: ([.content[].text] | join(""))}])}\' FILE > OUT.jsonl',
)
COHERE_ROLES = {"System": "system", "User": "user", "Chatbot": "assistant"}
COHERE_ROLES_REFUSAL = (
    "Cohere chat roles (`System`, `User`, `Chatbot`: Cohere's chat fine-tuning files; OpenAI's `messages` roles are "
    "lower case and `assistant`)",
    f'rename the roles, e.g. jq -c \'{EACH_ROW}.messages |= map(.role |= ({{System: "system", User: "user", Chatbot: '
    '"assistant"}[.] // .))\' FILE > OUT.jsonl',
)
#: ``messages`` whose turns are ShareGPT's ``{from, value}`` (no ``role``): LLaMA-Factory's sharegpt layout lets a
#: dataset name its turns column (hiyouga/LLaMA-Factory data/README.md @908cd68e ``columns.messages``); every benchmark
#: client reads ``messages`` as OpenAI's ``{role, content}``. It was refused as "turn 0 has role None".
SHAREGPT_MESSAGES_REFUSAL = (
    "ShareGPT turns (`from`, `value`) under `messages` (LLaMA-Factory's sharegpt layout with its `messages` column "
    "renamed; benchmark clients read `messages` as OpenAI's `role` / `content`)",
    f"rename the column to `conversations`, which is read as ShareGPT, e.g. jq -c '{EACH_ROW}"
    ".conversations = .messages | "
    "del(.messages)' FILE > OUT.jsonl",
)
#: ShareGPT ``from`` tags of a recorded tool call or tool result: LLaMA-Factory's ``function_call`` and ``observation``
#: (hiyouga/LLaMA-Factory data/README.md @908cd68e, the sharegpt tags; ``SharegptDatasetConverter``) and
#: NousResearch/hermes-function-calling-v1's ``tool``. specscope sends text turns; such a row was refused as "turn 1
#: has role 'function_call'" with no layout named.
SHAREGPT_TOOL_TAGS = ("function_call", "observation", "tool")
#: The jq that decodes LLaMA-Factory's ``tools`` column (hiyouga/LLaMA-Factory data/README.md @908cd68e: the JSON
#: text of a list of bare function definitions, ``name`` / ``description`` / ``parameters``) into the OpenAI tool
#: objects a chat request carries (``{"type": "function", "function": ...}``; one already of that form is kept, as
#: LLaMA-Factory's own tool formatter reads both).
_TOOLS_DECODE = '.tools |= (fromjson | map(if .type == "function" then . else {type: "function", function: .} end))'
#: The fix for a row whose ``tools`` is JSON text (LLaMA-Factory's tool description column); its jq reads JSON Lines
#: and a JSON array (:data:`EACH_ROW`). It was ``jq -c '.tools |= fromjson'``: JSON Lines only, and the bare
#: definitions it kept are no OpenAI tool objects.
TOOLS_JSON_TEXT_FIX = (
    f"decode it to a list of OpenAI tool objects, e.g. jq -c '{EACH_ROW}{_TOOLS_DECODE}' FILE > OUT.jsonl"
)
SHAREGPT_TOOL_REFUSAL = (
    "a ShareGPT turn of a tool call or tool result (`from` {tag!r}: LLaMA-Factory's sharegpt `function_call` / "
    "`observation` tags, hiyouga/LLaMA-Factory data/README.md @908cd68e; NousResearch/hermes-function-calling-v1's "
    "`tool`; specscope sends text turns)",
    "keep each conversation up to its first tool turn (a recorded answer before it is the output length), with "
    f"`tools` decoded when it is JSON text, e.g. jq -c '{EACH_ROW}.conversations "
    '|= .[:(map(.from | IN("function_call", "observation", "tool")) | index(true))] | if (.tools | type) == '
    f'"string" then {_TOOLS_DECODE} else . end\' FILE > OUT.jsonl',
)
#: An Arena human-preference row (lmarena-ai/arena-human-preference-55k, the Kaggle "LMSYS - Chatbot Arena Human
#: Preference Predictions" train.csv: ``prompt``, ``response_a``, ``response_b`` each the JSON text of a list, one
#: item per turn) and the fix. Its ``prompt`` was sent as the prompt, brackets and quotes included.
ARENA_PREFERENCE_REFUSAL = (
    "an Arena human-preference row (`prompt`, `response_a`, `response_b`: lmarena-ai/arena-human-preference-55k, "
    "each the JSON text of a list of turns)",
    f"decode `prompt` into the user turns, e.g. jq -c '{EACH_ROW}"
    "{turns: (.prompt | fromjson), id}' FILE > OUT.jsonl (each turn "
    "is then sent after the server's answer to the one before)",
)
#: GenAI-Perf's own ``inputs.json`` (triton-inference-server/perf_analyzer genai-perf
#: ``genai_perf/inputs/converters/base_converter.py`` @053bdb77 ``_finalize_payload``: ``{"data": [{"payload":
#: [request body]}]}``, each body a chat request's ``messages`` and ``max_tokens``) and the fix. It was refused as
#: "one JSON object of columns (1 values each: data)".
GENAI_PERF_INPUTS_REFUSAL = (
    "a GenAI-Perf inputs.json (`data` [{`payload`: [request body]}], the requests genai-perf wrote for Perf Analyzer)",
    f"write the request bodies one per line, e.g. jq -c '{EACH_ROW}"
    ".data[].payload[]' FILE > OUT.jsonl; each body's `messages` "
    "and `max_tokens` are then read (as AIPerf raw_payload rows)",
)
#: A Vertex AI batch prediction request line (``{"request": GenerateContentRequest}``: ``contents`` of ``{role: user |
#: model, parts: [{text} | {fileData} ...]}``, ``generationConfig``, ``systemInstruction``; Vertex AI's "Batch
#: prediction for Cloud Storage" page: each line a request in the Gemini API's format) and what to write instead.
VERTEX_BATCH_REFUSAL = (
    "a Vertex AI batch prediction request line (`request`: a Gemini GenerateContentRequest, `contents` of "
    "{role, parts}; no benchmark client's file reader takes it)",
    "write each line's request.contents as `messages` (role model -> assistant, the text parts joined) and "
    f"request.generationConfig.maxOutputTokens as max_tokens, e.g. jq -c '{EACH_ROW}"
    "{messages: [.request.contents[] | {role: "
    '(if .role == "model" then "assistant" else .role end), content: ([.parts[].text // empty] | join("\\n"))}], '
    "max_tokens: .request.generationConfig.maxOutputTokens}' FILE > OUT.jsonl",
)
#: What a ``conversations`` list of plain strings is (GAIR/lima: user and assistant alternating, no roles) and the fix.
#: LDJnr/Capybara's ``conversation`` of ``{input, output}`` pairs (each a user turn and its recorded answer): no peer
#: tool reads it (SGLang's custom reader takes ``content`` / ``value`` turns); the jq writes it as ShareGPT
CAPYBARA_REFUSAL = (
    "a `conversation` of {input, output} pairs (Capybara, LDJnr/Capybara: each pair a user turn and its recorded "
    "answer; the ShareGPT readers take {from, value} turns)",
    f"write it as ShareGPT: jq -c '{EACH_ROW}"
    '{conversations: [.conversation[] | {from: "human", value: .input}, {from: '
    '"gpt", value: .output}]}\' FILE > OUT.jsonl',
)
LIMA_REFUSAL = (
    "a `conversations` list of plain strings (LIMA, GAIR/lima: turns alternate user and assistant without roles; "
    "ShareGPT readers take {from, value} turns)",
    'write the turns as `messages` ([{"role": "user", "content": ...}, ...]) or the user turns as `turns`',
)
#: What an AIPerf ``dag_jsonl`` session is (``turns`` that carry ``messages``, or an ``orchestrator``) and the fix.
DAG_REFUSAL = (
    "an AIPerf dag_jsonl session (DagConversation: each turn's `messages` appended to the session's history, "
    "`forks` / `spawns` branches to other sessions)",
    'write each session without branches as an AIPerf multi_turn row ({"session_id", "turns": [{"text", '
    '"output_length"}]}) or a chat row of `messages`; forks and spawns have no specscope form',
)
#: The ``schema`` of a Dynamo request-trace event (AIPerf ``DynamoTraceNativeLoader``, at a row's top level or under
#: its ``event``) and what it is: a recorded graph that aiperf-runner compiles, not prompts.
DYNAMO_TRACE_SCHEMA = "dynamo.request.trace.v1"
DYNAMO_REFUSAL = (
    "a Dynamo request trace event (AIPerf DynamoTraceNativeLoader: request and tool events of an agent run, a graph "
    "that aiperf-runner replays)",
    "no specscope form: write the requests' messages as chat rows (`messages`, `max_tokens`) for --workload",
)
#: An SGLang token trace row (``--dataset-name token_trace``, token_trace.py @dfb5af15
#: ``sample_token_trace_requests``: ``input_tokens`` a LIST of token ids, ``output_tokens`` a list or
#: ``num_output_tokens``, ``ts``) and the fix: specscope sends chat text, never token ids.
SGLANG_TOKEN_TRACE_REFUSAL = (
    "an SGLang token trace row (token_trace.py @dfb5af15: `input_tokens` token ids sent as the prompt, the output "
    "length `num_output_tokens` or the length of `output_tokens`)",
    "specscope sends chat text, not token ids: decode input_tokens with the model's tokenizer and write rows "
    '{"prompt": TEXT, "output_len": N} for --workload',
)
#: An SGLang agentic trace (``--dataset-name agentic_trace``, agentic_trace.py @3666ee97 ``AgenticTraceDataset``: ONE
#: JSON object, ``conversations`` a list of conversations, each a list of turns whose ``messages`` are that turn's new
#: non-assistant messages, replayed with the server's own replies between turns) and the fix.
SGLANG_AGENTIC_REFUSAL = (
    "an SGLang agentic trace (agentic_trace.py @3666ee97: `conversations` of turns, each turn's `messages` the new "
    "messages of that round)",
    'SGLang reads one JSON object per file: pass a file that is that one object ({"metadata", "conversations"}), '
    "which --workload reads",
)
#: A GuideLLM OpenTelemetry GenAI trace (``--data-args kind=otel``, trace_otel.py @121fb66d ``OTELTraceFormat``: a
#: span per line with ``attributes`` of ``gen_ai.*`` keys, or a session per line with a ``spans`` list; each LLM span's
#: ``gen_ai.input.messages`` replayed on the trace's clock) and the fix.
OTEL_REFUSAL = (
    "a GuideLLM OpenTelemetry GenAI trace (trace_otel.py @121fb66d: spans whose `attributes` hold "
    "`gen_ai.input.messages` and `gen_ai.usage.*` token counts, replayed on the trace's clock)",
    "write each LLM span's gen_ai.input.messages as a chat row (messages, output_length = its "
    "gen_ai.usage.output_tokens) for --workload; tool calls have no specscope form",
)
#: The fields of an Amazon SageMaker data-capture record (AIPerf ``SageMakerDataCaptureLoader.can_load``).
SAGEMAKER_FIELDS = ("captureData", "eventMetadata")


@dataclass(frozen=True)
class Layout:
    """One workload layout of the census.

    Attributes:
        key: ``tool.layout`` (``aiperf.single_turn``), the id tests name.
        tool: the tool that reads it; source: repository, file (and class or function) and commit read.
        shape: the file's form (JSON Lines, one JSON array, CSV with a header, text).
        prompt, output, ids, timestamps: the fields that tool reads for each (``—``: none).
        specscope: what ``--workload NAME=FILE`` does: ``read: ...`` or ``refused: ... -> convert to ...``.
    """

    key: str
    tool: str
    source: str
    shape: str
    prompt: str
    output: str
    ids: str
    timestamps: str
    specscope: str

    @property
    def refused(self) -> bool:
        """True when specscope refuses the layout as a ``--workload`` file (naming its source and the fix)."""
        return self.specscope.startswith("refused")


_SGLANG = "sgl-project/sglang python/sglang/bench_serving.py @0033168f"
_AIPERF = "ai-dynamo/aiperf src/aiperf/dataset/loader/models.py @0109a64e"
_GUIDELLM = "vllm-project/guidellm src/guidellm/data/preprocessors/mappers.py @0016f762"
_GUIDELLM_FILE = "vllm-project/guidellm src/guidellm/data/deserializers/file.py @03820eba"
#: File suffixes of GuideLLM's binary dataset deserializers: refused as ``--workload`` files, by name.
BINARY_SUFFIXES = (".parquet", ".arrow", ".hdf5", ".h5", ".db", ".tar")
_AUTOBENCH = "sgl-project/sglang python/sglang/benchmark/datasets/autobench.py @3f56497e"
#: The columns of a THUDM/LongBench-v2 row that SGLang's ``longbench_v2`` reader puts in its prompt, in the order of
#: its template (longbench_v2.py @5d2c83e6 ``_format_prompt``: the context, a blank line, ``Question: ``, the four
#: choices ``A. `` ... ``D. ``, ``Answer:``); ``answer`` (the key) is never sent.
LONGBENCH_V2_FIELDS = ("context", "question", "choice_A", "choice_B", "choice_C", "choice_D")
#: An SGLang dynamic workload plan (``--dynamic-workload-path``, dynamic.py @ef169ddc ``load_workload_plan``: ONE JSON
#: object whose ``phases`` each ask for random-token requests of ``input_len`` / ``output_len`` at a ``request_rate``
#: for a ``duration``) and what to run instead.
DYNAMIC_PLAN_REFUSAL = (
    "an SGLang dynamic workload plan (dynamic.py @ef169ddc: `phases` of generated requests, `input_len` / "
    "`output_len` tokens at a `request_rate` for a `duration`; no prompts)",
    "specscope sends real text: run a pack (--workloads) with --context-tokens N (input_len), --max-tokens M "
    "(output_len) and --request-rate R per phase",
)
#: vLLM's multi-turn benchmark config of synthetic conversations (benchmarks/multi_turn/README.md @1711f0da,
#: ``generate_multi_turn.json``: ``"filetype": "generate_conversations"``, ``prompt_input`` / ``prompt_output`` token
#: distributions, text drawn from ``text_files``): a generator's settings, no prompts.
MULTI_TURN_CONFIG_REFUSAL = (
    "a vLLM multi-turn synthetic conversation config (benchmarks/multi_turn generate_multi_turn.json: `filetype` "
    "generate_conversations, token distributions of `prompt_input` / `prompt_output`; no prompts)",
    "specscope sends real text: run a pack (--workloads) with --context-tokens N (prompt_input num_tokens) and "
    "--max-tokens M (prompt_output num_tokens), or a file of conversations (`messages` rows)",
)
_VLLM_MULTI_TURN = (
    "vllm-project/vllm benchmarks/multi_turn/convert_sharegpt_to_openai.py @045d7575 (writes the file); "
    "benchmark_serving_multi_turn.py @00d39539 send_turn (sends it)"
)
#: The keys of a row of vLLM's multi-turn benchmark file (``convert_sharegpt_to_openai.py`` @045d7575 writes one JSON
#: array of ``{"id", "messages"}``, the messages ``{"role", "content"}`` alternating user / assistant from a user
#: turn): ``benchmark_serving_multi_turn.py`` @00d39539 ``send_turn`` sends each user turn in order, the server's own
#: answer replacing the recorded one in the history of the next.
MULTI_TURN_ROW_KEYS = ("id", "messages")
#: What a chat row with recorded answers between its user turns is sent as, when the file is not in the layout above
#: (a warning at the start of ``bench``), and how to send its turns one by one.
RECORDED_HISTORY_NOTE = (
    "sent as one request per row: its last user turn, the recorded answers before it as history (vLLM's multi-turn "
    "benchmark sends every user turn with the server's own answers: write the rows as one JSON array of "
    "{id, messages} alone, messages alternating user / assistant from a user turn, as its converter does, to be read "
    "so: census layout vllm.multi_turn)"
)
#: What a ShareGPT conversation of several human turns is sent as, beside what each census reader of the layout sends
#: (vLLM ``ShareGPTDataset`` and SGLang ``sample_sharegpt_requests``: ``conversations[0]`` sized by
#: ``conversations[1]``; AIPerf ``ShareGPTLoader``: every human turn), and how to send it either way (a warning at the
#: start of ``bench``).
SHAREGPT_TURNS_NOTE = (
    "sent as one request per row: the turns up to the last human turn, the recorded answers before it as history, "
    "the output sized by the last answer; vLLM's and SGLang's ShareGPT readers send the first turn alone, sized by "
    "the first answer, and AIPerf's sends each human turn after the server's own answer: to send as vLLM and SGLang "
    "do, keep each conversation's first two turns; to send every turn, write the rows as {id, messages} (census "
    "layout vllm.multi_turn)"
)
#: What a ShareGPT conversation that opens with an assistant turn (after any system turn: a conversation continued from
#: an earlier one) is sent as, beside what vLLM's ``ShareGPTDataset`` and SGLang's ``sample_sharegpt_requests`` send
#: (``conversations[0]`` whatever its role, sized by ``conversations[1]``); a warning at the start of ``bench``. The
#: opening turn was dropped without a word.
SHAREGPT_OPENING_NOTE = (
    "not sent: the conversation is sent from its first human turn; vLLM's and SGLang's ShareGPT readers send the "
    "first turn whatever its role (the assistant's text as the prompt, sized by the turn after it); to send that "
    "text, write it as the row's first human turn"
)
#: VisionArena rows as vLLM's ``VisionArenaDataset`` reads them (@0056b87f ``SUPPORTED_DATASET_PATHS``: the first
#: turn's first message's text, sent with the row's first image, asking 128 tokens by default), by the field that holds
#: the turns (each a list of messages): ``(found, fix)``. They were refused as "AIPerf SingleTurn / GuideLLM media".
VISION_ARENA_REFUSALS: dict[str, tuple[str, str]] = {
    "conversation": (
        "a VisionArena-Chat row (lmarena-ai/VisionArena-Chat: `conversation` a list of turns, each a list of "
        f"messages, `images`; vLLM's VisionArenaDataset, {_VLLM}, sends the first turn's first message with the "
        "first image, asking 128 tokens unless told another output length; specscope sends text)",
        f"drop the images and send that message's text, e.g. jq -c '{EACH_ROW}"
        "{prompt: .conversation[0][0].content, id: "
        ".conversation_id}' FILE > OUT.jsonl (--max-tokens 128 asks what vLLM asks)",
    ),
    "turns": (
        "a vision-arena-bench row (lmarena-ai/vision-arena-bench-v0.1: `turns` a list of turns, each a list of "
        f"messages, `images`; vLLM's VisionArenaDataset, {_VLLM}, sends the first turn's first message with the "
        "first image, asking 128 tokens unless told another output length; specscope sends text)",
        f"drop the images and send that message's text, e.g. jq -c '{EACH_ROW}{{prompt: .turns[0][0].content, id: "
        ".question_id}' FILE > OUT.jsonl (--max-tokens 128 asks what vLLM asks)",
    ),
}
#: A speech-recognition row: ``audio`` a Hugging Face ``Audio`` value (``path``, ``array``, ``sampling_rate``), as
#: openslr/librispeech_asr and the other speech sets of vLLM's ``ASRDataset`` and AIPerf's ``HFASRDatasetLoader`` hold
#: it, ``text`` its reference transcript; ``(found, fix)``. Its refusal as a media field said to drop the audio, which
#: would send the transcript as a prompt.
ASR_REFUSAL = (
    "a speech-recognition row (`audio` a Hugging Face Audio value of `path`, `array`, `sampling_rate`; `text` its "
    f"reference transcript: openslr/librispeech_asr and the other speech sets vLLM's ASRDataset, {_VLLM}, and "
    "AIPerf's HFASRDatasetLoader send as audio for transcription)",
    "no specscope form: speech recognition is not a chat workload (dropping `audio` would send the reference "
    "transcript as a prompt)",
)
#: Fields only an OpenAI embeddings request carries (``encoding_format``, ``dimensions``: /v1/embeddings), which
#: SGLang's EmbeddingDataset passes through with the row's ``input``.
EMBEDDING_FIELDS = ("encoding_format", "dimensions")
#: An embeddings request row (sgl-project/sglang ``python/sglang/benchmark/datasets/embedding.py`` @18e95bb6
#: ``sample_embedding_requests``: JSON Lines, ``input`` a text or a non-empty list of texts, the other fields passed to
#: the embeddings API), told by an :data:`EMBEDDING_FIELDS` field or an ``input`` list of texts; ``(found, fix)``. Its
#: ``input`` was sent as a chat prompt, or a list was refused as "turn 0 is a str".
EMBEDDING_REFUSAL = (
    "an embeddings request row (`input` a text or a list of texts to embed, with OpenAI embeddings fields: SGLang's "
    "EmbeddingDataset, sgl-project/sglang python/sglang/benchmark/datasets/embedding.py @18e95bb6, sends each to "
    "/v1/embeddings, asking no generated token)",
    "no specscope form: an embedding generates no token, so it has no speculative decoding to measure; to send the "
    "texts as chat prompts, write each as a `prompt` row",
)
#: What a ShareGPT4V row (``image`` beside ShareGPT ``conversations``, Lin-Chen/ShareGPT4V) is and how to send its
#: text: vLLM's ``ShareGPTDataset`` (@0056b87f ``sample``: ``entry.get("image")`` sent as the first turn's image) and
#: SGLang's ``sample_custom_requests`` (custom.py @3c1efe01, a JSON Lines row's ``image`` path) read it; it was
#: refused as "AIPerf SingleTurn / GuideLLM media" with no conversion. ``(found, fix)``.
SHAREGPT4V_REFUSAL = (
    "an `image` beside ShareGPT `conversations` (ShareGPT4V, Lin-Chen/ShareGPT4V: vLLM's ShareGPT reader, "
    f"{_VLLM} ShareGPTDataset, sends the image file with the first turn, as does SGLang's custom reader from "
    "JSON Lines)",
    "specscope sends text: drop the image and its <image> tag to send the text conversations: jq '[.[] | "
    'del(.image) | .conversations[].value |= gsub("<image>\\n?"; "")]\' FILE > OUT.json',
)
#: :data:`SHAREGPT4V_REFUSAL`'s fix for a JSON Lines file (its jq reads a JSON array: ``.[]`` of a row is its fields)
SHAREGPT4V_LINES_FIX = (
    f"specscope sends text: drop the image and its <image> tag to send the text conversations: jq -c '{EACH_ROW}"
    "del(.image) | "
    '.conversations[].value |= gsub("<image>\\n?"; "")\' FILE > OUT.jsonl'
)
#: A page of the Hugging Face dataset viewer's API saved as a file (datasets-server ``/rows`` and ``/first-rows``: a
#: ``rows`` list of ``{row_idx, row, truncated_cells}`` beside ``features``), and the fix. It was refused as "no
#: messages/... field (keys: [features, ...])". ``(found, fix)``.
DATASET_VIEWER_REFUSAL = (
    "a page of the Hugging Face dataset viewer's API (`rows` of `row_idx`, `row`, `truncated_cells` beside "
    "`features`: what its /rows and /first-rows return, at most 100 rows a page; each `row` is a dataset row)",
    f"write each `row` on a line, e.g. jq -c '{EACH_ROW}.rows[].row' FILE > OUT.jsonl, and pass that (a cell named "
    "in `truncated_cells` was cut short by the viewer; the whole dataset is its files, not its pages)",
)
#: A LLaVA-OneVision row (lmms-lab/LLaVA-OneVision-Data: ``id``, ``image`` a Hugging Face Image value of ``bytes`` /
#: ``path``, ShareGPT ``conversations``), told from ShareGPT4V's by its image (ShareGPT4V's is a path string). It was
#: refused as ShareGPT4V, whose fix sends every turn where both its readers send the first. ``(found, fix)``.
LLAVA_ONEVISION_REFUSAL = (
    "a LLaVA-OneVision row (lmms-lab/LLaVA-OneVision-Data: `id`, `image` a Hugging Face Image value, ShareGPT "
    f"`conversations`; vLLM's MultiModalConversationDataset, {_VLLM_HF}, sends the first turn with the image, its "
    f"output length the second turn's token count; AIPerf's llava_onevision, {_AIPERF_HF}/hf_conversation.py "
    "@6a5359ab HFConversationDatasetLoader, sends the first message with <image> removed; specscope sends text)",
    "drop the image and keep the first two turns, the second the recorded answer that sizes the output as vLLM "
    f"does: jq -c '{EACH_ROW}del(.image) | .conversations |= (.[:2] | map(.value |= "
    '(gsub("<image>"; "") | sub("^\\\\s+"; "") | sub("\\\\s+$"; ""))))\' FILE > OUT.jsonl',
)
#: Fields only an SGLang autobench row carries (``AUTOBENCH_RESERVED_FIELDS`` @3f56497e that no other census reader
#: reads): a row with one is named ``sglang.autobench`` by ``bench --dry-run``.
AUTOBENCH_FIELDS = ("output_len", "completion_tokens", "routing_key", "param_send", "extra_request_body")
#: What to write an SGLang autobench row whose prompt is no string or ``messages`` as (its other prompt forms).
AUTOBENCH_FIX = (
    'write the row\'s conversation as "messages": [{"role", "content"}] (the turns up to the last user turn) and its '
    "output length as output_len"
)
_GUIDELLM_SYNTHETIC = (
    "vllm-project/guidellm src/guidellm/data/config.py @02ad329a load_config; "
    "src/guidellm/data/deserializers/synthetic.py @00aff786 SyntheticTextDatasetDeserializer"
)
#: File suffixes GuideLLM reads only as a synthetic data config (``config.py`` @02ad329a ``_load_config_file``: a
#: ``.json`` file as JSON, these as YAML); no peer tool reads them as a dataset.
SYNTHETIC_CONFIG_SUFFIXES = (".yaml", ".yml", ".config")
#: What a GuideLLM synthetic data config is and what to run instead (a ``.yaml`` / ``.yml`` / ``.config`` file, or one
#: JSON object with ``prompt_tokens`` and no prompt field): its lines were sent as prompts ("prompt_tokens: 256").
SYNTHETIC_REFUSAL = (
    "a GuideLLM synthetic data config (SyntheticTextDatasetConfig: `prompt_tokens`, `output_tokens`: token counts "
    "of generated random text, no prompts; GuideLLM reads a .json / .yaml / .yml / .config file as one)",
    "specscope sends real text: run a pack (--workloads) with --context-tokens N (the prompt_tokens) and "
    "--max-tokens M (the output_tokens)",
)

CENSUS: tuple[Layout, ...] = (
    Layout(
        "vllm.sharegpt",
        "vLLM",
        f"{_VLLM} ShareGPTDataset",
        "one JSON array",
        "`conversations`[0].`value`",
        "token count of `conversations`[1].`value`, or `--sharegpt-output-len`",
        "— (request id = prefix + index)",
        "—",
        "read: the turns up to the last user turn; the recorded answer is not sent; output length its token "
        "count by the server's tokenizer, as vLLM's (`--max-tokens` where the server has no `/tokenize`; the "
        "manifest says which; no row dropped for its length); a conversation of several human turns is sent with "
        "its recorded history where vLLM sends its first turn alone: named in a warning",
    ),
    Layout(
        "vllm.custom",
        "vLLM",
        f"{_VLLM} CustomDataset",
        "JSON Lines (`.jsonl` only)",
        "`prompt`",
        "`--custom-output-len` (one for all rows at this commit)",
        "— (index)",
        "—",
        "read: `prompt`; a per-line `output_tokens` is that row's `max_tokens`",
    ),
    Layout(
        "vllm.mlperf",
        "vLLM",
        f"{_VLLM} MLPerfDataset (`--dataset-name hf`, mgoin/mlperf-inference-llama2-data, -llama3.1-data)",
        "hub rows; here JSON Lines of its columns",
        "`system_prompt` (the system message), `question` (the user message)",
        "token count of `output` (the reference answer), or `--hf-output-len`",
        "— (index)",
        "—",
        "read: `system_prompt` as the system message (an empty one not sent), `question` as the user message; "
        "`output` not sent, its token count the row's output length by the server's tokenizer, as vLLM's "
        "(`--max-tokens` where the server has no `/tokenize`)",
    ),
    Layout(
        "vllm.spec_bench",
        "vLLM",
        f"{_VLLM} SpecBench",
        "JSON Lines",
        "`turns`[0] (rows filtered by `category`)",
        "`--spec-bench-output-len`",
        "— (index)",
        "—",
        "read: every turn, a conversation; `question_id` is the row id; or `--dataset spec-bench`. The same layout "
        "is FastChat's MT-Bench question.jsonl, published as philschmid/mt-bench, whose source sends both turns as "
        "one conversation (FastChat llm_judge gen_model_answer.py), as specscope does; vLLM's MTBenchDataset, "
        f"{_VLLM}, sends `turns`[0] alone asking 256 tokens unless told another output length: to send that, "
        f"jq -c '{EACH_ROW}{{prompt: .turns[0], id: .question_id}}' FILE > OUT.jsonl with --max-tokens 256",
    ),
    Layout(
        "vllm.multi_turn",
        "vLLM",
        _VLLM_MULTI_TURN,
        "one JSON array (JSON Lines is not read as one: `json.load`)",
        "every `messages` user turn, in order, after the server's own answer to the one before",
        "`--limit-max-tokens` (0: each recorded answer's token count)",
        "`id`",
        "—",
        "read: rows of exactly `id` and `messages` (alternating user / assistant from a user turn, two user turns or "
        "more) in one JSON array: a conversation, turn k+1 after the server's own answer to turn k, the recorded "
        "answers never sent; `--max-tokens` for every turn; other chat rows with recorded answers between their user "
        "turns are one request per row (`bench` warns, naming them)",
    ),
    Layout(
        "vllm.sonnet",
        "vLLM",
        f"{_VLLM} SonnetDataset",
        "text, one poem line per line",
        "lines drawn at random into one prompt of `--sonnet-input-len`",
        "`--sonnet-output-len`",
        "—",
        "—",
        "read: one prompt per line (vLLM assembles lines into longer prompts; `--context-tokens` extends them)",
    ),
    Layout(
        "vllm.burstgpt",
        "vLLM",
        f"{_VLLM} BurstGPTDataset",
        "CSV with a header",
        "none: random tokens of `Request tokens` (rows with `Model` GPT-4)",
        "`Response tokens` (> 0)",
        "—",
        "`Timestamp` (not used by vLLM)",
        "refused: a trace of token counts -> pass it with `--trace FILE`",
    ),
    Layout(
        "sglang.sharegpt",
        "SGLang",
        f"{_SGLANG} sample_sharegpt_requests",
        "one JSON array",
        "`conversations` (or `conversation`)[0].`value`",
        "token count of [1].`value`, or `--sharegpt-output-len`",
        "—",
        "—",
        "read: `conversations` or `conversation`, the turns up to the last user turn; output length the "
        "recorded answer's token count, as vllm.sharegpt (several human turns: named in a warning, as there)",
    ),
    Layout(
        "sglang.mooncake",
        "SGLang",
        f"{_SGLANG} (mooncake dataset)",
        "JSON Lines",
        "none: `input_length` tokens, `hash_ids` blocks",
        "`output_length`",
        "—",
        "`timestamp` (ms)",
        "refused: a trace of token counts -> pass it with `--trace FILE`",
    ),
    Layout(
        "sglang.custom",
        "SGLang",
        "sgl-project/sglang python/sglang/benchmark/datasets/custom.py @3c1efe01 sample_custom_requests",
        "JSON Lines",
        "`conversations` (or `conversation`)[0].`content` (else `.value`); roles not read; `image` a file path",
        "token count of [1].`content` / `.value`, or `--sharegpt-output-len`",
        "—",
        "—",
        "read: as sglang.sharegpt, each turn's text under `content` or `value`; turns that name no role (`from` / "
        "`role`) alternate user, assistant; `image` refused by name",
    ),
    Layout(
        "sglang.autobench",
        "SGLang",
        f"{_AUTOBENCH} sample_autobench_requests",
        "JSON Lines",
        "`messages` (`role` and `content` kept), else `prompt`: a string, a list of messages, a list of user turns "
        "(multi-turn) or token ids; else `prompt_origin` (messages); else `system` + a `content` list (turns)",
        "`output_len`, else `max_tokens`, `max_completion_tokens`, `completion_tokens` (256 when none), or "
        "`--sharegpt-output-len`",
        "— (`routing_key` routes, not an id)",
        "`timestamp`",
        "read: `messages` (a list, or its JSON text, which SGLang decodes) or a `prompt` string, `output_len` (else "
        "`max_tokens`, `max_completion_tokens`, "
        "`completion_tokens`) as `max_tokens`; the row's other fields SGLang puts in the request body "
        "(`param_send`, `extra_request_body`, any unreserved key) not sent; a `prompt` list (messages, turns or "
        "token ids), `prompt_origin` and `system` + `content` list refused by line -> write the row as `messages`",
    ),
    Layout(
        "sglang.longbench_v2",
        "SGLang",
        "sgl-project/sglang python/sglang/benchmark/datasets/longbench_v2.py @5d2c83e6 sample_longbench_v2_requests",
        "JSON Lines (or Parquet) of THUDM/LongBench-v2 rows",
        "`context`, `question`, `choice_A` ... `choice_D` in one template (`_format_prompt`); `answer` not sent",
        "`--sharegpt-output-len` (10 when not given)",
        "— (`_id` not read)",
        "—",
        "read: the same template (context, blank line, `Question: `, the choices `A. ` ... `D. `, `Answer:`) as one "
        "user message, row id `_id`; `--max-tokens` per row (SGLang's default is 10); Parquet refused as a binary "
        "file -> convert it to JSON Lines",
    ),
    Layout(
        "sglang.dynamic",
        "SGLang",
        "sgl-project/sglang python/sglang/benchmark/datasets/dynamic.py @ef169ddc load_workload_plan",
        "one JSON object (`phases`, `prompt_pool_size`, `source`, `arrival_pattern`)",
        "none: generated text of each phase's `input_len` tokens (`source`: random ids, ShareGPT, shared prefix)",
        "each phase's `output_len`",
        "— (`name` of a phase)",
        "each phase's `duration` x `request_rate` (`arrival_pattern`)",
        "refused: a plan of generated requests by name -> a pack with --context-tokens, --max-tokens and "
        "--request-rate per phase",
    ),
    Layout(
        "sglang.token_trace",
        "SGLang",
        "sgl-project/sglang python/sglang/benchmark/datasets/token_trace.py @dfb5af15 sample_token_trace_requests",
        "JSON Lines",
        "`input_tokens` (token ids, sent as the prompt)",
        "`num_output_tokens`, else the length of `output_tokens`, or `--sharegpt-output-len`",
        "—",
        "`ts`",
        "refused: token ids by name -> decode them to text and write `prompt` rows with `output_len`",
    ),
    Layout(
        "sglang.agentic_trace",
        "SGLang",
        "sgl-project/sglang python/sglang/benchmark/datasets/agentic_trace.py @3666ee97 AgenticTraceDataset (the "
        "same file: agentic.py @1cb4d970, its cached padded OpenHands conversations)",
        "one JSON object (`metadata`, `conversations`)",
        "`conversations`[i]: turns, each turn's `messages` the round's new messages (the server's replies between)",
        "`--sharegpt-output-len` (220 when not given)",
        "— (`--dataset-offset`)",
        "—",
        "read: each conversation one row (row id `conversation N`), its rounds in order, each sent after the "
        "server's answer to the round before (a round without `messages` skipped, as SGLang); the first round's "
        "system message kept; text-part content joined with a newline; `--max-tokens` per turn (SGLang's default is "
        "220); a round that is not one user message refused by conversation and turn; a line of JSON Lines holding "
        "such an object refused by name (SGLang reads one object per file)",
    ),
    Layout(
        "sglang.openai",
        "SGLang",
        "sgl-project/sglang python/sglang/benchmark/datasets/openai_dataset.py @38ff0b64 sample_openai_requests",
        "JSON Lines (request bodies)",
        "`messages`",
        "`max_tokens` (256 when absent), or `--sharegpt-output-len`",
        "—",
        "—",
        "read: `messages` and `max_tokens`; the other request-body fields SGLang passes through (`temperature`, "
        "`top_p`, ...) not sent: a warning names them; `tools` sent in the request body",
    ),
    Layout(
        "aiperf.raw_payload",
        "AIPerf",
        "ai-dynamo/aiperf src/aiperf/dataset/loader/raw_payload.py @0e136169 RawPayloadDatasetLoader",
        "JSON Lines of request bodies (a file; or a folder, each file one conversation)",
        "`messages` (the body sent verbatim)",
        "the body's `max_tokens` / `max_completion_tokens`",
        "— (generated session id)",
        "—",
        "read: each line's `messages` as recorded and its `max_tokens` / `max_completion_tokens`; the body's sampling "
        "fields not sent: a warning names them; a folder refused (name one file: --workload NAME=FOLDER/FILE)",
    ),
    Layout(
        "aiperf.single_turn",
        "AIPerf",
        f"{_AIPERF} SingleTurn",
        "JSON Lines",
        "`text` or `texts` (+ `role`); media `image(s)` (or `image_uuids` alone), `audio(s)`, `video(s)`",
        "`output_length` (overrides `--osl`)",
        "`session_id`",
        "`timestamp` or `delay` (ms)",
        "read: `text` / `texts` (joined with a newline), `output_length` as `max_tokens`, `session_id` as row id; "
        "rows of one `session_id` one session at its first row, each row sent alone after the answer to the one "
        "before, in file order (AIPerf @39545f68: self-contained turns), each with its own `output_length` (a row "
        "without one: `--max-tokens`); media refused by name, so is a `role` other "
        "than user, and a row (or turn) with both `text` and `texts` (AIPerf refuses it); `timestamp` / `delay` "
        "not replayed and `extra` (request-body fields) not sent: a warning at the "
        "start names them (`--trace` replays arrivals)",
    ),
    Layout(
        "aiperf.multi_turn",
        "AIPerf",
        f"{_AIPERF} MultiTurn",
        "JSON Lines",
        "`turns`: [SingleTurn]",
        "each turn's `output_length`",
        "`session_id`",
        "each turn's `timestamp` / `delay`",
        "read: a conversation, turn k+1 after the answer to turn k; a leading `role: system` turn the system "
        "message of every turn (AIPerf @13b4567a hoists it), another `role` than user refused by line; each turn "
        "sent with its own `output_length` (a turn without one: `--max-tokens`); rows of one `session_id` one "
        "conversation, their turns in file order with the answers before them (AIPerf @13b4567a); `timestamp` / "
        "`delay` not replayed: a warning names them",
    ),
    Layout(
        "aiperf.random_pool",
        "AIPerf",
        f"{_AIPERF} RandomPool",
        "JSON Lines (a file or a folder of them)",
        "`text` or `texts`",
        "— (`--osl`)",
        "—",
        "—",
        "read: as single_turn; one file (a folder: one --workload each)",
    ),
    Layout(
        "aiperf.mooncake_trace",
        "AIPerf",
        f"{_AIPERF} MooncakeTrace (sessions: mooncake_trace.py @0308411c MooncakeTraceDatasetLoader)",
        "JSON Lines",
        "one of `input_length` (+ `hash_ids`), `text_input`, `messages`, `payload`",
        "`output_length`",
        "`session_id`",
        "`timestamp` or `delay` (ms)",
        "read: `text_input` or `messages` with `output_length` as `max_tokens`; rows of one `session_id` one session "
        "at its first row, in file order (AIPerf @0308411c groups them): `text_input` rows one chat, each turn after "
        "the answers before it; `messages` rows each sent as recorded (a trailing assistant turn too: AIPerf's "
        "`raw_messages`, mooncake_trace.py @0308411c `_build_turn`; verbatim: `tool_calls`, `tool_call_id`, "
        "`content` null or parts, `developer`; a message without a `role` or of another role refused by line) "
        "after the answer to the row before (not in their history); a session mixing the "
        "two refused by line, each row's turn sent with its own `output_length`; a `context_mode` on every row of a "
        "session "
        "sets it (`message_array_with_responses`: each row alone; `deltas_without_responses`: a chat), rows that "
        "differ or another mode refused by line; `timestamp` / `delay` not "
        "replayed: a warning names them (`--trace FILE` replays a `text_input` file on its clock); an "
        "`input_length` / `payload` row refused (a trace: `--trace FILE`; a payload: convert to `messages`); so are "
        "`text_input` rows with `input_length` or `hash_ids` (AIPerf refuses them: one input per row) and "
        "`message_mode: delta` rows (write the whole conversation); a `messages` row's `tools` sent in the request "
        "body (models.py @0109a64e `MooncakeTrace.tools`), a `tools` that is not a non-empty list refused by line",
    ),
    Layout(
        "aiperf.bailian_trace",
        "AIPerf",
        f"{_AIPERF} BailianTrace",
        "JSON Lines",
        "none: `input_length` tokens, `hash_ids` (16-token blocks)",
        "`output_length`",
        "`chat_id`, `parent_chat_id` (-1: a first turn), `turn`",
        "`timestamp` (s)",
        "refused: token counts in seconds, as `--workload` and as `--trace` -> convert it to a Mooncake trace "
        "(`timestamp` in ms, `input_length`, `output_length`) and pass that with `--trace FILE`",
    ),
    Layout(
        "aiperf.inputs_json",
        "AIPerf",
        "ai-dynamo/aiperf src/aiperf/dataset/loader/inputs_json.py @0e136169 InputsJsonPayloadLoader",
        'one JSON object `{"data": [...]}` (AIPerf\'s own `inputs.json`)',
        "`data`[].`payloads`[]: request bodies sent verbatim (`messages` carry the conversation so far)",
        "each payload's own (`max_tokens` / `max_completion_tokens`)",
        "`session_id`",
        "—",
        "read: each payload its own row (AIPerf sends a session's payloads in order), its `messages` sent "
        "verbatim (content parts, tool turns and calls, a trailing assistant turn), its `tools` and its `max_tokens` / "
        "`max_completion_tokens`; row id `<session_id> turn <k>`; its other fields not sent: a warning names each; "
        "a payload without `messages` refused by name",
    ),
    Layout(
        "aiperf.aa_rwlt",
        "AIPerf",
        "ai-dynamo/aiperf src/aiperf/dataset/loader/aa_rwlt.py @24c6c28c AARWLTDatasetLoader (fields: models.py "
        "@24c6c28c AARWLTEntry)",
        "JSON Lines, one trajectory step a line",
        "`messages`: the step's whole history, sent as recorded (the server's answer discarded); the first step's "
        "`tools`",
        "— (`--osl`)",
        "`conversation_id` (a trajectory), `conversation_idx` (its step: 0, 1, ... once each; steps sorted by it)",
        "— (steps sent one after another, no delay: `Turn(delay=0)`)",
        "read: a trajectory as one conversation, row id its `conversation_id`, at its first line's place: its steps "
        "in `conversation_idx` order, each step's `messages` sent as recorded after the answer to the step before "
        "(that answer discarded, as AIPerf's `discard_assistant_response`), every step with `--max-tokens`; "
        "messages sent verbatim as AIPerf does (`content` null or content parts, `tool_calls`, `tool_call_id`, "
        "`name`: openai_chat.py @24c6c28c), a message that is not an object, has no `role` or a role besides "
        "system, developer, user, assistant, tool refused by line; a gap or a repeat in `conversation_idx` refused "
        "by line (as AIPerf); a step ending in an assistant turn (AIPerf sends it as recorded) refused; the first "
        "step's `tools` sent in every step's request body",
    ),
    Layout(
        "aiperf.sharegpt",
        "AIPerf",
        "ai-dynamo/aiperf src/aiperf/dataset/loader/sharegpt.py @2980cd9e ShareGPTLoader",
        "one JSON array",
        "`conversations`: every human -> gpt pair a turn",
        "token count of each gpt answer",
        "— (generated session id)",
        "—",
        "read: one request per row, the turns up to the last human turn with the recorded answers before it as "
        "history (AIPerf sends each human turn after the server's own answer); output length the trailing "
        "answer's token count, as vllm.sharegpt",
    ),
    Layout(
        "aiperf.dag_jsonl",
        "AIPerf",
        "ai-dynamo/aiperf src/aiperf/dataset/loader/dag_jsonl_models.py @05440a0e DagConversation",
        "JSON Lines, one session a line",
        "`turns`[].`messages` (each turn's appended to the session's history)",
        "each turn's `max_tokens`",
        "`session_id`; `forks` / `spawns` name other sessions",
        "each turn's `delay` (ms)",
        "refused: a session graph (forks and spawns of other sessions) -> write each session without branches as "
        "an aiperf.multi_turn row (`turns`: [{`text`, `output_length`}]) or a chat row of `messages`",
    ),
    Layout(
        "aiperf.baseten_trace",
        "AIPerf",
        "ai-dynamo/aiperf src/aiperf/dataset/loader/baseten_trace.py @022dec3d BasetenTraceDatasetLoader "
        "(fields: baseten_trace_models.py @264464ae)",
        "Parquet (its columns in JSON Lines: refused by name too)",
        "`prompt` (a literal completion prompt)",
        "`output_tokens` (sent as `min_tokens` too)",
        "`provided_session_id` or `poor_man_session_id` (rows grouped, ordered by time)",
        "`timestamp_start_unix_ms`",
        "refused: a trace replayed on its clock, by session (a `.parquet` file as a binary file; JSON Lines with its "
        "columns by name, never as a `prompt` row) -> rows `{text, output_length, session_id}` for --workload, or a "
        "specscope trace (`arrival_s`, `text`, `output_tokens`) with `--trace FILE`",
    ),
    Layout(
        "aiperf.weka_trace",
        "AIPerf",
        "ai-dynamo/aiperf src/aiperf/dataset/loader/weka_trace_models.py @90f31d18 WekaTrace",
        "one JSON object per file (`id`, `models`, `block_size`, `hash_id_scope`, `requests`)",
        "none: `requests`[].`in` tokens, `hash_ids` blocks; subagents nested",
        "`requests`[].`out`",
        "`id`",
        "`requests`[].`t` (s)",
        "refused: token counts of an agentic trace -> convert its requests to a Mooncake trace (`timestamp` = t x "
        "1000 ms, `input_length`, `output_length`) and pass it with `--trace FILE`",
    ),
    Layout(
        "aiperf.tracelab_trace",
        "AIPerf",
        "ai-dynamo/aiperf src/aiperf/dataset/loader/tracelab_trace.py @2f0eba5b TraceLabTraceDatasetLoader",
        "JSON Lines (gzip or not), one round a line",
        "none: `input_tokens_total` split into `prefix_tokens` / `newly_append_tokens`",
        "the round's output count (converted as a Weka trace)",
        "`session_id`, `round_index`",
        "`timing_events`",
        "refused: token counts of an agentic trace -> convert its rounds to a Mooncake trace and pass it with "
        "`--trace FILE`",
    ),
    Layout(
        "aiperf.burst_gpt",
        "AIPerf",
        "ai-dynamo/aiperf src/aiperf/dataset/loader/burst_gpt.py @1acb3691 BurstGPTTraceDatasetLoader",
        "CSV with a header",
        "none: `Request tokens` (every `Model`)",
        "`Response tokens`",
        "— (generated session id)",
        "`Timestamp` (s)",
        "refused: a trace of token counts -> pass it with `--trace FILE` (specscope replays every model's rows, as "
        "AIPerf does)",
    ),
    Layout(
        "aiperf.sagemaker_data_capture",
        "AIPerf",
        "ai-dynamo/aiperf src/aiperf/dataset/loader/sagemaker_data_capture.py @1acb3691 SageMakerDataCaptureLoader",
        "JSON Lines of capture records (a file; or a folder of them)",
        "`captureData.endpointInput` (JSON or BASE64): the request body's `messages`",
        "the body's `max_tokens`, else `max_completion_tokens`",
        "`eventMetadata.eventId`",
        "`eventMetadata.inferenceTime` (ISO 8601; AIPerf sorts by it)",
        "read: each record's captured `messages` verbatim (AIPerf's `raw_messages`: content parts, tool turns and "
        "calls), its `tools` (`raw_tools`) and `max_tokens` / `max_completion_tokens`, `eventId` as row id, in "
        "file order; `inferenceTime` not replayed and the body's sampling fields not sent: a warning names them; a "
        "body without `messages` refused by line",
    ),
    Layout(
        "aiperf.dynamo_trace",
        "AIPerf",
        "ai-dynamo/aiperf src/aiperf/dataset/loader/recorded_graph.py @6a45b104 DynamoTraceNativeLoader",
        "JSON Lines (`.jsonl` / `.jsonl.gz`, or a folder of segments) of events",
        "none read by AIPerf's Python loader (aiperf-runner compiles the graph)",
        "—",
        "`agent_context`",
        "the events' own",
        "refused: `schema` `dynamo.request.trace.v1` events, a recorded agent graph -> write its requests as chat "
        "rows (`messages`, `max_tokens`)",
    ),
    Layout(
        "guidellm.otel_trace",
        "GuideLLM",
        "vllm-project/guidellm src/guidellm/data/deserializers/trace_otel.py @121fb66d OTELTraceFormat",
        "JSON Lines: a span per line, or a session per line (`spans`)",
        "each LLM span's `attributes`.`gen_ai.input.messages` (OTel `parts` or OpenAI messages)",
        "the span's `gen_ai.usage` output tokens",
        "`trace_id` (a conversation)",
        "the span's start time",
        "refused: by name -> write each LLM span's messages as a chat row with its output length",
    ),
    Layout(
        "guidellm.jsonl",
        "GuideLLM",
        f"{_GUIDELLM} GenerativeColumnMapper",
        "JSON Lines or one JSON array",
        "the first column (in the file's column order) named `prompt`, `instruction`, `question`, `input`, "
        "`context`, `content`, `conversation`, `turn` or `text`; or `messages` / `chat_messages`; `system_prompt` / "
        "`system` / `prefix` before it; each name in any case, plural (`s` / `es`) or with a turn suffix (`_N` / "
        "`-N`: turn N of a conversation)",
        "`output_tokens_count` or `completion_tokens_count` (matched the same way; per turn with a suffix; 0 is no "
        "count: the default, formatters.py @03820eba)",
        "—",
        "`relative_timestamp`",
        "read: the text field and system prefix, the output count as `max_tokens`, each column as GuideLLM's "
        "pattern matches it (`Prompt`, `prompts`, `Output_Tokens_Count`); a count of 0 as none (`--max-tokens`, "
        "named at the start); `prompt_0`, `prompt_1` ... a conversation "
        "(each turn sent with its own output count); of several text, output-count or prefix "
        "columns the first in the row's own column order (a CSV's: its header's), as GuideLLM's mapper (@ee7a7745 "
        '`datasets_mappings`) takes the first match in the dataset\'s column order (`{"context", "question"}` '
        "sends the context), except that an `instruction` read first is joined with its `input` (Alpaca's prompt; "
        "GuideLLM sends the instruction alone); "
        "`relative_timestamp` not replayed: a warning names it; GuideLLM's columns specscope does not use "
        "(`tool_response`, `model`, `requeue_delay`, `duration`, `conversation_turns`, `prompt_tokens_count`, "
        "`functions` ...) named in a warning, each with what GuideLLM does with it, and columns neither tool reads "
        "in another; a `text` row with a column AIPerf's SingleTurn has no field for (`output_tokens_count`) is "
        "GuideLLM's, a bare one either tool's (its unknown columns named all the same); a media column (`image`, "
        "`picture`, `img`, `clip`, `voice`, `wav` ... in GuideLLM's pattern) refused by line",
    ),
    Layout(
        "guidellm.csv",
        "GuideLLM",
        f"{_GUIDELLM}; {_GUIDELLM_FILE} CSVFileDatasetDeserializer",
        "CSV with a header",
        "as guidellm.jsonl (column names)",
        "`output_tokens_count` or `completion_tokens_count`",
        "—",
        "—",
        "read: the header names the columns (never a prompt; a name given to two columns refused at line 1: pandas "
        "reads the first, a row dict kept the last); each row as guidellm.jsonl; a blank line skipped, as pandas' "
        "`skip_blank_lines` and a blank JSON Lines line; a row of only empty cells (`,,`, which pandas reads as a row "
        "of missing cells) and a row whose prompt cell is empty refused by line",
    ),
    Layout(
        "guidellm.txt",
        "GuideLLM",
        f"{_GUIDELLM_FILE} TextFileDatasetDeserializer",
        "text (`.txt`, `.text`), one prompt per line (column `text`)",
        "the line",
        "— (`--data-args` / default)",
        "—",
        "—",
        "read: one prompt per line",
    ),
    Layout(
        "guidellm.binary",
        "GuideLLM",
        f"{_GUIDELLM_FILE} Parquet / Arrow / HDF5 / DB / Tar deserializers",
        "`.parquet`, `.arrow`, `.hdf5` / `.h5`, `.db` (SQLite), `.tar` (webdataset)",
        "as guidellm.jsonl (columns)",
        "as guidellm.jsonl",
        "—",
        "—",
        "refused: a binary dataset file -> convert it to JSON Lines (one record per row, the same column names)",
    ),
    Layout(
        "guidellm.synthetic",
        "GuideLLM",
        _GUIDELLM_SYNTHETIC,
        "a config file: `.json`, or YAML as `.yaml` / `.yml` / `.config`",
        "none: random text of `prompt_tokens` tokens (`_stdev`, `_min`, `_max`), `prefix_buckets`, `turns`",
        "`output_tokens` (`_stdev`, `_min`, `_max`)",
        "—",
        "—",
        "refused: a synthetic data config by name, never its lines as prompts -> a pack (--workloads) with "
        "--context-tokens N (prompt_tokens) and --max-tokens M (output_tokens)",
    ),
)


def layout(key: str) -> Layout:
    """The census row ``key`` (``KeyError`` when there is none)."""
    return next(lay for lay in CENSUS if lay.key == key)


@dataclass(frozen=True)
class FieldUse:
    """The top-level fields of a row that one layout's reading takes, and those it knowingly leaves (issue 36: a
    field not understood is a named warning).

    Attributes:
        reads: the fields read as that layout (beside :data:`EVERY_ROW_READS`).
        ignores: ``(field, why)``: fields the layout's rows carry that specscope leaves unread on purpose, as the peer
            tool does; never warned.
        pattern: names matched as GuideLLM's mapper matches its columns (:data:`GUIDELLM_COLUMN_PATTERN`: any case,
            a plural, a turn suffix).
    """

    reads: tuple[str, ...]
    ignores: tuple[tuple[str, str], ...] = ()
    pattern: bool = False


#: Fields read (or named in a warning of their own) whatever a row's layout: its id, output length, category, system
#: prefix and tools; arrival times, request-body fields and output-length look-alikes (each warned as such); media
#: (refused by name).
EVERY_ROW_READS = (
    *ROW_ID_FIELDS, *OUTPUT_LENGTH_FIELDS, *SYSTEM_FIELDS, "category", "tools", *TIMING_FIELDS, *UNSENT_FIELDS,
    *REQUEST_BODY_FIELDS, *OUTPUT_LENGTH_LOOKALIKES, *MEDIA_FIELDS,
)  # fmt: skip
_BODY_IGNORES = (
    ("model", "the model named in the recorded request; specscope asks the server for the run's model"),
    ("stream", "the recorded streaming switch; specscope streams every request"),
    ("stream_options", "the recorded streaming options; specscope streams every request"),
)
_REFERENCE = ("reference", "the reference answer a judge compares with (FastChat llm_judge); never sent")
_CHAT_IGNORES = (
    *_BODY_IGNORES,
    ("prompt", "the chat's first user turn again (HuggingFaceH4/ultrachat_200k, no_robots): the messages are sent"),
    ("parallel_tool_calls", "an OpenAI fine-tuning row's switch for recorded tool calls; specscope sends none"),
)
_SHAREGPT = FieldUse(
    SHAREGPT_FIELDS,
    (
        ("model", "the model that wrote the recorded answers (chat logs); never sent"),
        *((f, "a chat log's label or moderation record (lmsys/lmsys-chat-1m, allenai/WildChat); never sent") for f in
          ("turn", "language", "openai_moderation", "detoxify_moderation", "toxic", "redacted", "state", "country",
           "hashed_ip", "header")),
    ),
)  # fmt: skip
#: MBPP's fields beside its ``text`` task (google-research-datasets/mbpp): a code benchmark's reference, which AIPerf's
#: SingleTurn (models.py @0109a64e: an ``AIPerfBaseModel``, extra fields not forbidden) accepts and does not send.
_MBPP_IGNORES = (
    ("code", "MBPP's reference solution (google-research-datasets/mbpp); never sent"),
    *((f, "MBPP's test code for the solution; never sent") for f in
      ("test_list", "test_setup_code", "challenge_test_list")),
)  # fmt: skip
_SINGLE_TURN = FieldUse(AIPERF_SINGLE_TURN_FIELDS, _MBPP_IGNORES)
#: The fields each layout a ``--workload`` row is read as takes and knowingly leaves, by census key
#: (:data:`CENSUS`, the layouts specscope reads; a hub dataset's export by its ``census_hub`` key) and
#: ``specscope.*`` for specscope's own record shapes (docs/workloads.md "User prompt files";
#: :func:`specscope.workload.layout_of.fields_layouts`). A row's field that no layout of the row reads or ignores is
#: named, once per file with its row count and layout, by ``bench`` and its dry run. Text lines have no fields; an
#: AIPerf ``inputs.json`` payload's and an SGLang agentic trace's records are specscope's own build (their unsent
#: fields named as ``extra``).
FIELD_USE: dict[str, FieldUse] = {
    "vllm.sharegpt": _SHAREGPT,
    "sglang.sharegpt": _SHAREGPT,
    "aiperf.sharegpt": _SHAREGPT,
    "sglang.custom": _SHAREGPT,
    "vllm.custom": FieldUse(("prompt",)),
    "vllm.spec_bench": FieldUse(("turns",), (_REFERENCE,)),
    "vllm.mlperf": FieldUse(MLPERF_FIELDS),
    "vllm.multi_turn": FieldUse(MULTI_TURN_ROW_KEYS),
    "sglang.autobench": FieldUse(("messages", "prompt", *AUTOBENCH_FIELDS)),
    "sglang.longbench_v2": FieldUse(
        (*LONGBENCH_V2_FIELDS, "_id"),
        (
            ("answer", "the multiple-choice key; never sent, as SGLang's template leaves it out"),
            *(
                (f, "a LongBench-v2 label SGLang's reader does not read")
                for f in ("domain", "sub_domain", "difficulty", "length")
            ),
        ),
    ),  # fmt: skip
    "sglang.openai": FieldUse(MESSAGES_FIELDS, _CHAT_IGNORES),
    "aiperf.raw_payload": FieldUse(MESSAGES_FIELDS, _CHAT_IGNORES),
    "aiperf.single_turn": _SINGLE_TURN,
    "aiperf.random_pool": _SINGLE_TURN,
    "aiperf.multi_turn": FieldUse(("turns", "session_id")),
    "aiperf.mooncake_trace": FieldUse(
        ("text_input", "messages", *MOONCAKE_MESSAGES_MARKS, *TRACE_ONLY_FIELDS, "message_mode")
    ),
    "aiperf.aa_rwlt": FieldUse(("conversation_id", "conversation_idx", "messages")),
    "aiperf.sagemaker_data_capture": FieldUse(
        SAGEMAKER_FIELDS, (("eventVersion", "the capture record's format version; AIPerf's loader does not read it"),)
    ),
    "aiperf.hub.mt_bench": FieldUse(("prompt",), (_REFERENCE,)),
    "guidellm.jsonl": FieldUse(GUIDELLM_MAPPED_COLUMNS, pattern=True),
    "guidellm.csv": FieldUse(GUIDELLM_MAPPED_COLUMNS, pattern=True),
    "specscope.tsv": FieldUse(GUIDELLM_MAPPED_COLUMNS, pattern=True),
    "specscope.messages": FieldUse(MESSAGES_FIELDS, _CHAT_IGNORES),
    "specscope.sharegpt": _SHAREGPT,  # a JSON array's ShareGPT rows of role / content turns (layout_of)
    "specscope.arena": FieldUse(
        (ARENA_FIELDS[0],),
        (
            (ARENA_FIELDS[1], "the other side's chat of the same user turns; never sent"),
            ("turn", "the number of user turns; never a prompt"),
            *(
                (f, "the Arena vote's record (who answered, who won, when); never sent")
                for f in (
                    "model_a",
                    "model_b",
                    "winner",
                    "judge",
                    "anony",
                    "language",
                    "tstamp",
                    "openai_moderation",
                    "toxic_chat_tag",
                )
            ),
        ),
    ),  # fmt: skip
    "specscope.mt_bench_101": FieldUse(("history", "task")),
    "specscope.arena_hard": FieldUse(
        ("turns",),
        (("subcategory", "Arena-Hard-Auto's sub-category label; `category` is kept"),),
    ),
    "specscope.nemotron_post_training": FieldUse(
        ("input", "output"),
        tuple(
            (k, "a label of nvidia/Llama-Nemotron-Post-Training-Dataset's rows; never sent")
            for k in NEMOTRON_POST_TRAINING_LABELS
        ),
    ),
    "specscope.openai_evals": FieldUse(
        ("input",), (("ideal", "the reference answer(s) the eval compares with (openai/evals); never sent"),)
    ),
    "specscope.alpaca": FieldUse(
        ("instruction", "input", "context", "history"),
        (
            ("output", "the reference answer (Alpaca); never sent"),
            ("response", "the reference answer (databricks-dolly-15k); never sent"),
            ("text", "the whole Alpaca template with its answer (tatsu-lab/alpaca); instruction and input are sent"),
        ),
    ),
}
