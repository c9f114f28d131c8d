"""Issue 22 item 3: one redactor, on every outward path — ``repr(options)``, the wire log,
recordings (and their replay), exception text, logged CLI noise and callback failures. Issue
26 item 6: the pattern pass (``redact_text``: text from the CLI, where no value is known) is
held to a table of at least 50 secret shapes that must go and 20 look-alikes that must stay;
redaction by known value is in ``test_known_secrets.py``."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, ProcessError
from claude_sync._engine import wire_log
from claude_sync._redaction.redactor import REDACTED, is_secret_name, redact, redact_text
from claude_sync._wire.errors import CLIJSONDecodeError, ControlRequestError, ResultError
from claude_sync.testing import RecordingTransport, ScriptedCLI

SECRET_SHAPES = [
    # (text holding a secret, the secret) — CLI text (stderr, error lines) where no value is known
    ("key sk-ant-api03-AAAAbbbbCCCCdddd-x", "AAAAbbbbCCCCdddd"),
    ("oauth sk-ant-oat01-SHORT", "SHORT"),
    ("openai sk-proj-0123456789abcdefghijKLMN", "0123456789abcdefghijKLMN"),
    ("openai sk-0123456789abcdefghijKLMNOP", "0123456789abcdefghijKLMNOP"),
    ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe rk_test_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("gh ghp_0123456789abcdefghijABCDEFGHIJ", "0123456789abcdefghijABCDEFGHIJ"),
    ("gh app ghs_0123456789abcdefghijABCDEFGHIJ", "0123456789abcdefghijABCDEFGHIJ"),
    ("pat github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "11ABCDEFG0123456789_abcdefghijklmnop"),
    ("gitlab glpat-abcdefghij0123456789", "abcdefghij0123456789"),
    ("slack xoxb-1234567890-abcdefghij", "1234567890-abcdefghij"),
    ("slack app xapp-1-A0123-0123456789-abcdef", "A0123-0123456789-abcdef"),
    ("aws AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"),
    ("aws sts ASIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"),
    ("google AIzaSyA-0123456789abcdefghijklmnopqrstu", "SyA-0123456789abcdefghijklmnopqrstu"),
    ("hf hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "abcdefghijklmnopqrstuvwxyzABCDEFGH"),
    ("npm npm_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789"),
    ("pypi pypi-AgEIcHlwaS5vcmcCJDAxMjM0NTY3LTg5YWItY2RlZi0wMTIzLTQ1Njc4OWFiY2RlZgACKlszLCJl", "AgEIcHlwaS5vcmcCJDAxMjM0NTY3"),
    ("sendgrid SG.abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZ0123", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"),
    ("shopify shpat_0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl", "eyJzdWIiOiIxMjM0NTY3ODkwIn0"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0123\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA0123"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA (cut)", "b3BlbnNzaC1rZXktdjEAAAAA"),
    ("Authorization: Bearer abc.def-ghi", "abc.def-ghi"),
    ("authorization: bearer lowercase-token", "lowercase-token"),
    ("Authorization: Token tk-9f8e7d6c", "tk-9f8e7d6c"),
    ("Authorization: token plainwordsecret", "plainwordsecret"),
    ('Authorization: Digest username="bob", nonce="n0nce", response="6629fae49393a05397450978507c4ef1"', "6629fae49393a05397450978507c4ef1"),
    ("Authorization: ApiKey ak-000111222", "ak-000111222"),
    ('{"Authorization": "Bot bot-token-12345"}', "bot-token-12345"),
    ("Proxy-Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
    ("Basic Zm9vOmJhcg==", "Zm9vOmJhcg"),
    ("curl -H 'Authorization: Bearer curl-secret-1' https://x", "curl-secret-1"),
    ("https://alice:hunter2@mcp.example/x", "hunter2"),
    ("postgres://u:pg-pass-9@db:5432/app", "pg-pass-9"),
    ("git clone https://ghtoken0123456789@github.com/o/r", "ghtoken0123456789"),
    ("https://x-access-token:gha-secret-77@github.com/o/r.git", "gha-secret-77"),
    ("https://mcp.example/sse?api_key=qk-123&mode=x", "qk-123"),
    ("https://mcp.example/sse?x=1&access_token=at-456", "at-456"),
    ("https://mcp.example/sse?key=mcp-key-789", "mcp-key-789"),
    ("https://storage.example/blob?sv=2020&sig=sig-abc%2B123", "sig-abc%2B123"),
    ("export ANTHROPIC_API_KEY=env-secret-1", "env-secret-1"),
    ('ANTHROPIC_API_KEY="quoted-secret-1"', "quoted-secret-1"),
    ("ANTHROPIC_API_KEY='single-quoted-1'", "single-quoted-1"),
    ("GITHUB_TOKEN=gt-secret-2 make", "gt-secret-2"),
    ("PGPASSWORD=pg-secret-3 psql -h db", "pg-secret-3"),
    ("MYSQL_PWD=my-secret-4 mysql", "my-secret-4"),
    ("X-Api-Key: hdr-secret-3", "hdr-secret-3"),
    ("password: pw-secret-4", "pw-secret-4"),
    ('password: "quoted pw secret"', "quoted pw secret"),
    ("passwd=short1", "short1"),
    ("client_secret: cs-inline-5", "cs-inline-5"),
    ("srv --token tok-secret-5 --verbose", "tok-secret-5"),
    ("srv --api-key=ak-secret-6", "ak-secret-6"),
    ("srv --key kk-secret-7", "kk-secret-7"),
    ('srv --auth-header "Token at-secret-8"', "at-secret-8"),
    ("srv --password 'pw secret 9'", "pw secret 9"),
    ('{"apiKeyHelper": "echo helper-secret-7", "model": "m"}', "helper-secret-7"),
    ('{"env": {"DB_URL": "db-secret-8"}}', "db-secret-8"),
    ('partial {"client_secret":"cs-secret-9","x":', "cs-secret-9"),
    ('{"mcpServers": {"s": {"headers": {"X-Custom": "custom-secret-10"}}}}', "custom-secret-10"),
    ('error in config "headers": {"X-Team": "team-secret-11"} at line 3', "team-secret-11"),
    ('Set-Cookie: session=cookie-secret-12; Path=/', "cookie-secret-12"),
    # Environment assignments (issue 36): behind a label, with punctuation, quoted, exported.
    ("psql: error: PGPASSWORD=pg-label-13 was refused", "pg-label-13"),
    ("Error: PGPASSWORD=Tr0ub4dor&3;x)y was refused", "3;x)y"),
    ("export DB_PASS=dbpass-14", "dbpass-14"),
    ('declare -x SMTP_PASSWORD="smtp secret 15"', "smtp secret 15"),
    ("env STRIPE_WEBHOOK_SECRET=whsec,16 node app.js", "whsec,16"),
    ("args=--token=nested-17 --verbose", "nested-17"),
    ("export CI_JOB_TOKEN='ci tok 18'", "ci tok 18"),
]

KEPT = [
    "a basic example", "a Basic Authentication scheme", "http://127.0.0.1:9/mcp", "at 12:30",
    "the author: Ann", "input_tokens=12", "max_tokens: 100", "tokenizer=fast", "apiKeySource: none",
    "--password-file /etc/pw", "sk-learn", "task-ant-eater", "see https://example.com/a:b?page=2",
    "Bearer of bad news", "call connect(api_key=None) now", "set auth: true.", "token: null",
    "password: ''", "api_key=$ANTHROPIC_API_KEY", 'token = "${GITHUB_TOKEN}"', "Token economy",
    "Authorization: required", "the secret to success is patience", "password reset link sent",
    "ssh://git@github.com/o/r", "mail bob@example.com", "PWD=/home/user/project", "port=5432",
    "token_type=bearer", "Basic usage: run it", "auth: enabled", "--token-file ~/.tok",
    "the key: values are sorted", "secret_name=prod-db", "redirect?code=&state=1",
    "PGPASSWORD=$(cat ~/.pgpass)", "Set `API_KEY=<your key>` in .env", "pass=3 fail=0", "first_pass=ok",
    "MAX_TOKENS=4096", "TOKEN_COUNT=12", "error: connection refused", "HOME=/root PATH=/usr/bin",
]  # fmt: skip


def test_the_tables_are_big_enough() -> None:
    assert len(SECRET_SHAPES) >= 50 and len(KEPT) >= 20


@pytest.mark.parametrize("text, secret", SECRET_SHAPES, ids=[s for _, s in SECRET_SHAPES])
def test_secret_shapes_are_redacted_in_cli_text(text: str, secret: str) -> None:
    assert secret not in redact_text(text) and REDACTED in redact_text(text)
    assert redact_text(redact_text(text)) == redact_text(text)  # idempotent


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_are_kept(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "name, secret",
    [("api_key", True), ("x-api-key", True), ("apiKeyHelper", True), ("ANTHROPIC_AUTH_TOKEN", True),
     ("claudeAiOauth", True), ("AWS_SECRET_ACCESS_KEY", True), ("Set-Cookie", True), ("client_secret", True),
     ("private_key", True), ("GHTOKEN", True), ("PGPASSWORD", True), ("MYSQL_PWD", True), ("PWD", False),
     ("input_tokens", False), ("apiKeySource", False),
     ("token_type", False), ("author", False), ("key", False), ("project_key", False), ("passwordRequired", False),
     ("AWS_ACCESS_KEY_ID", False), ("secretName", False)],
)  # fmt: skip
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_structures_keep_keys_numbers_and_identity() -> None:
    clean = {"model": "m", "usage": {"input_tokens": 5}, "tokenSource": "none", "text": "hello"}
    assert redact(clean) is clean  # nothing to hide: no copy
    out = redact({"args": ["--token", "t1", "-v", "--api-key", "t2", "plain"], "credentials": {"user": "u", "n": 1},
                  "headers": {"H": "v", "Empty": None}, "access_token": 7})  # fmt: skip
    assert out == {"args": ["--token", REDACTED, "-v", "--api-key", REDACTED, "plain"], "credentials": {"user": REDACTED, "n": 1},
                   "headers": {"H": REDACTED, "Empty": None}, "access_token": 7}  # fmt: skip


# ----------------------------------------------------------------------------- repr(options)


def test_repr_of_options_hides_secrets_held_as_json_strings_args_and_urls() -> None:
    options = ClaudeAgentOptions(
        settings=json.dumps({"env": {"S1": "settings-env-secret"}, "apiKeyHelper": "echo helper-secret"}),
        mcp_servers={
            "stdio": {"type": "stdio", "command": "srv", "args": ["--token", "arg-secret", "--api-key", "arg-secret-2"],
                      "env": {"E": "env-secret"}},
            "http": {"type": "http", "url": "https://user:url-secret@mcp.example/mcp?token=query-secret"},
        },
    )  # fmt: skip
    text = repr(options)
    for secret in ("settings-env-secret", "helper-secret", "arg-secret", "env-secret", "url-secret", "query-secret"):
        assert secret not in text, secret
    assert "mcp.example" in text and "apiKeyHelper" in text and "--token" in text
    as_string = repr(ClaudeAgentOptions(mcp_servers=json.dumps({"mcpServers": {"s": {"headers": {"A": "json-secret"}}}})))
    assert "json-secret" not in as_string


# ----------------------------------------------------------------------------- live paths


@pytest.fixture
def wire_records() -> Iterator[List[logging.LogRecord]]:
    records: List[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Collect(logging.DEBUG)
    logger = logging.getLogger("claude_sync")
    old_level, old_wire = logger.level, wire_log.WIRE_LOGGER.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    wire_log.WIRE_LOGGER.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        wire_log.WIRE_LOGGER.setLevel(old_wire)


MCP_STATUS = {"mcpServers": [{"name": "remote", "status": "failed", "config": {
    "type": "http", "url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer status-secret", "X-Team": "team-secret"}}}]}  # fmt: skip
SECRETS = ("status-secret", "team-secret", "set-env-secret", "flag-env-secret", "flag-helper-secret")


def talk(client: ClaudeSDKClient) -> None:
    assert client.get_mcp_status()["mcpServers"][0]["config"]["headers"]["X-Team"] == "team-secret"  # the caller sees it
    client.set_mcp_servers({"local": {"type": "stdio", "command": "srv", "env": {"TOKEN": "set-env-secret"}}})
    client.apply_flag_settings({"env": {"K": "flag-env-secret"}, "apiKeyHelper": "echo flag-helper-secret"})


def scripted(tmp_path: Path) -> ScriptedCLI:
    return ScriptedCLI(directory=tmp_path, auto_answers={
        "mcp_status": MCP_STATUS, "mcp_set_servers": {"added": ["local"], "removed": [], "errors": {}},
        "apply_flag_settings": ScriptedCLI.ECHO})  # fmt: skip


def test_the_wire_log_hides_echoed_headers_and_sent_env(tmp_path: Path, wire_records: List[logging.LogRecord]) -> None:
    with ClaudeSDKClient(scripted(tmp_path).options()) as client:
        talk(client)
    logged = "\n".join(r.getMessage() for r in wire_records if r.name == "claude_sync.wire")
    assert "mcp_status" in logged and "apply_flag_settings" in logged and REDACTED in logged
    for secret in SECRETS:
        assert secret not in logged, secret


def test_recordings_hide_them_and_still_replay(tmp_path: Path) -> None:
    cli = scripted(tmp_path)
    path = tmp_path / "rec.jsonl"
    transport = RecordingTransport(cli.transport(), path)
    with ClaudeSDKClient(ClaudeAgentOptions(), transport=transport) as client:
        talk(client)
    recorded = path.read_text(encoding="utf-8")
    assert "mcp_set_servers" in recorded and REDACTED in recorded
    for secret in SECRETS:
        assert secret not in recorded, secret
    replay = ScriptedCLI.from_recording(path)
    with ClaudeSDKClient(ClaudeAgentOptions(), transport=replay.transport()) as client:
        client.get_mcp_status()  # the recorded answer is the redacted one
        client.set_mcp_servers({"local": {"type": "stdio", "command": "srv", "env": {"TOKEN": "set-env-secret"}}})
        client.apply_flag_settings({"env": {"K": "flag-env-secret"}, "apiKeyHelper": "echo flag-helper-secret"})
    replay.verify()  # live secrets match their recorded <redacted>


@pytest.mark.parametrize(
    "error",
    [
        lambda: ProcessError("CLI died", exit_code=1, stderr="fetch https://u:stderr-secret@h failed; key sk-ant-api03-stderrsecret"),
        lambda: ResultError("API Error: 401 " + json.dumps({"headers": {"authorization": "Bearer stderr-secret"}})),
        lambda: ControlRequestError('mcp failed: {"headers": {"X-Key": "stderr-secret"}}'),
        lambda: CLIJSONDecodeError('{"api_key": "stderr-secret", ', ValueError("x")),
        lambda: ProcessError("x")._with_stderr_tail("Authorization: Bearer stderr-secret"),
    ],
)  # fmt: skip
def test_exception_text_is_redacted(error: Any) -> None:
    exc = error()
    assert "stderr-secret" not in str(exc) and "stderrsecret" not in str(exc) and REDACTED in str(exc)
    assert "stderr-secret" not in repr(exc)


def test_logged_cli_noise_and_callback_failures_are_redacted(tmp_path: Path, wire_records: List[logging.LogRecord]) -> None:
    def failing_tool(*args: Any) -> Any:
        raise RuntimeError("cannot reach https://u:cb-secret@db with token=cb-token")

    cli = (ScriptedCLI(directory=tmp_path).expect_user().raw("noise with sk-ant-api03-noisesecret\n")
           .ask_permission("Bash", {"command": "ls"}).text("ok").result())  # fmt: skip
    with ClaudeSDKClient(cli.options(can_use_tool=failing_tool)) as client:
        client.query("go")
        list(client.receive_response())
    logged = "\n".join(r.getMessage() for r in wire_records if r.name != "claude_sync.wire")
    assert "non-JSON stdout line" in logged and "cannot reach" in logged
    for secret in ("noisesecret", "cb-secret", "cb-token"):
        assert secret not in logged, secret


def test_the_kit_redact_is_the_one_redactor() -> None:
    from claude_sync._redaction.redactor import redact_frame
    from claude_sync.testing import redact as kit_redact

    frame: Dict[str, Any] = {"type": "control_request", "request": {"servers": {"s": {"env": {"A": "b"}, "args": ["--password", "p"]}}}}
    assert kit_redact(frame) == redact_frame(frame) == {"type": "control_request", "request": {
        "servers": {"s": {"env": {"A": REDACTED}, "args": ["--password", REDACTED]}}}}  # fmt: skip


def test_every_claude_sync_logger_goes_through_the_redactor() -> None:
    import ast

    import claude_sync

    package = Path(claude_sync.__file__).parent
    plain = []
    for path in package.rglob("*.py"):
        if path.relative_to(package).as_posix() == "_redaction/redactor.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "getLogger":
                if not (path.name == "wire_log.py" and node.args and getattr(node.args[0], "value", None) == "claude_sync"):
                    plain.append(f"{path.relative_to(package)}:{node.lineno}")
    assert plain == [], f"use _redaction.redactor.redacted_logger: {plain}"


def test_a_cli_dying_with_a_password_in_its_stderr_raises_a_process_error_without_it(tmp_path: Path) -> None:
    """The fake CLI (a real subprocess) prints environment assignments to stderr and exits 1:
    the ``ProcessError`` names the variables, not their values."""
    stderr = ("psql: error: connection failed\nError: PGPASSWORD=Tr0ub4dor&3;x)y\n"
              "+ export DB_PASS='db pass 1'\nGH_TOKEN=gh-tok-2 git push\nsee the password reset link\n")  # fmt: skip
    cli = ScriptedCLI(directory=tmp_path).expect_user().crash(1, stderr=stderr)
    with pytest.raises(ProcessError) as caught:
        with ClaudeSDKClient(cli.options()) as client:
            client.query("go")
            list(client.receive_response())
    text = f"{caught.value}\n{caught.value!r}"  # the text; `.stderr` is the raw data
    for secret in ("Tr0ub4dor", "3;x)y", "db pass 1", "gh-tok-2"):
        assert secret not in text, secret
    for kept in ("PGPASSWORD=<redacted>", "DB_PASS='<redacted>'", "GH_TOKEN=<redacted> git push", "see the password reset link"):
        assert kept in text, kept
