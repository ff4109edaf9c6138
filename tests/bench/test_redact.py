"""specscope.redact: each kind of secret masked, nothing else touched."""

from __future__ import annotations

from specscope.redact import MASK, redact, redact_argv, redact_text


def test_url_credentials_are_masked_and_the_host_kept():
    assert redact_text("base=http://user:s3cretpw@127.0.0.1:8000/v1") == f"base=http://{MASK}@127.0.0.1:8000/v1"
    assert redact_text("http://127.0.0.1:8000") == "http://127.0.0.1:8000"


def test_flags_env_names_and_key_like_strings():
    argv = ["vllm", "serve", "--api-key", "abc123", "--hf-token=tok", "--port", "8000", "-e", "HF_TOKEN=hf_x1y2z3w4v5"]
    assert redact_argv(argv) == [
        "vllm",
        "serve",
        "--api-key",
        MASK,
        f"--hf-token={MASK}",
        "--port",
        "8000",
        "-e",
        f"HF_TOKEN={MASK}",
    ]
    assert redact({"env": {"HF_TOKEN": "t", "MY_API_KEY": "k", "CUDA_VISIBLE_DEVICES": "0"}}) == {
        "env": {"HF_TOKEN": MASK, "MY_API_KEY": MASK, "CUDA_VISIBLE_DEVICES": "0"}
    }
    assert redact_text("key sk-abcdef0123 here") == f"key {MASK} here"
    assert redact_text("vllm serve m --api-key abc123 --port 8000") == f"vllm serve m --api-key {MASK} --port 8000"
    assert redact({"n": 3, "levels": [1, 2], "ok": True}) == {"n": 3, "levels": [1, 2], "ok": True}


def test_a_crash_log_holds_no_secret(tmp_path, monkeypatch):
    from specscope.cli.crash import write_crash_log

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    try:
        raise RuntimeError("GET http://user:s3cretpw@127.0.0.1:9/v1 failed")
    except RuntimeError as exc:
        log = write_crash_log(exc, ["specscope", "bench", "--api-key", "sk-planted0123456789"])
    text = log.read_text()
    assert "s3cretpw" not in text and "sk-planted0123456789" not in text
    assert f"http://{MASK}@127.0.0.1:9/v1" in text and f"'--api-key', '{MASK}'" in text


def test_a_server_log_is_masked_when_the_server_stops(tmp_path):
    from specscope.bench.controls import redacted_log

    log = tmp_path / "spec.log"
    with redacted_log(log):
        log.write_bytes(b"args: --api-key sk-planted0123456789 HF_TOKEN=hf_plantedT0ken9876 \xff\n")
    assert log.read_bytes() == b"args: --api-key *** HF_TOKEN=*** \xff\n"
