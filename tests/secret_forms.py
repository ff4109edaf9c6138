"""Secret forms planted by the redaction tests (issue 29): each entry is ``(text, secret)``, the ``secret`` being the
part of ``text`` that must never be written or printed. Every secret is distinct, so a grep names the form.

Sources of the shapes: URL userinfo and query parameters (RFC 3986; S3 presigned URLs: ``X-Amz-Signature``,
``X-Amz-Credential``, ``X-Amz-Security-Token``; Azure SAS: ``sig``; Google: ``key``), HTTP authorization headers
(RFC 7617 Basic, RFC 6750 Bearer), Python reprs as vLLM logs them (``Namespace(...)`` from argparse, the
``non-default args: {...}`` dict, an argv list), and the token prefixes of the services named (OpenAI ``sk-``,
Hugging Face ``hf_``, GitHub ``ghp_`` / ``gho_`` / ``github_pat_``, GitLab ``glpat-``, Slack ``xoxb-``, AWS
``AKIA``, Google ``AIza``, JWTs ``eyJ...``).
"""

from __future__ import annotations

FORMS: list[tuple[str, str]] = [
    ("http://bob:Pw0rdUserinfo1@10.0.0.1:8000/v1", "Pw0rdUserinfo1"),
    ("https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("http://h/metrics?key=QsKey000002", "QsKey000002"),
    ("http://h/x?a=1&sig=QsSig000003&b=2", "QsSig000003"),
    ("http://h/m?apikey=QsApikey0004", "QsApikey0004"),
    ("https://b.s3.amazonaws.com/o?X-Amz-Signature=QsAmzSig0005&X-Amz-Date=20260101", "QsAmzSig0005"),
    ("https://b.s3.amazonaws.com/o?X-Amz-Credential=AKIAQSCRED00006%2F2026", "AKIAQSCRED00006"),
    ("https://b/o?X-Amz-Security-Token=QsSecTok0007", "QsSecTok0007"),
    ("http://h/login?user=x&pass=QsPass000008", "QsPass000008"),
    ("http://h/?access_token=QsAccess0009", "QsAccess0009"),
    ("http://h/?api_key=QsApiKey0010", "QsApiKey0010"),
    ("http://h/?token=QsToken00011", "QsToken00011"),
    ("http://h/?password=QsPassword12", "QsPassword12"),
    ("Authorization: Basic Qm9iOkJhc2ljUHcxMw==", "Qm9iOkJhc2ljUHcxMw=="),
    ("authorization: Bearer BearerTok00014xyz", "BearerTok00014xyz"),
    ("{'Authorization': 'Bearer DictBearer015x'}", "DictBearer015x"),
    ("X-Api-Key: HeaderKey00016", "HeaderKey00016"),
    ("Namespace(model='m', api_key='NsKey0000017', port=8000)", "NsKey0000017"),
    ("Namespace(api_key=['NsList000018'], port=8000)", "NsList000018"),
    ("non-default args: {'model': 'm', 'api_key': ['DictList0019']}", "DictList0019"),
    ("non-default args: {'hf_token': 'DictTok00020'}", "DictTok00020"),
    ('{"password": "JsonPass0021"}', "JsonPass0021"),
    ("argv: ['vllm', 'serve', '--api-key', 'ArgvKey00022', '--port', '8000']", "ArgvKey00022"),
    ("vllm serve m --api-key FlagKey00023 --port 8000", "FlagKey00023"),
    ("vllm serve m --hf-token=FlagTok00024", "FlagTok00024"),
    ("docker run -e HF_TOKEN=EnvTok000025 vllm", "EnvTok000025"),
    ("export OPENAI_API_KEY=EnvKey000026", "EnvKey000026"),
    ("key sk-proj-OpenAIKey0027abcdef used", "sk-proj-OpenAIKey0027abcdef"),
    ("token hf_HuggingFace0028abc", "hf_HuggingFace0028abc"),
    ("pat github_pat_11ABCDEFG0029_xyzxyzxyzxyz", "github_pat_11ABCDEFG0029_xyzxyzxyzxyz"),
    ("oauth gho_GithubOauth0030abcdefghij", "gho_GithubOauth0030abcdefghij"),
    ("gitlab glpat-GitlabPat0031xyz", "glpat-GitlabPat0031xyz"),
    ("slack xoxb-1234-SlackBot0032", "xoxb-1234-SlackBot0032"),
    ("aws AKIAIOSFODNN7EXAMP33 id", "AKIAIOSFODNN7EXAMP33"),
    ("aws_secret_access_key = AwsSecret0034/abcDEF+xyz", "AwsSecret0034/abcDEF+xyz"),
    ("google AIzaSyGoogleKey0035abcdefghijklmnop", "AIzaSyGoogleKey0035abcdefghijklmnop"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIzNiJ9.JwtSig0036abc", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIzNiJ9.JwtSig0036abc"),
    ("--password PwFlag000037", "PwFlag000037"),
    ("client_secret=ClientSec0038", "ClientSec0038"),
    ("{'api_key': 'ReprKey00039'}", "ReprKey00039"),
    # issue 37 (S1-S4): URL passwords holding @ ' < or /, a scheme-less userinfo, a fragment, camelCase query names,
    # cookies, an underscore flag, and the NVIDIA, Groq and Google OAuth token prefixes
    ("--server base=http://bob:Pw@at0040@10.0.0.1:8000", "Pw@at0040"),
    ("http://bob:Pw'q0041@h:8000/v1", "Pw'q0041"),
    ("http://bob:Pw<lt0042@h:8000/v1", "Pw<lt0042"),
    ("--server base=bob:NoScheme0043@10.0.0.1:8000", "NoScheme0043"),
    ("http://h:8000/ui#token=Fragment0044", "Fragment0044"),
    ("GET /v1/models?accessToken=Camel00045 HTTP/1.1", "Camel00045"),
    ("Cookie: session=Cookie00046; theme=dark", "Cookie00046"),
    ("vllm serve m --api_key Under00047 --port 8000", "Under00047"),
    ("key nvapi-Nvidia00048abcdefghij", "nvapi-Nvidia00048abcdefghij"),
    ("key gsk_Groq00049abcdefghijklmn", "gsk_Groq00049abcdefghijklmn"),
    # hosted inference APIs (edges probe, 2026-12-05: these were copied as is)
    ("key xai-Grok0039abcdefghijkl", "xai-Grok0039abcdefghijkl"),
    ("export REPL=r8_Replicate0040abcdefgh", "r8_Replicate0040abcdefgh"),
    ("pplx-Perplexity0041abcdefg in a log", "pplx-Perplexity0041abcdefg"),
    ("token fw_Fireworks0042abcdefgh", "fw_Fireworks0042abcdefgh"),
    ("oauth ya29.GoogleOauth0050abcdefgh", "ya29.GoogleOauth0050abcdefgh"),
    ("Set-Cookie: sid=SetCookie0051; Path=/; HttpOnly", "SetCookie0051"),
    # a credential flag's value in shell quotes, as `set -x` traces and printed launch commands write it
    ("+ vllm serve m --api-key 'ShellQuote0052' --port 8000", "ShellQuote0052"),
    ('docker run img vllm serve m --hf-token "ShellDquote0053"', "ShellDquote0053"),
    ("vllm serve m --api-key='ShellEqQuote0054'", "ShellEqQuote0054"),
    # issue 37 (attack probe): a pair whose value is itself a pair (systemd's Environment=, docker's --env=, a log's
    # "env: ..." or "args: ..."; an Azure connection string), libpq's PGPASSWORD, a passphrase
    ("Environment=API_KEY=Chained0055", "Chained0055"),
    ('Environment="HF_TOKEN=Chained0056"', "Chained0056"),
    ("docker run --env=OPENAI_API_KEY=Chained0057 img", "Chained0057"),
    ("env: API_KEY=Chained0058", "Chained0058"),
    ("args: password=Chained0059", "Chained0059"),
    ("user: password: Chained0060", "Chained0060"),
    ("AZ=DefaultEndpointsProtocol=https;AccountName=a;AccountKey=Chained0061;", "Chained0061"),
    ("PGPASSWORD=PgPass00062 psql -h db", "PgPass00062"),
    ("ssh_passphrase=Phrase00063", "Phrase00063"),
]

#: text that looks close to a secret and must come out unchanged.
KEPT: list[str] = [
    "max_tokens=96 and --max-tokens 96",
    "cost_ns_per_token=1200",
    "http://127.0.0.1:8000/v1/chat/completions?stream=true",
    "prompt_tokens_total 12",
    "the key insight: acceptance rate 0.62, tokens/s 40.5",
    "vllm:spec_decode_num_accepted_tokens_total",
    "--num-speculative-tokens 4 --tokenizer m",
    "Namespace(api_key=None, port=8000)",
    "Environment=CUDA_VISIBLE_DEVICES=0",
    "env: max_tokens=96",
]
