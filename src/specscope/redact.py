"""The one secret redaction, applied to everything specscope writes (manifest, run.sqlite, server logs copied into
a run, reports, crash logs) and prints (``specscope.cli.crash`` passes stdout and stderr through
:func:`redact_text`): issue 17 part 5, issue 29, issue 48.

What counts as a secret (each rule names the source of its shape):

- URL userinfo (RFC 3986 3.2.1, ``scheme://user:password@host`` or a token as the user): the whole userinfo;
- URL query parameters whose name is a credential (``key`` and ``sig`` as Google and Azure SAS use them,
  ``apikey``, ``api_key``, ``token``, ``access_token``, ``pass``, ``password``, S3 presigned URLs'
  ``X-Amz-Signature`` / ``X-Amz-Credential`` / ``X-Amz-Security-Token``): the value;
- HTTP authorization headers (RFC 7617 ``Basic``, RFC 6750 ``Bearer``, ``X-Api-Key``, Azure's ``api-key``) and a
  bare ``Bearer ...`` / ``Basic ...`` credential: the credential;
- ``NAME=VALUE`` / ``NAME: VALUE`` pairs whose name is a credential (:func:`is_secret_name`): environment
  assignments (``HF_TOKEN=..``), Python reprs as servers log them (argparse's ``Namespace(api_key='..')``, vLLM's
  ``non-default args: {'api_key': ['..']}``), JSON (``"password": ".."``), INI (``aws_secret_access_key = ..``);
  the value whatever its form (quoted string, list, bare word); ``None`` / ``null`` / empty values are kept;
- the argument of a command-line flag that carries a credential (``--api-key``, ``--hf-token``, ``--token``,
  ``--password``, ``--*-key``, ``--*-secret``), in an argv list, in a command line and in an argv list's repr
  (``'--api-key', 'VALUE'``);
- a userinfo typed without a scheme (``user:pw@host:8000``): the password; a cookie header (``Cookie:``,
  ``Set-Cookie:``, RFC 6265): its whole value; camelCase credential names (``accessToken``) as query names and keys;
- a secret this process was given (:func:`remember_secret`: the API key), whatever its shape;
- strings that are credentials by their prefix: NVIDIA ``nvapi-``, Groq ``gsk_``, Google OAuth ``ya29.``, OpenAI
  ``sk-``, Hugging Face ``hf_``, GitHub ``ghp_`` ``gho_`` ``ghu_`` ``ghs_`` ``ghr_`` ``github_pat_``, GitLab
  ``glpat-``, Slack ``xox?-``, AWS access key ids ``AKIA`` / ``ASIA``, Google ``AIza``, npm ``npm_``, JSON Web
  Tokens (``eyJ..``.``..``.``..``), PEM private key blocks; hosted inference APIs users compare against: xAI ``xai-``,
  Replicate ``r8_``, Perplexity ``pplx-``, Fireworks ``fw_``.

Census of the credential forms users paste (issue 48): logs of serving engines, shell commands, HTTP headers and
config files. Each row: the form, its source, the rule here that masks it (``-`` where nothing does, and why).

============================================  =====================================  ============================
form                                          source                                 rule
============================================  =====================================  ============================
``scheme://user:pw@host``, ``user:pw@h:p``    RFC 3986 3.2.1                         ``_URL_CREDS``, ``_BARE_CREDS``
``?token=V`` ``&sig=V`` ``#access_token=V``   RFC 3986 3.4; S3 presign, Azure SAS    ``_QUERY``
``%3Ftoken%3DV`` (once or twice encoded)      RFC 3986 2.1, a URL inside a URL       ``_ENCODED_QUERY``
``Authorization: <scheme> <credentials>``     RFC 9110 11.6.2; IANA HTTP             ``_AUTH_HEADER`` (all of the
  Basic, Bearer, Digest, HOBA, Mutual,        Authentication Scheme Registry         credentials, auth-params
  Negotiate, OAuth, SCRAM-SHA-*, vapid,       (RFC 7617, 6750, 7616, 7486, 8120,     and quoted strings too; the
  DPoP, GNAP, PrivateToken, Concealed         4559, 5849, 7804, 8292, 9449, 9635,    scheme named if known)
                                              9577, 9729)
  Token, ApiKey, SSWS, AWS4-HMAC-SHA256       conventions: Django REST framework,    same
  (``Credential=.. Signature=..``)            Elastic, Okta, AWS SigV4
``Proxy-Authorization:``                      RFC 9110 11.7.2                        same
bare ``Bearer V`` / ``Basic V`` / ``Token V`` RFC 6750 2.1, RFC 7617 2, DRF          ``_AUTH_SCHEME``
``X-Api-Key:`` ``api-key:`` ``*-token:``      OpenAI-style servers, Azure, GitLab    ``_HEADER``, ``_pairs``
``Cookie:`` ``Set-Cookie:`` ``Cookie2:``      RFC 6265 4, RFC 2965                   ``_COOKIE`` (whole value)
``sessionid`` ``csrftoken`` ``JSESSIONID``    Django, Java servlets, PHP, Express,   :func:`is_secret_name`
``PHPSESSID`` ``connect.sid`` ``session``     Flask, Laravel/Rails ``*_session``
``curl -u/--user/-U/--proxy-user u:pw``       curl(1)                                ``_USER_FLAG``
``http -a/--auth u:pw``                       HTTPie docs, Authentication            ``_USER_FLAG``
``curl -b/--cookie 'n=v'``                    curl(1) (a value without ``=`` is a    ``_COOKIE_FLAG``
                                              cookie file: kept)
``curl -E/--cert file:passphrase``            curl(1)                                ``_USER_FLAG``
``curl --oauth2-bearer V``, ``--pass V``      curl(1)                                ``_FLAG_IN_TEXT``
``wget --password= --http-password=``         wget(1)                                ``_FLAG_IN_TEXT``
``--api-key V`` ``--hf-token=V`` ``--*-pass`` engines' CLIs, argv reprs              ``_FLAG_IN_TEXT``, argv
``NAME=V`` (.env, ``export``, systemd)        POSIX sh, systemd.exec Environment=    ``_pairs``
``name: V`` (YAML), ``name = "V"`` (TOML,     YAML 1.2, TOML 1.0, INI, JSON,         ``_pairs``
INI), ``"name": "V"`` (JSON), Python repr     Python repr
``name => 'V'`` (Ruby, Perl, PHP hashes)      Ruby, perldata, PHP arrays             ``_pairs`` (``=>``)
``//host/:_authToken=V``, ``_auth=V``         npm .npmrc (npm docs, npmrc)           ``_pairs``
``machine h login u password V``              netrc(5)                               ``_NETRC``
``api_key: str = "V"`` (settings class)       Python annotations (pydantic)          ``_ANNOTATION``
``*_TOKEN *_SECRET *_PASSWORD *_API_KEY``     env var conventions                    :func:`is_secret_name`
token prefixes (list below)                   each issuer; gitleaks v8.30.0 rules    ``_PREFIXED``
PEM ``-----BEGIN ... PRIVATE KEY-----``       RFC 7468                               ``_PEM``
``mysql -pPW`` (and mysqldump, mysqladmin,    mysql(1) "-p[password]": attached      ``_COMMAND_PASSWORD``
mariadb ..; ``-p db`` prompts: kept)          only, a space makes it a database name
``sshpass -p PW cmd``, ``sshpass -pPW``       sshpass(1) "-ppassword", before cmd    ``_COMMAND_PASSWORD``
``redis-cli -a PW``                           redis-cli(1) (``redis-cli --help``)    ``_COMMAND_PASSWORD``
``redis-cli AUTH [user] PW``                  Redis command reference, AUTH          ``_COMMAND_PASSWORD`` (the
                                              ("AUTH [username] password")           last word)
``mongosh -p PW``, ``mongo -p PW``,           mongosh Options reference              ``_COMMAND_PASSWORD``,
``mongosh --password PW`` (``-p`` with no     ("--password, -p <password>"),         ``_FLAG_IN_TEXT``
value prompts: kept)                          mongo(1) ("-p <password>")
``mongodb://user:pw@host``,                   MongoDB Connection String URI Format   ``_URL_CREDS``
``mongodb+srv://user:pw@host``                (RFC 3986 userinfo)
``docker login -p PW``                        docker login reference (``-p``,        ``_COMMAND_PASSWORD``
                                              ``--password``)
``SSHPASS=PW``, ``MYSQL_PWD=PW``,             sshpass(1) ``-e``, mysql(1)            :func:`is_secret_name`
``REDISCLI_AUTH=PW``                          environment, redis-cli(1)
``aws configure set aws_secret_access_key V`` AWS CLI reference, ``configure set``   ``_AWS_CONFIGURE_SET``
``secret_key_base: V``, ``SECRET_KEY_BASE``   Rails guides, Securing Rails           :func:`is_secret_name`
                                              Applications (credentials)
``"authorization": 12345``, ``password: 42``  JSON (RFC 8259), YAML: a number under  ``_pairs``, ``_auth_headers``,
                                              a name that only names credentials     :func:`redact`
``-p 8000`` (docker, ssh), ``-P 3306``,       docker run(1), ssh(1), redis-cli(1),   ``-``: a port, kept
``redis-cli -p 6379``, ``mongosh --port N``   mongosh Options: a port
============================================  =====================================  ============================

Token prefixes: Anthropic ``sk-ant-`` (under ``sk-``), Stripe ``sk_live_`` ``sk_test_`` ``rk_live_`` ``whsec_``,
npm ``npm_``, PyPI ``pypi-AgE`` (a macaroon), GitLab ``glpat-`` ``glcbt-`` ``gldt-`` ``glptt-`` ``glrt-`` and the
rest of its family, Docker Hub ``dckr_pat_``, HashiCorp Vault ``hvs.``, SendGrid ``SG.``, DigitalOcean ``dop_v1_``,
Databricks ``dapi``, age ``AGE-SECRET-KEY-1``, LangSmith ``lsv2_pt_``, Google OAuth client secrets ``GOCSPX-``,
Shopify ``shpat_``, Postman ``PMAK-`` (shapes from gitleaks v8.30.0 ``config/gitleaks.toml``).

Not secrets, kept: counts and rates named after tokens (``prompt_tokens=12``, ``num_accepted_tokens``,
``--max-tokens 256``, ``tokens/s``, ``cost_ns_per_token``), a tokenizer's special tokens (``eos_token='</s>'``), a
workload's ``session_id``, ``Token 5 of 12``, a port or uid after ``-a`` / ``-u`` (``127.0.0.1:8000``,
``1000:1000``), a port after ``-p`` (``docker run -p 8000:8000``, ``ssh -p 2222``), a count after a ``--*-pass``
flag (``--first-pass 2``).

In a JSON-like value (:func:`redact`) a mapping key that is a credential name masks its value whatever its type
(a string, a list of keys, an object), except booleans and None, and numbers under a name that may also name a
count or an id (``token``, ``session``, ``sid``, ``key``: ``{"token": 12}``); a number under a name that only names
a credential (``authorization``, ``password``, ``secret``, ``api_key``: :func:`_number_is_secret`) is masked, in
text as in a mapping.

A redacted secret becomes :data:`MASK`. This module has no dependencies (a low layer beside
:mod:`specscope.fsio`), so the store, the log writers and the CLI's output call it.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MASK", "redact", "redact_text", "redact_argv", "is_secret_name", "remember_secret"]

MASK = "***"

# a credential name, as a whole mapping key / assignment name (``api_key``, ``HF_TOKEN``, ``X-Amz-Signature``)
_NAME_WORDS = (
    r"token|secret|password|passwd|passphrase|pwd|credentials?|authorization|apikey|signature|api[_-]?key"
    r"|cookie2?|session|sid"  # a cookie header as a key; Flask's ``session``, Express's ``connect.sid``
)
# a name that ends in password / passwd / passphrase is one whatever precedes it (libpq's ``PGPASSWORD``)
# a session cookie's name ends in sessionid / sessid whatever precedes it (Django ``sessionid``, Java ``JSESSIONID``,
# PHP ``PHPSESSID``, ``ASP.NET_SessionId``), a CSRF token's in csrftoken / xsrftoken (Django ``csrftoken``); a
# workload's ``session_id`` is a conversation's id, not a cookie
_SECRET_NAME = re.compile(
    rf"(?i)(?:^|[_.-])(?:{_NAME_WORDS})$|[_.-](?:key|sig|pass|auth)$|pass(?:word|wd|phrase)$"
    r"|sess(?:ion)?id$|[cx]srf[_-]?token$"
    # sshpass(1) ``-e`` reads ``SSHPASS``; Rails signs its cookies and sessions with ``secret_key_base``
    r"|^sshpass$|(?:^|[_.-])secret[_-]key[_-]base$"
)
# a name that only names a credential, never also a count or an id (``token``, ``session``, ``sid`` and ``key``
# do: ``{"token": 12}``): a number under it is a credential too (``"authorization": 12345``, ``password: 1234``)
_CREDENTIAL_ONLY_NAME = re.compile(
    r"(?i)(?:authorization|pass(?:word|wd|phrase)|(?:^|[_.-])(?:pwd|secret|api[_-]?key|secret[_-]key[_-]base))$"
    r"|^sshpass$|[a-z0-9](?:Password|Passwd|Secret|ApiKey)$"
)
_CAMEL_SECRET_NAME = re.compile(r"[a-z0-9](?:Token|Secret|Password|Passwd|ApiKey|Key|Signature|Credentials?|Auth)$")
# rates and counts of tokens; a tokenizer's special tokens (transformers' SPECIAL_TOKENS_ATTRIBUTES: ``eos_token``)
_NOT_SECRET_NAME = re.compile(
    r"(?i)per[_-]token$|^num[_-]|^max[_-]|^n[_-]|(?:^|[_.-])(?:bos|eos|unk|sep|pad|cls|mask)[_-]token$"
)
# query parameters that are credentials even as bare words (Google ``key``, Azure SAS ``sig``)
_BARE_QUERY_NAMES = frozenset({"key", "sig", "pass", "pwd", "auth", "code_verifier"})

# the userinfo runs to the authority's last '@' (a password may hold a raw '@', a quote or '<' as users type it)
_URL_CREDS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/\s\">]*@")
# what ``_URL_CREDS`` matches from a ``://`` on: the userinfo to its last '@' (see :func:`_mask_url_creds`)
_URL_USERINFO = re.compile(r"[^/\s\">]*@")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
# a userinfo with no scheme, as typed into --server (``user:pw@host:8000``): the password, before a host and port
_BARE_CREDS = re.compile(
    r"(?:(?<=^)|(?<=[\s='\"]))(?P<user>[A-Za-z0-9._~%+-]+):[^\s\"/]+@(?P<host>[A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(?=\d)"
)
_QUERY = re.compile(r"(?P<sep>[?&;#])(?P<name>[A-Za-z0-9_.\-]+)=(?P<value>[^&#\s'\"<>]+)")
# an API key header's value: one word
_HEADER = re.compile(r"(?i)\b(?P<name>x-api-key|api-key)(?P<sep>['\"]?\s*:\s*['\"]?)(?P<value>[^\s'\",}]+)")
# an authorization header (RFC 9110 11.6.2): ``scheme credentials``, the credentials a token68 or auth-params with
# quoted strings (Digest, AWS4-HMAC-SHA256); all of it is masked, the scheme named when it is a known one
_AUTH_HEADER = re.compile(r"(?i)\b(?P<name>(?:proxy-)?authorization)(?P<sep>['\"]?\s*:\s*)(?P<q>['\"]?)")
_AUTH_SCHEMES = frozenset(
    "basic bearer digest dpop gnap hoba mutual negotiate ntlm oauth privatetoken concealed scram-sha-1 scram-sha-256"
    " vapid token apikey api-key key ssws aws4-hmac-sha256 sharedkey sharedkeylite".split()
)
_BLANKS = re.compile(r"[ \t]*+")
_AUTH_SCHEME_WORD = re.compile(r"[A-Za-z][A-Za-z0-9._-]{0,39}(?=[ \t]+[^\s'\",])")
# unquoted: words, quoted strings, and ", " or a space only before another auth-param's ``name=``; no brace or
# bracket (RFC 9110 5.6.2 tokens and token68 hold none): ``{"authorization": false}`` keeps its closing brace
_AUTH_VALUE = re.compile(r"(?:[^\s'\",{}\[\]]++|\"[^\"\r\n]*+\"|(?:,[ \t]*+|[ \t]++)(?=[A-Za-z0-9_-]++=))++")
_AUTH_QUOTED = {q: re.compile(rf"(?:[^{q}\\\r\n]++|\\.)++") for q in "'\""}  # to the quote, escapes skipped
# RFC 6750 bearer tokens; RFC 7617 basic credentials are base64 (a digit, '+', '/' or '=' in them: not a word)
# Django REST framework's ``Token`` (40 hex digits) and its kind: letters and digits both, 16 or more (not
# ``Token 5 of 12``, ``Token throughput``)
_AUTH_SCHEME = re.compile(
    r"\b(?:(?P<scheme>Bearer)\s+(?P<value>[A-Za-z0-9._~+/=-]{6,})|(?P<basic>Basic)\s+(?=[A-Za-z]*[0-9+/=])[A-Za-z0-9+/]{6,}=*"
    r"|(?P<token>Token)\s+(?=[A-Za-z._~+/=-]*+[0-9])(?=[0-9._~+/=-]*+[A-Za-z])[A-Za-z0-9._~+/=-]{16,})"
)
# NAME=VALUE, NAME: VALUE, 'NAME': VALUE, "NAME": VALUE, NAME = VALUE; the value quoted, a list (over lines too, as
# indented JSON writes it), or a bare word (not a lone "[" or "{"). The name is read once (possessive, at
# most 128 characters: trying a name at each dot of "a.a.a. ... =" and re-reading the rest was quadratic, 75 s for
# 80 KB), and the value only after a credential name: another name's value is read on for pairs of its own
# (``Environment=API_KEY=V``, ``env: HF_TOKEN=V``, ``--env=API_KEY=V``)
_PAIR = re.compile(
    r"(?P<q>['\"]?)(?P<name>\b_{0,2}+[A-Za-z][A-Za-z0-9_.\-]{0,127}+)(?P=q)(?P<sep>\s*+(?:=>|==|[:=])\s*+)"
)
# ``NAME: TYPE = VALUE`` as a Python settings class declares it (``api_key: str = "V"``, ``Optional[str] = ..``)
_ANNOTATION = re.compile(r"[A-Za-z_][\w.]{0,63}+(?:\[[^\]\n]{0,64}+\])?(?:\s*+\|\s*+None)?[ \t]++=[ \t]*+(?![=>])")
_PAIR_VALUE = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|\[[^\]]{0,4096}\]|(?!\{)[^\s,;)}\[\]'\"&]+")
_NUMBER = re.compile(r"-?[0-9][0-9_.eE+-]*")
_KEEP_VALUES = frozenset({"none", "null", "true", "false", "''", '""', "[]", ""})
_FLAG_NAME = r"--?(?:[a-z0-9]+[-_])*(?:token|key|secret|password|passwd|passphrase|pass|bearer|api[-_]key)"
_SECRET_FLAG = re.compile(rf"(?i)^{_FLAG_NAME}$")
_FLAG_ASSIGN = re.compile(rf"(?i)^({_FLAG_NAME})=(.*)$", re.S)
# the value bare, quoted as an argv repr lists it (``'--api-key', 'V'``) or in shell quotes (``--api-key 'V'``)
_FLAG_IN_TEXT = re.compile(rf"(?i)(?<![\w-])({_FLAG_NAME})(['\"]?,\s*['\"]|\s+['\"]?|=)(?!-)([^\s\"',\]]+)")
# what a credential flag is followed by in help and examples: KEY, NEW_TOKEN, $OPENAI_API_KEY, ${HF_TOKEN}
# A placeholder a person reads in help or docs: a capitals name that says what it stands for (KEY, API_KEY,
# NEW_TOKEN, HF_TOKEN), or a shell variable (a recorded argv holds the expanded value, never the ``$NAME``). Any
# other capitals-only value is masked: a secret could be one.
_PLACEHOLDER = re.compile(
    r"(?:[A-Z]+_){0,3}(?:KEY|TOKEN|SECRET|PASSWORD)(?:_[A-Z]+){0,2}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?"
)
# a user:password given to a flag (curl ``-u`` / ``--user`` / ``-U`` / ``--proxy-user``, HTTPie ``-a`` / ``--auth``;
# curl's ``-E`` / ``--cert`` / ``--proxy-cert`` file:passphrase), in a command line and an argv repr; a cookie
# given to curl's ``-b`` / ``--cookie`` (a ``name=value``, not a file)
_USER_FLAG = re.compile(
    r"(?<![\w-])(?P<flag>-[uUaE]|--(?:proxy-)?(?:user|cert)|--auth)(?P<sep>['\"]?,\s*+(?=['\"])|=|\s++|(?<=-[uUaE]))"
    r"(?P<q>['\"]?)"
    r"(?P<user>[^\s:'\",\]]{0,256}+):(?P<pw>[^\s'\",\]]++)"
)
_COOKIE_FLAG = re.compile(
    r"(?<![\w-])(?P<flag>-b|--cookie)(?P<sep>['\"]?,\s*+(?=['\"])|=|\s++)(?P<value>'[^'\n]*+'|\"[^\"\n]*+\"|[^\s'\",\]]++)"
)
_CERT_FILE = re.compile(r"(?i)\.(?:pem|crt|cer|der|p12|pfx|key)$")
_USER_FLAGS = frozenset({"-u", "-U", "-a", "-E", "--user", "--proxy-user", "--auth", "--cert", "--proxy-cert"})
# a .netrc entry (GNU inetutils netrc(5), curl's --netrc): ``machine h login u password V``, on one line or several
_NETRC = re.compile(
    r"\b(?:machine\s++\S++|default)(?:\s++(?:login|account|port|protocol)\s++\S++)*+\s++password\s++(?P<value>\S++)"
)
_COOKIE_FLAGS = frozenset({"-b", "--cookie"})
# a query inside another URL's parameter, percent-encoded once or twice (RFC 3986 2.1: ``%3Ftoken%3DV``): the value
_ENCODED_QUERY = re.compile(
    r"(?i)(?P<sep>[?&;#=]|%(?:25)?(?:3F|26|3B|23|3D))(?P<name>[A-Za-z0-9_.\-]{1,128}+)(?P<eq>%(?:25)?3D)"
    r"(?P<value>(?:[^%&#\s'\"<>]++|%(?!(?:25)?(?:26|23|3B|22|27))[0-9A-F]{2})++)"
)
_PREFIXED = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{6,}|hf_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{8,}|github_pat_[A-Za-z0-9_]{8,}"
    r"|glpat-[A-Za-z0-9_-]{8,}|xox[abposr]-[A-Za-z0-9-]{6,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{20,}"
    r"|npm_[A-Za-z0-9]{16,}|nvapi-[A-Za-z0-9_-]{16,}|gsk_[A-Za-z0-9]{16,}|ya29\.[A-Za-z0-9_-]{16,}|xai-[A-Za-z0-9]{16,}|r8_[A-Za-z0-9]{16,}|pplx-[A-Za-z0-9]{16,}|fw_[A-Za-z0-9]{16,}|eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}"
    # gitleaks v8.30.0 config/gitleaks.toml: stripe-access-token, pypi-upload-token, gitlab-*, docker, vault,
    # sendgrid, digitalocean, databricks, age, langsmith, gcp client secret, shopify, postman
    r"|[sr]k_(?:test|live|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{16,}|pypi-AgE[A-Za-z0-9_-]{16,}"
    r"|gl(?:cbt|dt|ptt|rt|soat|ft|imt|agent|oas|ffct)-[A-Za-z0-9_-]{16,}|dckr_pat_[A-Za-z0-9_-]{16,}"
    r"|hv[sbr]\.[A-Za-z0-9_-]{20,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|do[opr]_v1_[a-f0-9]{32,}|dapi[a-f0-9]{32}"
    r"|AGE-SECRET-KEY-1[0-9A-Z]{20,}|lsv2_(?:pt|sk)_[A-Za-z0-9_]{16,}|GOCSPX-[A-Za-z0-9_-]{16,}"
    r"|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|PMAK-[a-fA-F0-9]{16,}-[a-fA-F0-9]{4,})"
)
# a cookie header's whole value (``Cookie: a=b; c=d``, RFC 6265): any of its pairs may be a session credential
# (RFC 2965's ``Cookie2`` / ``Set-Cookie2`` too), as a header line and as a dict's quoted key
_COOKIE = re.compile(r"(?im)\b(?P<name>(?:set-)?cookie2?)(?P<sep>['\"]?\s*:\s*['\"]?)[^\r\n'\"]+")
# a password given to a command's own short flag (issue 37): mysql(1) and its clients' ``-pPW`` (attached only: a
# space makes the next word a database name and ``-p`` a prompt), sshpass(1)'s ``-p PW`` / ``-pPW`` among its own
# options before the command it runs (after it ``-p`` is that command's, ssh's port), redis-cli(1)'s ``-a PW``
# (its ``-p`` is a port) and Redis's ``AUTH [user] PW``, ``docker login``'s ``-p PW`` (docker login reference: ``-p,
# --password``; ``docker run -p`` publishes a port), mongosh's and mongo's ``-p PW``. Another word of the same
# command stops each scan, so a line is read once. In an argv list ``AUTH user PW`` masks PW only: a word with
# another after it is the user name (:func:`_auth_user`).
_CMD_VALUE = r"(?P<pw>'[^'\n]*+'|\"[^\"\n]*+\"|[^\s'\";|&]++)"
_COMMAND_PASSWORD = re.compile(
    r"(?<![\w-])(?:"
    r"(?:mysql(?:dump|admin|import|show|check|slap|pump|binlog)?|mariadb(?:-[a-z]++)?)"
    r"(?:\s++(?!-p\S)(?!mysql|mariadb)[^\s|;&]++)*+\s++-p"
    r"|sshpass(?:\s++(?:-[fdP]\s*+(?!sshpass)[^\s|;&]++|-[ehvV][^\s|;&]*+))*+\s++-p\s*+"
    r"|redis-cli(?:\s++(?!-a\s)(?!redis-cli)[^\s|;&]++)*+\s++-a\s++"
    r"|docker\s++login(?:\s++(?!-p)(?!docker)[^\s|;&]++)*+\s++-p(?:\s++|=)?+"
    # Redis's AUTH [username] password (redis.io, commands/auth) given to redis-cli: the last word of the command
    r"|redis-cli(?:\s++(?!(?i:auth)\s)(?!redis-cli)[^\s|;&]++)*+\s++(?i:auth)\s++"
    r"(?:[^\s|;&]++\s++(?=[^\s|;&]++\s*+(?:[|;&\r\n]|$)))?+"
    # mongosh / mongo -p PW (mongosh Options reference: --password, -p; mongo(1)); -p with no value prompts
    r"|mongo(?:sh)?+(?:\s++(?!-p\s)(?!mongo)[^\s|;&]++)*+\s++-p\s++(?!-)"
    rf"){_CMD_VALUE}"
)
_COMMAND_WORDS = ("mysql", "mariadb", "sshpass", "redis-cli", "docker", "mongo")
# argv[i]'s name, path cut
_COMMAND_WORD = re.compile(r"mysql[a-z]*+|mariadb[a-z-]*+|sshpass|redis-cli|aws|docker|mongo(?:sh)?+")
_COMMAND_CONTEXT_WORDS = 32  # how many words after such a command an argv list reads it as that command's
# the AWS CLI's ``aws configure set [--profile P] NAME VALUE`` (AWS CLI command reference): VALUE when NAME is a
# credential name (``aws_secret_access_key``, ``aws_session_token``, ``profile.p.aws_secret_access_key``)
_AWS_CONFIGURE_SET = re.compile(
    r"\baws\s++configure\s++set(?:\s++--profile\s++[^\s|;&]++)?\s++(?P<name>[A-Za-z0-9_.\-]++)\s++" + _CMD_VALUE
)
_PEM = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S)


_KNOWN_SECRETS: set[str] = set()  # secrets this process was given (remember_secret), masked whatever their shape
_KNOWN_MIN_CHARS = 4  # shorter values would mask ordinary words


def remember_secret(value: str) -> None:
    """Mask ``value`` wherever this process writes or prints it from now on: a secret it was given (``--api-key``,
    ``OPENAI_API_KEY``) that a server may echo back (an error event, its log) in a shape no rule here knows."""
    if len(value) >= _KNOWN_MIN_CHARS:
        _KNOWN_SECRETS.add(value)


def is_secret_name(name: str) -> bool:
    """True for a mapping key, assignment or environment variable name that holds a credential (``HF_TOKEN``,
    ``api_key``, ``X-Amz-Signature``, ``client_secret``); False for counts and rates of tokens
    (``max_tokens``, ``num_speculative_tokens``, ``cost_ns_per_token``) and for a bare ``key``."""
    found = _SECRET_NAME.search(name) or _CAMEL_SECRET_NAME.search(name)  # camelCase: ``accessToken``
    return bool(found) and not _NOT_SECRET_NAME.search(name)


def _number_is_secret(name: str) -> bool:
    """True when a number under ``name`` is a credential: the name only ever names one (``authorization``,
    ``password``, ``client_secret``, ``api_key``), not also a count or an id (``token``, ``session``, ``sid``)."""
    return is_secret_name(name) and bool(_CREDENTIAL_ONLY_NAME.search(name))


def _query(m: re.Match[str]) -> str:
    name = m.group("name")
    if is_secret_name(name) or name.lower() in _BARE_QUERY_NAMES:
        return f"{m.group('sep')}{name}={MASK}"
    return m.group(0)


def _masked_pair_value(value: str, name: str) -> str | None:
    """What the credential name ``name``'s ``value`` becomes: None when it is kept (None, null, booleans, empty,
    already masked, a number unless :func:`_number_is_secret`)."""
    if value.lower() in _KEEP_VALUES or value == MASK:
        return None
    if value[0] == "[":  # a list of keys: one masked item, quoted as the list quoted its items (JSON stays JSON)
        quote = next((c for c in value if c in "'\""), "")
        return f"[{quote}{MASK}{quote}]"
    if value[0] in "'\"":
        return f"{value[0]}{MASK}{value[0]}"
    if _NUMBER.fullmatch(value) and not _number_is_secret(name):  # ``"token": 12``: a count or an id
        return None
    return MASK


def _pairs(text: str) -> str:
    """``text`` with the value of each ``NAME=VALUE`` / ``NAME: VALUE`` pair whose name is a credential masked; each
    character is read a bounded number of times (see ``_PAIR``)."""
    out: list[str] = []
    pos = last = 0
    while (m := _PAIR.search(text, pos)) is not None:
        pos = m.end()
        if not is_secret_name(m.group("name")):
            continue
        if "=" not in m.group("sep") and (annotation := _ANNOTATION.match(text, pos)) is not None:
            pos = annotation.end()  # ``api_key: str = "V"``: the value follows the type
        value = _PAIR_VALUE.match(text, pos)
        masked = None if value is None else _masked_pair_value(value.group(0), m.group("name"))
        if value is None or masked is None:
            continue
        if value.group(0).lower() in _AUTH_SCHEMES and text.startswith(f" {MASK}", value.end()):
            continue  # a scheme before its masked credentials (``Authorization: Bearer ***``)
        out += (text[last:pos], masked)
        last = pos = value.end()
    return "".join(out) + text[last:] if out else text


def _flag_value_kept(flag: str, value: str) -> bool:
    """True when the credential flag ``flag``'s ``value`` is kept, in a command line (:func:`redact_text`) and in an
    argv list (:func:`redact_argv`) alike: another flag (``-`` first, not a value), a placeholder a person reads
    (``--api-key KEY`` in ``--help``, ``--api-key $OPENAI_API_KEY`` in an example: ``_PLACEHOLDER``), masked
    already, or a ``--*-pass`` flag's count (``--first-pass 2``)."""
    return (
        value.startswith("-")
        or value == MASK
        or bool(_PLACEHOLDER.fullmatch(value))
        or (flag.lower().endswith("pass") and value.isdigit())
    )


def _flag_value(m: re.Match[str]) -> str:
    """A credential flag's value masked unless :func:`_flag_value_kept`."""
    if _flag_value_kept(m.group(1), m.group(3)):
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}{MASK}"


def _auth_headers(text: str) -> str:
    """``text`` with each authorization header's credentials masked: to the closing quote when the value is quoted,
    else its words and auth-params (``Digest username="u", response="r"``); a known scheme's name is kept."""
    out: list[str] = []
    pos = last = 0
    while (m := _AUTH_HEADER.search(text, pos)) is not None:
        pos = m.end()
        q = m.group("q")
        scheme = _AUTH_SCHEME_WORD.match(text, pos)
        blanks = None if scheme is None else _BLANKS.match(text, scheme.end())
        start = pos if blanks is None else blanks.end()
        value = (_AUTH_QUOTED[q] if q else _AUTH_VALUE).match(text, start)
        if value is None or text.startswith(MASK, start) or text[start] in "{[":
            continue  # nothing, masked already, or an object or list (the pairs rule reads those)
        if scheme is None and _masked_pair_value(value.group(0), m.group("name")) is None:
            continue  # ``"authorization": false`` (a setting, not a credential), null
        named = scheme is not None and scheme.group(0).lower() in _AUTH_SCHEMES
        out += (text[last:pos], f"{scheme.group(0)} {MASK}" if named and scheme is not None else MASK)
        last = pos = value.end()
    return "".join(out) + text[last:] if out else text


def _user_flag(m: re.Match[str]) -> str:
    """A ``user:password`` flag value with the password masked; kept when it is a port or an id
    (``-a 127.0.0.1:8000``, ``docker run -u 1000:1000``) or a drive's path (``--cert C:/certs/a.pem``); after ``-E``
    only a certificate file's passphrase."""
    user, pw = m.group("user"), m.group("pw")
    if m.group("flag") == "-E" and not _CERT_FILE.search(user):
        return m.group(0)  # ``grep -E "warn:spec"``: curl's -E names a certificate file
    if pw == MASK or pw[0] in "/\\" or (pw.isdigit() and (user.isdigit() or "." in user or user in ("", "localhost"))):
        return m.group(0)
    return f"{m.group('flag')}{m.group('sep')}{m.group('q')}{user}:{MASK}"


def _cookie_flag(m: re.Match[str]) -> str:
    """A cookie flag's ``name=value`` masked whole (quotes kept); a file name (no ``=``) is kept."""
    value = m.group("value")
    if "=" not in value:
        return m.group(0)
    quote = value[0] if value[0] in "'\"" else ""
    return f"{m.group('flag')}{m.group('sep')}{quote}{MASK}{quote}"


def _command_password(m: re.Match[str]) -> str:
    """A command's password flag value masked (quotes kept), unless a placeholder (``sshpass -p PASSWORD``,
    ``mysql -p$MYSQL_PASSWORD``) or masked already."""
    pw = m.group("pw")
    quote = pw[0] if pw[0] in "'\"" else ""
    if pw.strip("'\"") == MASK or _PLACEHOLDER.fullmatch(pw.strip("'\"")):
        return m.group(0)
    return f"{m.group(0)[: m.start('pw') - m.start()]}{quote}{MASK}{quote}"


def _aws_configure_set(m: re.Match[str]) -> str:
    return _command_password(m) if is_secret_name(m.group("name")) else m.group(0)


def _encoded_query(m: re.Match[str]) -> str:
    name = m.group("name")
    if is_secret_name(name) or name.lower() in _BARE_QUERY_NAMES:
        return f"{m.group('sep')}{name}{m.group('eq')}{MASK}"
    return m.group(0)


def _mask_url_creds(text: str) -> str:
    """``text`` with each ``_URL_CREDS`` match's userinfo masked, found in one pass: from each ``://`` back over the
    scheme characters to the earliest letter (where the regex's leftmost match starts) and forward to the userinfo's
    '@'. ``_URL_CREDS.sub`` gives the same text but retries its scheme at every letter of a long run of scheme
    characters (a base64 chart in an HTML report: 5.7 s on a 183 KB page), quadratic in the run's length."""
    out: list[str] = []
    done = 0  # text[:done] is in out
    for colon in re.finditer("://", text):
        at = colon.start()
        if at < done:
            continue
        start = at
        while start > done and text[start - 1] in _SCHEME_CHARS:
            start -= 1
        while start < at and not text[start].isalpha():  # scheme characters are ASCII
            start += 1
        if start == at:
            continue  # no scheme: `://` after nothing or after digits and signs only
        userinfo = _URL_USERINFO.match(text, colon.end())
        if userinfo is None:
            continue
        out += [text[done:start], text[start : colon.end()], MASK, "@"]
        done = userinfo.end()
    return "".join([*out, text[done:]]) if out else text


def redact_text(text: str) -> str:
    """``text`` with every secret of the module's rules masked (one pass per rule, linear in the text; a rule whose
    marker substring is absent is skipped)."""
    if not text:
        return text
    for known in _KNOWN_SECRETS:
        if known in text:
            text = text.replace(known, MASK)
    if "-----BEGIN" in text:
        text = _PEM.sub(MASK, text)
    if "password" in text and ("machine" in text or "default" in text):
        text = _NETRC.sub(lambda m: m.group(0)[: m.start("value") - m.start()] + MASK, text)
    if "@" in text:
        if "://" in text:
            text = _mask_url_creds(text)
        text = _BARE_CREDS.sub(lambda m: f"{m.group('user')}:{MASK}@{m.group('host')}:", text)
    if "ookie" in text or "OOKIE" in text:
        text = _COOKIE.sub(lambda m: f"{m.group('name')}{m.group('sep')}{MASK}", text)
    if "=" in text:
        text = _QUERY.sub(_query, text)
    if "%" in text:
        text = _ENCODED_QUERY.sub(_encoded_query, text)
    if ":" in text:
        text = _HEADER.sub(lambda m: f"{m.group('name')}{m.group('sep')}{MASK}", text)
        text = _auth_headers(text)
    if "Bearer" in text or "Basic" in text or "Token" in text:
        text = _AUTH_SCHEME.sub(lambda m: f"{m.group('scheme') or m.group('basic') or m.group('token')} {MASK}", text)
    if any(word in text for word in _COMMAND_WORDS):
        text = _COMMAND_PASSWORD.sub(_command_password, text)
    if "configure" in text:
        text = _AWS_CONFIGURE_SET.sub(_aws_configure_set, text)
    if "-" in text:
        text = _FLAG_IN_TEXT.sub(_flag_value, text)
        if ":" in text:
            text = _USER_FLAG.sub(_user_flag, text)
        if "=" in text:
            text = _COOKIE_FLAG.sub(_cookie_flag, text)
    if "=" in text or ":" in text:
        text = _pairs(text)
    return _PREFIXED.sub(MASK, text)


_SEPARATORS = frozenset({"|", "||", "&", "&&", ";"})  # an argument that ends a command (a shell's argv)


def _auth_user(command: list[str], after: Any) -> bool:
    """Whether an argument of ``redis-cli ... AUTH`` (``command``: the words before it) is AUTH's user name: another
    word of the same command (``after``: the next argument, None at the end) follows it, and only the last is the
    password (Redis's ``AUTH [username] password``, redis.io commands/auth)."""
    in_auth = bool(command) and command[0] == "redis-cli" and any(w.lower() == "auth" for w in command[1:])
    return in_auth and isinstance(after, str) and after not in _SEPARATORS


def redact_argv(argv: list[Any]) -> list[Any]:
    """A command line with the values of credential flags (``--api-key sk-..``, ``--hf-token=..``) masked, and
    every argument's text redacted (:func:`redact_text`). A flag's value is kept or masked by the one rule
    :func:`_flag_value_kept` that the command line's text is read by; an argument that follows a flag taking a
    ``user:password`` or a cookie, or a command with a password flag of its own (``mysql``, ``sshpass``,
    ``redis-cli``, ``aws configure set``), is read as the command line would show it, after the words before it."""
    out: list[Any] = []
    flag = ""  # a credential flag whose value is the next argument
    before = ""
    command: list[str] = []  # the redacted words since a command with a password flag of its own
    for i, arg in enumerate(argv):
        if not isinstance(arg, str):
            out.append(redact(arg))
            flag = before = ""
            command = []
            continue
        if flag and not _flag_value_kept(flag, arg):
            out.append(MASK)
            flag = before = ""
            continue
        m = _FLAG_ASSIGN.match(arg)
        if m and not _flag_value_kept(m.group(1), m.group(2)):
            out.append(f"{m.group(1)}={MASK}")
            flag = before = ""
            continue
        flag = arg if _SECRET_FLAG.match(arg) else ""
        # ``curl -u user:pw``, ``curl -b name=value``, ``mysql -pPW``: the argument read after the words before it
        context = " ".join(command) if command else before
        masked = redact_text(f"{context} {arg}") if context else ""
        if _auth_user(command, argv[i + 1] if i + 1 < len(argv) else None):
            out.append(redact_text(arg))  # Redis's AUTH user name (another word follows): read alone, as text is
        else:
            out.append(masked[len(context) + 1 :] if masked.startswith(f"{context} ") else redact_text(arg))
        before = arg if arg in _USER_FLAGS or arg in _COOKIE_FLAGS else ""
        if _COMMAND_WORD.fullmatch(word := arg.rsplit("/", 1)[-1]):
            command = [word]
        elif command:  # a few words on (a long list is not one command's options)
            command = command + [out[-1]] if len(command) < _COMMAND_CONTEXT_WORDS else []
    return out


def _masked_value(value: Any, name: str) -> bool:
    """A value under the credential name ``name`` that is masked: a non-empty string, list, tuple or mapping, a
    number when :func:`_number_is_secret` (as :func:`_masked_pair_value` reads it in text)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _number_is_secret(name)
    return isinstance(value, str | list | tuple | dict) and bool(value) and value != MASK


def redact(value: Any) -> Any:
    """A copy of a JSON-like ``value`` (dicts, lists, tuples, strings, numbers) with every secret masked."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {
            k: (MASK if isinstance(k, str) and is_secret_name(k) and _masked_value(v, k) else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        items = redact_argv(list(value)) if any(isinstance(x, str) and x.startswith("-") for x in value) else value
        return type(value)(redact(x) if not isinstance(x, str) else redact_text(x) for x in items)
    return value
