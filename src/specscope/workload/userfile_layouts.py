"""The record layouts a ``--workload`` file is read in, as docs/workloads.md's "User prompt files" table shows them
(generated from :data:`USERFILE_LAYOUTS` by ``python scripts/gen_workloads_doc.py``; one home for the table's facts).

Each row is a record shape with its source and what is sent from it (read by :mod:`specscope.workload.userfile`), and
the node ids of the tests that send a file of that shape through ``bench --workload NAME=FILE --dry-run`` and check
the text the dry run prints (or the one-line refusal); ``tests/workload/test_census.py`` fails for a row whose test
does not exist or runs no command. The census of other tools' layouts is :data:`specscope.workload.census.CENSUS`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["UserLayout", "USERFILE_LAYOUTS"]


@dataclass(frozen=True)
class UserLayout:
    """One record layout of a ``--workload`` file.

    Attributes:
        record: the record's shape (its fields).
        source: who publishes or writes it.
        sent: what specscope sends of it, or why and how it is refused.
        tests: node ids of tests reaching it through ``bench --workload NAME=FILE --dry-run``.
    """

    record: str
    source: str
    sent: str
    tests: tuple[str, ...]


_SENT = "tests/cli/test_userfile_layouts_cli.py::test_dry_run_sends_each_user_file_layout"
_REFUSED = "tests/cli/test_userfile_layouts_cli.py::test_dry_run_refuses_each_foreign_layout_by_name"

#: The layouts, in the table's order.
USERFILE_LAYOUTS: tuple[UserLayout, ...] = (
    UserLayout(
        "`messages` [{role, content}]",
        "OpenAI chat; HF chat datasets",
        'the messages; `content` a string or text parts `[{"type": "text", "text"}]` joined with a newline (vLLM '
        "`entrypoints/chat_utils.py`); `developer` sent as `system`; a `tool` / `function` turn, an image or "
        "audio part, a null content: refused, naming it; a trailing assistant turn (the recorded answer) dropped "
        "(an AIPerf mooncake_trace row's, one with `output_length`, `session_id`, `timestamp`, `delay` or "
        "`context_mode`, sent as recorded, as AIPerf sends its `messages`), its token count by the server's "
        "tokenizer the row's `max_tokens` when the row names none (`bench/answer_lengths.py`)",
        (_SENT + "[messages]",),
    ),
    UserLayout(
        "`conversations` [{from, value}]",
        "ShareGPT (`ShareGPT_V3_unfiltered_cleaned_split.json`: one JSON array)",
        "`human`/`user` -> user; `gpt`, `chatgpt`, `bing`, `bard` -> assistant; `system` (vLLM "
        "`benchmarks/multi_turn/convert_sharegpt_to_openai.py`); `User` -> user, `Assistant` -> assistant and a "
        "top-level `system` (NeMo's chat SFT layout: nvidia/Daring-Anteater); assistant turns before the first "
        "user turn dropped (a continued chat); recorded answers before the last user turn stay in the history, the "
        "trailing one is dropped (its token count is the output length, as vLLM's `ShareGPTDataset`)",
        (_SENT + "[conversations]",),
    ),
    UserLayout(
        "`conversation_a` [{role, content}] (+ `conversation_b`, `model_a`, `model_b`, `winner`, `turn`)",
        "LMSYS Chatbot Arena exports (`lmsys/chatbot_arena_conversations`, `lmsys/mt_bench_human_judgments`); no "
        "peer tool reads this layout",
        "the first side's chat, as `messages` (recorded answers before the last user turn kept, the trailing one "
        "dropped and its token count the output length); `question_id` the row id; `conversation_b` never sent; "
        "`turn` (an int, the number of user turns) never read as a text column",
        (_SENT + "[conversation_a]",),
    ),
    UserLayout(
        "`history` [{user, bot}] (+ `task`, `id`)",
        "MT-Bench-101 `mtbench101.jsonl` (open-compass/opencompass "
        "`opencompass/datasets/subjective/mtbench101.py` @a75fa253 `MTBench101Dataset`: each turn asked with the "
        "recorded answers before it, its golden context); no benchmark client reads this layout",
        "a chat: each turn's `user` as a user message and `bot` as an assistant message, in turn order; the "
        "recorded answers before the last question stay in the history, the trailing one is dropped (its token "
        "count the output length); `id` the row id, `task` the category; a turn without a `user` string refused "
        "by line and turn",
        (_SENT + "[history]",),
    ),
    UserLayout(
        "`turns` [str] or [{text}] or [{content}]",
        'FastChat / Spec-Bench `question.jsonl`; Arena-Hard-Auto `question.jsonl` (`turns[j]["content"]`, '
        "lmarena/arena-hard-auto `gen_answer.py` @01109e99); AIPerf multi-turn input (`session_id`, `turns`)",
        "a conversation: turn k+1 after the server's own answer to turn k (as `--dataset`); AIPerf's `timestamp` "
        "/ `delay` are not replayed (`bench` prints a warning naming them); AIPerf rows that share a "
        "`session_id` in a JSON Lines file are one session at its first row, in file order, as AIPerf joins "
        "them: multi-turn rows (`turns`) one chat, single-turn rows (`text` / `texts`) each sent alone after the "
        "answer to the row before (AIPerf's self-contained turns); so do AIPerf mooncake_trace rows: "
        "`text_input` rows one chat, `messages` rows each sent as recorded after the answer to the row before",
        (_SENT + "[turns]",),
    ),
    UserLayout(
        "`prompt`, `text`, `text_input`",
        "specscope; GenAI-Perf / AIPerf single-turn input; AIPerf trace rows without `timestamp`",
        "that text",
        (
            _SENT + "[prompt]",
            _SENT + "[text]",
            _SENT + "[text_input]",
        ),
    ),
    UserLayout(
        "`data` [{`session_id`, `payloads`}] (one JSON object)",
        "AIPerf's `inputs.json`",
        "each payload (a request body) a row: its `messages` and `max_tokens` / `max_completion_tokens`; other "
        "sampling fields named in a warning, not sent",
        (_SENT + "[data payloads]",),
    ),
    UserLayout(
        "`captureData`, `eventMetadata`",
        "Amazon SageMaker data capture (AIPerf `SageMakerDataCaptureLoader`)",
        "the captured request body (`endpointInput`, JSON or BASE64): its `messages` and `max_tokens` / "
        "`max_completion_tokens`, row id `eventId`; `inferenceTime` and sampling fields named in a warning, not "
        "replayed or sent",
        (_SENT + "[captureData]",),
    ),
    UserLayout(
        "a Baseten, TraceLab, Weka trace row; an AIPerf `dag_jsonl` session",
        "AIPerf trace and agentic loaders",
        "refused by name before any field is read (a Baseten row was sent as a `prompt` row), with what to "
        "convert it to (census rows above)",
        (_REFUSED + "[baseten]",),
    ),
    UserLayout(
        "a CNN/DailyMail row (`article`, `highlights`); a raw ShareGPT export row (`id`, `items`); an "
        "OpenAssistant message row (`message_id`, `parent_id`); an OpenAI Batch API request line (`custom_id`, "
        "`method`, `url`, `body`: a batch runner's input); a Message Batches request line (`custom_id`, `params`: "
        "the Messages API body); a Vertex AI batch prediction request line (`request` of `contents`: a Gemini "
        "request); a FastChat model answer row (`question_id`, "
        "`answer_id`, `model_id`, `choices`: a model's answers, as Spec-Bench, Medusa and EAGLE write them under "
        "`model_answer/`; the fix is the questions' `question.jsonl`); an Arena-Hard-Auto v2 model answer row (`uid`, "
        "`ans_id`, `model`, `messages`); a LIMA row (`conversations` of plain "
        "strings); a Capybara row (LDJnr/Capybara: `conversation` of {`input`, `output`} pairs; the fix is a jq that "
        "writes it as ShareGPT `conversations`); a Glaive function-calling row (`system`, `chat` a USER / ASSISTANT "
        "transcript: glaiveai/glaive-function-calling-v2); an OpenAssistant message tree (`message_tree_id`, "
        "`prompt` with nested `replies`: oasst2 "
        "`*.trees.jsonl`); a preference pair (`chosen`, `rejected`: Anthropic/hh-rlhf); a MetaMathQA row (`query`, "
        "`response`); a LiveCodeBench problem (`question_content`, `platform`); a SWE-bench task (`instance_id`, "
        "`problem_statement`; its `_oracle` / `_bm25_*` files' `text` is read); a TRL conversational "
        "prompt-completion row (`prompt` messages, `completion`); "
        "GenAI-Perf's `inputs.json` (`data` [{`payload`: [body]}]); a LLaMA-Factory `tools` string of JSON (an "
        "empty one is no tools); a stingning/ultrachat row (`id`, `data` of plain strings); an Arena "
        "human-preference row (`prompt`, `response_a`, `response_b`, each JSON text of a list); a Nectar row "
        "(`prompt` a Human/Assistant transcript, `answers`); a Stanford Human Preferences row (`post_id`, `history`, "
        "`human_ref_A`: stanfordnlp/SHP); a ToxicChat row (`conv_id`, `user_input`: lmsys/toxic-chat); a WebGPT "
        "comparison row (`question` an object, `answer_0`, `answer_1`: openai/webgpt_comparisons); a Guanaco "
        "transcript (`text` of `### Human:` / `### Assistant:` turns: timdettmers/openassistant-guanaco; it was sent "
        "whole, answers included); ShareGPT turns of a tool call or result (`from` `function_call` / `observation`: "
        "LLaMA-Factory; `tool`: NousResearch/hermes-function-calling-v1); ShareGPT `{from, value}` turns under "
        "`messages`; a WildBench task (`session_id`, `conversation_input`: allenai/WildBench); a BigCodeBench task "
        "(`complete_prompt`, `instruct_prompt`); a SQuAD JSON file (`version`, `data` of `paragraphs`); a "
        "Self-Instruct task (`instruction`, `instances`: yizhongw/self-instruct); a text column holding an Anthropic "
        "HH transcript (`\\n\\nHuman: ... \\n\\nAssistant:`: Dahoas/full-hh-rlhf `prompt`); an xLAM row (`query`, "
        "`answers`, `tools`); a CodeFeedback row (`query`, `answer`); a BFCL row (`question` lists of messages, "
        "`function`); a Gemini `contents` row (Vertex AI tuning); a Bedrock conversation row "
        "(bedrock-conversation-2024); Cohere chat roles (`System`, `User`, `Chatbot`); a Natural Questions row "
        "(`question_text`, `document_text`); an XSum row (`document`, `summary`: EdinburghNLP/xsum) and a SAMSum "
        "row (`dialogue`, `summary`: Samsung/samsum), each jq sized by the summary; HellaSwag (`ctx`, `endings`), "
        "PIQA (`goal`, `sol1`, `sol2`), WinoGrande (`sentence`, `option1`, `option2`) and OpenBookQA "
        "(`question_stem`, `choices`) rows, each jq lettering the options; an ELI5 row (`q_id`, `title`, "
        "`answers`); a Magicoder OSS-Instruct row (`seed`, `problem`, `solution`); a CoQA row (`story`, "
        "`questions`: stanfordnlp/coqa, hub or published JSON); rows read from the hub with a prompt template, "
        "each jq building that prompt: zed-industries/zeta (`events`, `input`, `output`, sized by `output`), "
        "BlazEdit (`code`, `change_request`), MMVU (`video`, `question`, `choices`), VisionArena (`conversation` or "
        "`turns` of message lists beside `images`), MMMU (`question`, `options`, `image_1`), MMStar (`question`, "
        "`image`, `l2_category`), LLaVA-OneVision (`image` a Hugging Face Image value beside `conversations`: "
        "its first two turns); a `problem` row (AIMO: "
        "sized by `solution`); a speech-recognition row (`audio` of `array`, `sampling_rate`: no chat form); an "
        "embeddings request row (`input` with `encoding_format` / `dimensions`, or a list of texts to embed: "
        "no chat form); "
        'the multi-turn benchmark\'s synthetic conversation config (`"filetype": '
        '"generate_conversations"`)',
        "public datasets no benchmark client's file reader takes; a generator's settings",
        "refused by name before any field is read, with what to write instead (`prompt`, `conversations`, `messages`)",
        (
            _REFUSED + "[cnn_dailymail]",
            _REFUSED + "[vertex_batch]",
            _REFUSED + "[capybara]",
            _REFUSED + "[guanaco]",
            _REFUSED + "[sharegpt_tool]",
            _REFUSED + "[xsum]",
        ),
    ),
    UserLayout(
        'one JSON object of columns `{"prompt": [...], "output_tokens_count": [...]}`',
        "`json.dump(Dataset.to_dict())`",
        "refused by name: the `datasets` JSON builder (5.2.0, which GuideLLM reads `.json` with) reads one "
        "object, on one line or pretty-printed, as ONE row whose fields are lists, so no peer tool sends it a "
        "row per position; the fix names the JSON Lines form (`Dataset.from_dict(...).to_json(OUT.jsonl)`); a "
        "JSON object over several lines that is not columns is refused by name too (JSON Lines holds one object "
        'per line); records wrapped in one object (`{"data": [records]}`, with a `version` or not) are named as '
        "such, the fix `jq -c '.data[]' FILE > OUT.jsonl`; so is a pandas `DataFrame.to_json` table (its default "
        "orient `columns`, `index`, `split`), which the same builder reads as one row, with the "
        '`pandas.read_json(...).to_json(..., orient="records", lines=True)` call to write JSON Lines; so are '
        "objects one after another, each over several lines (what jq writes without `-c`: the fix `jq -c .`), rows "
        "that are arrays of values (orient `values`: no column names; the fix a jq naming the first value the "
        "prompt) and a page of the Hugging Face dataset viewer's API (`rows` of `row_idx`, `row`: the fix "
        "`jq -c '.rows[].row'`)",
        (_REFUSED + "[columns]",),
    ),
    UserLayout(
        "`input` [{role, content}] (+ `ideal`)",
        "OpenAI evals samples (openai/evals `docs/build-eval.md`: every template's `input`, in chat format; `ideal` "
        "the reference answer); no benchmark client reads this layout",
        "the messages, as a `messages` row (a trailing assistant turn dropped); `ideal` never sent; an `input` "
        "string beside `ideal` is the same layout, its text the user message (openai/evals @16257999 "
        "`evals/prompt/base.py` `ChatCompletionPrompt` sends it as one system message, a chat with no user turn: no "
        "workload); an `input` string without `ideal` is a text column (GuideLLM's `input`)",
        (_SENT + "[openai evals input]", _SENT + "[openai evals text input]"),
    ),
    UserLayout(
        "`instruction` (+ `input`)",
        "Alpaca (`tatsu-lab/stanford_alpaca` `alpaca_data.json`: one JSON array)",
        "the instruction, a blank line and the input when not empty; `output` never sent; LLaMA-Factory's "
        "`history` (`[[question, answer], ...]`) as the user and assistant messages before it, as its "
        "`AlpacaDatasetConverter` puts them (named as recorded history); in any key order (garage-bAInd/Open-Platypus "
        "puts `input` first: GuideLLM's mapper would send the input, mostly empty); an `instruction` shared by rows "
        "with "
        "different inputs is a system prompt (cognitivecomputations/dolphin, Alpaca's field names over a few Orca "
        "system prompts; Alpaca's instructions are each unique, `datasheet.md`): sent as the system message and the "
        "input as the user message, named in a warning; an empty instruction beside an input: the input alone; "
        "a `question` row's multiple-choice `options` / `choices` (TIGER-Lab/MMLU-Pro, cais/mmlu) are not sent, as "
        "GuideLLM's mapper sends the question alone: named in a warning with the jq that joins them in",
        (_SENT + "[instruction]", _SENT + "[dolphin]", _SENT + "[mmlu-pro options]"),
    ),
    UserLayout(
        "any other line; every line of a `.txt` / `.text` file",
        "text files (vLLM's `sonnet.txt`; GuideLLM's `TextFileDatasetDeserializer`)",
        "the line, one prompt per line (in a `.txt` / `.text` file even a line that opens with `[` or `{`, or a "
        "quoted one); in a `.jsonl` / `.ndjson` / `.json` file a line that is a JSON string, number, boolean or "
        "null (`\"What is 2+2?\"`, `null`) is refused by its line number, as GuideLLM's JSON builder and AIPerf's "
        "line models refuse it (it was sent as the prompt, quotes and all); a first line that is a table header "
        "(column names split at commas, tabs or semicolons, one the census reads: `prompt,output_tokens_count`) "
        "is refused by line, a header being never a prompt (a CSV saved as `.txt` or without a suffix was sent "
        "line by line, the header first, each row with its count glued on), the fix naming the suffix that reads "
        "its columns",
        (_SENT + "[text lines]",),
    ),
)
