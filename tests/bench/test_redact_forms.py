"""Issue 29: the one redaction masks every planted secret form (tests/secret_forms.py) in text, in JSON-like
values and in argv lists, and leaves look-alikes that are not secrets unchanged."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from secret_forms import FORMS, KEPT
from specscope import redact as redact_module
from specscope.redact import MASK, redact, redact_argv, redact_text


def test_at_least_thirty_forms_are_planted():
    assert len(FORMS) >= 30 and len({s for _t, s in FORMS}) == len(FORMS)


@pytest.mark.parametrize(("text", "secret"), FORMS, ids=[s for _t, s in FORMS])
def test_each_form_is_masked_in_text_json_and_argv(text, secret):
    masked = redact_text(text)
    assert secret not in masked and MASK in masked, masked
    assert secret not in json.dumps(redact({"line": text, "nested": [text, {"x": text}]}))
    assert secret not in " ".join(redact_argv(["prog", "-x", text]))


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_are_kept(text):
    assert redact_text(text) == text


def test_a_long_dotted_word_before_a_separator_is_kept():
    for text in ("a." * 2_000 + "=", "a-" * 2_000 + ":", "x: " + "a.b=" * 1_000):
        assert redact_text(text) == text


@pytest.mark.timing
@pytest.mark.timeout(60)
def test_a_long_dotted_word_before_a_separator_is_read_once():
    # issue 37: "a.a.a. ... =" (80 KB) took 75 s: the NAME=VALUE rule tried a name at each dot and scanned the rest
    # of the word each time (quadratic); a server's error message or log line of this shape stalled every write.
    # A timing test: 4.4 s at nice 19 beside three `make test` runs (2026-12-07), the bound (pytest-timeout) 60 s.
    for text in ("a." * 200_000 + "=", "a-" * 200_000 + ":", "x: " + "a.b=" * 100_000):
        assert redact_text(text) == text


URL_ALPHABET = 'abcXYZ019+.-:/@ "> _\u00e9'


@given(st.text(alphabet=URL_ALPHABET, max_size=40))
@settings(max_examples=3_000, deadline=None)
def test_url_credentials_are_masked_as_the_rfc_3986_pattern_masks_them(text):
    # the one-pass masker gives exactly what the documented pattern (_URL_CREDS, RFC 3986 3.2.1) gives
    expected = redact_module._URL_CREDS.sub(lambda m: f"{m.group('scheme')}{MASK}@", text)
    assert redact_module._mask_url_creds(text) == expected


def test_url_credentials_in_a_long_scheme_word_are_masked():
    word = "aZ9+" * 5_000
    assert redact_text(f"{word}http://u:pw@h/x") == f"{word}http://{MASK}@h/x"
    assert redact_text(f"9{word}://u:pw@h") == f"9{word}://{MASK}@h"


@pytest.mark.timing
@pytest.mark.timeout(60)
def test_a_base64_chart_is_read_once():
    # An HTML report of 12 cells (183 KB, its charts base64 PNGs) took 5.7 s in the URL-credentials rule (2026-12-07):
    # the scheme was retried at every letter of a base64 run. 0.04 s since; the bound (pytest-timeout) 60 s.
    text = "https://h/p a@b data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUgAAA+" * 40_000
    assert redact_text(text) == text


def test_secret_names_mask_any_value_type():
    value = {"api_key": ["a1b2c3d4", "e5f6"], "hf_token": {"v": "t0k3n"}, "cost_ns_per_token": 12.5, "max_tokens": 9}
    out = redact(value)
    assert out == {"api_key": MASK, "hf_token": MASK, "cost_ns_per_token": 12.5, "max_tokens": 9}


def test_a_masked_url_keeps_its_host_and_path():
    assert redact_text("http://u:p4ssw0rd@h:1/m?a=1&key=zzz1&b=2") == f"http://{MASK}@h:1/m?a=1&key={MASK}&b=2"


def test_a_copied_server_log_keeps_no_argv_repr_namespace_or_dict_secret(tmp_path):
    from specscope.bench.controls import redacted_log

    log = tmp_path / "vllm.log"
    lines = [
        "INFO args: ['vllm', 'serve', 'm', '--api-key', 'ArgvKey00022', '--port', '8000']",
        "INFO args: Namespace(model='m', api_key=['NsList000018'], hf_token='hf_HuggingFace0028abc')",
        "INFO non-default args: {'model': 'm', 'api_key': ['DictList0019']}",
        "DEBUG headers: {'Authorization': 'Bearer DictBearer015x'}",
    ]
    with redacted_log(log):
        log.write_text("\n".join(lines) + "\n")
    text = log.read_text()
    for secret in ("ArgvKey00022", "NsList000018", "hf_HuggingFace0028abc", "DictList0019", "DictBearer015x"):
        assert secret not in text
    assert "'--port', '8000'" in text and "'model': 'm'" in text  # the rest of each line is kept


def test_a_report_file_is_masked_when_written(tmp_path):
    from specscope.report.files import write_text_atomic

    write_text_atomic(tmp_path / "r.md", "server http://u:Pw0rdUserinfo1@h:1/v1 key=sk-proj-OpenAIKey0027abcdef\n")
    text = (tmp_path / "r.md").read_text()
    assert "Pw0rdUserinfo1" not in text and "OpenAIKey0027" not in text and "h:1/v1" in text


def test_the_print_seam_keeps_its_own_colours_on_a_terminal_and_escapes_everything_else():
    import io

    from specscope.textsafe import SafeStream

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out, err = Tty(), Tty()
    SafeStream(out).write("\x1b[1;31mred\x1b[0m name=\x1b]0;title\x07 \x1b[2J key sk-proj-OpenAIKey0027abcdef\n")
    SafeStream(err, stderr=True).write("\r\x1b[2K\x1b[1A bar \x1b]52;c;Y2xpcA==\x07\n")
    assert out.getvalue() == "\x1b[1;31mred\x1b[0m name=\\x1b]0;title\\x07 \\x1b[2J key ***\n"
    assert err.getvalue() == "\r\x1b[2K\x1b[1A bar \\x1b]52;c;Y2xpcA==\\x07\n"
    plain = io.StringIO()  # not a terminal: nothing passes raw
    SafeStream(plain).write("\x1b[1;31mred\x1b[0m")
    assert plain.getvalue() == "\\x1b[1;31mred\\x1b[0m"


def test_issue48_forms_are_masked_where_the_secret_is_and_nowhere_else():
    # issue 48: curl -u, a query percent-encoded inside another URL, a Digest header's auth-params
    cases = {
        "curl -u admin:Pw0117 http://127.0.0.1:8000/v1/models": f"curl -u admin:{MASK} http://127.0.0.1:8000/v1/models",
        "http://h/login?next=%2Fv1%3Fpassword%3DPw0118%26a%3D1": f"http://h/login?next=%2Fv1%3Fpassword%3D{MASK}%26a%3D1",
        'Authorization: Digest username="u", response="Pw0119" GET /v1': f"Authorization: Digest {MASK} GET /v1",
        "Authorization: Custom Pw0120 then": f"Authorization: {MASK} then",
        'api_key => "Pw0121", port => 8000': f'api_key => "{MASK}", port => 8000',
        "curl -b 'sid=Pw0122' -b jar.txt h": f"curl -b '{MASK}' -b jar.txt h",
        "Token 0123abcdef0123abcdef0123 sent": f"Token {MASK} sent",
    }
    for text, want in cases.items():
        assert redact_text(text) == want


def test_a_quoted_authorization_header_stays_json():
    value = {"headers": {"Authorization": 'Digest username="u", response="Pw0124"'}, "x": "y"}
    assert json.loads(redact_text(json.dumps(value))) == {"headers": {"Authorization": MASK}, "x": "y"}


def test_user_password_and_cookie_flags_in_an_argv_list():
    argv = ["curl", "-u", "admin:Pw0125", "-b", "sid=Pw0126", "-a", "127.0.0.1:8000", "--cookie", "jar.txt"]
    want = ["curl", "-u", f"admin:{MASK}", "-b", MASK, "-a", "127.0.0.1:8000", "--cookie", "jar.txt"]
    assert redact_argv(argv) == want


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: Digest " + "a=b, " * 20_000,
        "Authorization: " + "a " * 50_000,
        "Authorization: x " * 6_000,
        "'Authorization': '" + "\\" * 100_000,
        "-u a:" + ":" * 100_000,
        "-u a:b " * 14_000,
        "-b '" + "=" * 100_000,
        "%3Fa%3D" * 14_000,
        "?token%3D" + "%41" * 33_000,
        "Token " + "1." * 50_000,
        "api_key: str[" + "[" * 100_000,
        "api_key =>" * 10_000,
        "sid=a " * 16_000,
        "machine a login " * 6_000,
        "default" + " login x" * 12_000 + " password",
        "_" * 100_000 + "=",
        "sshpass -f " * 50_000,  # issue 37: each sshpass read the rest of the line as its options (quadratic)
        "mysql a " * 50_000,
        "redis-cli -h " * 50_000,
        "aws configure set " * 30_000,
        "docker login -u " * 30_000,
    ],
    ids=lambda t: t[:16],
)
def test_a_100k_line_of_a_new_rule_s_shape_is_read_in_linear_time(text):
    # issue 48: every log line is redacted; a rule that backtracks over a 100,000-character line would stall writes
    import time

    start = time.process_time()
    redact_text(text)
    assert time.process_time() - start < 1.0


def test_json_text_with_an_object_or_a_setting_under_a_credential_name_stays_json():
    # issue 48: '"api_key": {...}' (and an AIPerf report's '"time_to_first_token": {') had its brace replaced by the
    # mask, and the written JSON could not be read; '"authorization": false' (a guidellm report's setting) is kept
    text = '{"authorization": false, "auth": {"authorization": {"a": 1}}, "api_key": {"v": 2}, "password": "Pw0127"}'
    want = {"authorization": False, "auth": {"authorization": {"a": 1}}, "api_key": {"v": 2}, "password": MASK}
    assert json.loads(redact_text(text)) == want


def test_a_credential_flag_is_read_by_one_rule_in_an_argv_list_and_in_text():
    # issue 37: redact_argv(["--first-pass", "2"]) gave ["--first-pass", "***"] while redact_text("--first-pass 2")
    # kept the count; a placeholder (``--api-key KEY``) and a following flag were masked in argv lists only
    for line in ("--first-pass 2", "--first-pass=2", "--api-key KEY", "--api-key $OPENAI_API_KEY", "--token --port 8"):
        assert redact_argv(line.split()) == line.split() and redact_text(line) == line
    for line, want in {
        "--api-key sk1234abcd --port 8": f"--api-key {MASK} --port 8",
        "--db-pass 1234x": f"--db-pass {MASK}",
        "--hf-token=t0k": f"--hf-token={MASK}",
    }.items():
        assert " ".join(redact_argv(line.split())) == want and redact_text(line) == want


def test_a_command_password_flag_in_an_argv_list():
    # issue 37: mysql's attached -pPW, sshpass's -p PW and redis-cli's -a PW; -p after the command sshpass runs and
    # redis-cli's -p are ports, mysql's -p before a space prompts
    cases = {
        "/usr/bin/mysql -u root -pPw0150 db": f"/usr/bin/mysql -u root -p{MASK} db",
        "mysql -u root -p db": "mysql -u root -p db",
        "sshpass -p Pw0151 ssh -p 2222 u@h": f"sshpass -p {MASK} ssh -p 2222 u@h",
        "redis-cli -p 6379 -a Pw0152 ping": f"redis-cli -p 6379 -a {MASK} ping",
        "aws configure set aws_secret_access_key Pw0153": f"aws configure set aws_secret_access_key {MASK}",
        "docker run -p 8000:8000 img": "docker run -p 8000:8000 img",
        "docker login -u bob -p Pw0154 r": f"docker login -u bob -p {MASK} r",
    }
    for line, want in cases.items():
        assert " ".join(redact_argv(line.split())) == want and redact_text(line) == want


def test_a_number_under_a_name_that_only_names_a_credential_is_masked():
    # issue 37: '"authorization": 12345' was kept (numbers were counts); a name that also names a count or an id
    # keeps its number, and an authorization value at the end of an object keeps the object's closing brace
    assert redact_text('{"authorization": 12345}') == f'{{"authorization": {MASK}}}'
    assert redact_text('{"authorization": false}') == '{"authorization": false}'
    assert redact_text("password: 4242, token: 12") == f"password: {MASK}, token: 12"
    value = {"authorization": 12345, "client_secret": 7, "token": 12, "sid": 3, "password": True}
    assert redact(value) == {"authorization": MASK, "client_secret": MASK, "token": 12, "sid": 3, "password": True}


@pytest.mark.parametrize(
    ("argv", "masked"),
    [
        (["redis-cli", "-p", "6379", "AUTH", "RedisAuth0160"], ["redis-cli", "-p", "6379", "AUTH", MASK]),
        # issue 37 (round 53): AUTH [username] password: the user name was masked too (each word read as the last)
        (["redis-cli", "AUTH", "alice", "RedisAuth0163"], ["redis-cli", "AUTH", "alice", MASK]),
        (
            ["redis-cli", "-h", "h", "auth", "default", "RedisAuth0164"],
            ["redis-cli", "-h", "h", "auth", "default", MASK],
        ),
        (
            ["mongosh", "-u", "alice", "-p", "MongoPw0161", "--port", "27017"],
            ["mongosh", "-u", "alice", "-p", MASK, "--port", "27017"],
        ),
        (["mongo", "-p", "MongoPw0162"], ["mongo", "-p", MASK]),
        (["mongosh", "-u", "alice", "-p", "--port", "27017"], ["mongosh", "-u", "alice", "-p", "--port", "27017"]),
        (["ssh", "-p", "2222", "u@h"], ["ssh", "-p", "2222", "u@h"]),
    ],
)
def test_a_database_shell_password_is_masked_in_an_argv_list_and_its_port_kept(argv, masked):
    assert redact_argv(argv) == masked
