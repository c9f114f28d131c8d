"""Issue 26 item 6: redaction by knowledge. The secret values the library is given are
collected where they enter (options, spawn planning, control requests) and removed by value
from every outward path; the model's and the user's words are never rewritten otherwise."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest
from helpers import run_together

from claude_sync import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ClaudeSDKError,
    ProcessError,
)
from claude_sync.testing import RecordingTransport, ScriptedCLI

# ----------------------------------------------------------------------------- planted secrets

PLANTED: Dict[str, Any] = {
    "mcp_servers": {
        "query": {"type": "http", "url": "https://mcp.example/sse?key=planted-query-key-1"},
        "userinfo": {"type": "sse", "url": "https://planted-userinfo-tok-2@mcp.example/sse"},
        "stdio": {"type": "stdio", "command": "srv", "args": [
            "--key", "planted-arg-key-3",
            "--auth-header", "Token planted-auth-header-4",
            "-H", "Authorization: Token planted-token-hdr-5",
            "--header", "Authorization: Digest username=bob, response=planted-digest-6",
            "sh", "-c", 'ANTHROPIC_API_KEY="planted-quoted-key-7" srv',
            "--config", 'password: "planted-quoted-pw-8"',
            "env", "PGPASSWORD=planted-pgpass-9", "psql",
        ]},
    },
}  # fmt: skip
PLANTED_VALUES = [f"planted-{name}" for name in (
    "query-key-1", "userinfo-tok-2", "arg-key-3", "auth-header-4", "token-hdr-5", "digest-6", "quoted-key-7",
    "quoted-pw-8", "pgpass-9",
)]  # fmt: skip


def test_repr_of_options_shows_none_of_the_planted_secrets() -> None:
    text = repr(ClaudeAgentOptions(**PLANTED))
    assert [v for v in PLANTED_VALUES if v in text] == []
    assert "mcp.example" in text and "--auth-header" in text and "psql" in text  # the rest stays readable


def test_error_text_shows_none_of_them_in_any_form() -> None:
    ClaudeAgentOptions(**PLANTED)  # they are known from here on
    echoed = ClaudeSDKError("MCP config rejected: " + json.dumps(PLANTED))
    bare = ProcessError("CLI died", exit_code=1, stderr="\n".join(f"cannot use {v} here" for v in PLANTED_VALUES))
    for error in (echoed, bare, bare._with_stderr_tail(" ".join(PLANTED_VALUES))):
        assert [v for v in PLANTED_VALUES if v in str(error)] == [], str(error)
    assert "cannot use <redacted> here" in str(bare)


# ----------------------------------------------------------------------------- the model's words

HARMLESS = [
    "Bearer of bad news: call connect(api_key=None) and set auth: true.",
    "The token budget is 200k (max_tokens: 4096).",
    "Basic usage: pass password=... only in tests.",
    "Set `API_KEY=<your key>` in .env, then run it.",
    "Authorization: required for the admin page.",
    "export GITHUB_TOKEN=$GITHUB_TOKEN",
    "The secret: keep functions short.",
    "Use --token-file ~/.tok (not --token).",
    'Set "password": null to disable it.',
    "Token economy and Bearer bonds are finance terms.",
    "ssh://git@github.com/owner/repo.git and bob@example.com",
    "https://example.com/search?q=key&page=2",
    "curl -H 'Authorization: Bearer $TOKEN' https://api.example.com",
    "a key: value map; auth: enabled; cookie: none.",
]  # fmt: skip


def _recorded_texts(tmp_path: Path, phrases: List[str]) -> List[str]:
    cli = ScriptedCLI(directory=tmp_path).expect_user()
    for phrase in phrases:
        cli = cli.text(phrase)
    cli = cli.result(phrases[-1])
    path = tmp_path / "words.jsonl"
    with ClaudeSDKClient(ClaudeAgentOptions(), transport=RecordingTransport(cli.transport(), path)) as client:
        client.query("talk")
        list(client.receive_response())
    replay = ScriptedCLI.from_recording(path)
    with ClaudeSDKClient(ClaudeAgentOptions(), transport=replay.transport()) as client:
        client.query("talk")
        return [b.text for m in client.receive_response() if isinstance(m, AssistantMessage) for b in m.content]


def test_a_recording_keeps_the_models_words(tmp_path: Path) -> None:
    assert _recorded_texts(tmp_path, HARMLESS) == HARMLESS


def test_a_known_value_the_model_repeats_is_redacted_everywhere(tmp_path: Path) -> None:
    options = ClaudeAgentOptions(env={"SERVICE_TOKEN": "model-echo-secret-123"})
    said = "Your token is model-echo-secret-123, keep it safe."
    assert _recorded_texts(tmp_path, [said]) == ["Your token is <redacted>, keep it safe."]
    assert "model-echo-secret" not in (tmp_path / "words.jsonl").read_text(encoding="utf-8")
    message = AssistantMessage(content=[], model="m")
    from claude_sync import TextBlock

    message.content.append(TextBlock(said))
    assert "model-echo-secret" not in repr(message) and "model-echo-secret" not in message._repr_html_()
    assert "<redacted>" in repr(message)
    del options


# ----------------------------------------------------------------------------- the registry


def test_short_values_stay_out_of_free_text_and_the_minimum_is_eight() -> None:
    from claude_sync._redaction.secrets import MIN_SECRET_LENGTH, remember, scrub

    assert MIN_SECRET_LENGTH == 8
    for short in ("x", "true", "hunter2"):
        remember(short)
    text = "x marks true hunter2 spot"
    assert scrub(text) is text
    remember("eight-ch")
    assert scrub("say eight-ch.") == "say <redacted>."
    options = ClaudeAgentOptions(env={"API_KEY": "x"}, mcp_servers={"s": {"type": "stdio", "command": "c", "args": ["--token", "ab"]}})
    assert "'ab'" not in repr(options) and "'x'" not in repr(options)  # structure still hides them in repr


def test_escaped_and_encoded_forms_are_removed(tmp_path: Path) -> None:
    from claude_sync._redaction.redactor import redact_frame, redact_text
    from claude_sync._redaction.secrets import scrub

    secret = 'q"uo\\te/slash+plus=1 ü'
    ClaudeAgentOptions(env={"DB_PASSWORD": secret})
    from urllib.parse import quote, quote_plus

    for form in (json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1], quote(secret, safe=""),
                 quote_plus(secret), json.dumps(json.dumps(secret))[1:-1]):  # fmt: skip
        assert "<redacted>" in scrub(f"line with {form} in it"), form
        assert "slash" not in scrub(f"line with {form} in it"), form
    raw = '{"type": "assistant", "text": ' + json.dumps(secret) + "}"
    assert "slash" not in redact_text(raw)
    assert "slash" not in json.dumps(redact_frame(json.loads(raw)))


def test_secrets_collected_at_spawn_planning(tmp_path: Path) -> None:
    from claude_sync._options.command import build_spawn_plan
    from claude_sync._redaction.secrets import scrub

    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_text(json.dumps({"apiKeyHelper": "vault read user-helper-secret-1"}))
    work = tmp_path / "work" / ".claude"
    work.mkdir(parents=True)
    (work / "settings.local.json").write_text(json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": "local-settings-tok-2"}}))
    flag = tmp_path / "flag.json"
    flag.write_text(json.dumps({"env": {"OPENAI_API_KEY": "flag-file-secret-3"}}))
    mcp = tmp_path / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"s": {"type": "http", "url": "https://h/x", "headers": {"X-Team": "mcp-file-secret-4"}}}}))
    environ = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(config), "MY_SERVICE_TOKEN": "inherited-secret-5",
               "DATABASE_URL": "postgres://app:inherited-db-pw-6@db/app", "PATH": "/usr/bin:/bin"}  # fmt: skip
    options = ClaudeAgentOptions(cwd=str(tmp_path / "work"), settings=str(flag), mcp_servers=str(mcp))
    values = ["vault read user-helper-secret-1", "local-settings-tok-2", "flag-file-secret-3", "mcp-file-secret-4",
              "inherited-secret-5", "inherited-db-pw-6"]  # fmt: skip
    assert [v for v in values if scrub(v) != v] == []  # not known before the spawn is planned
    build_spawn_plan(options, "claude", environ=environ)
    assert [v for v in values if scrub(v) == v] == []
    assert scrub("/usr/bin:/bin") == "/usr/bin:/bin"  # not a secret name: not collected


def test_values_sent_in_control_requests_are_known(tmp_path: Path) -> None:
    from claude_sync._redaction.secrets import scrub

    cli = ScriptedCLI(directory=tmp_path, auto_answers={"apply_flag_settings": ScriptedCLI.ECHO})
    with ClaudeSDKClient(cli.options()) as client:
        client.apply_flag_settings({"env": {"LIVE_API_KEY": "live-flag-secret-1"}})
    assert scrub("live-flag-secret-1") == "<redacted>"


def test_concurrent_remember_and_scrub_lose_nothing() -> None:
    from claude_sync._redaction.secrets import remember, scrub


    def work(n: int) -> None:
        for i in range(150):
            remember(f"thread-{n}-secret-{i:04d}")
            assert scrub(f"x thread-{n}-secret-{i:04d} y") == "x <redacted> y"

    assert run_together(work, 8) == []
    assert all(scrub(f"thread-{n}-secret-{i:04d}") == "<redacted>" for n in range(8) for i in range(150))


def test_hostile_values_do_not_break_collection() -> None:
    from claude_sync._redaction.secrets import MAX_SECRET_LENGTH, remember, remember_config, scrub

    remember("\ud800lone-surrogate-secret")
    assert scrub("a \ud800lone-surrogate-secret b") == "a <redacted> b"
    remember("y" * (MAX_SECRET_LENGTH + 1))
    assert scrub("y" * (MAX_SECRET_LENGTH + 1)) == "y" * (MAX_SECRET_LENGTH + 1)
    deep: Any = "https://u:deep-url-secret-1@h"
    for _ in range(5000):
        deep = {"x": [deep]}
    remember_config(deep)  # deeper than the walk goes: no RecursionError
    remember_config({"args": [1, None, b"bytes", "--token", 5, object()], "headers": {"A": 1}})
    remember_config('{"env": {"K_TOKEN": ' + "[" * 100000 + "}}")  # broken, deep JSON text


# ----------------------------------------------------------------------------- logs


@pytest.fixture
def records() -> Iterator[List[logging.LogRecord]]:
    got: List[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            got.append(record)

    handler, logger = Collect(logging.DEBUG), logging.getLogger("claude_sync")
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield got
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)


def test_the_log_filter_removes_known_values_and_keeps_words(records: List[logging.LogRecord]) -> None:
    from claude_sync._redaction.redactor import redacted_logger

    ClaudeAgentOptions(env={"LOGGED_PASSWORD": "logged-secret-123"})
    log = redacted_logger("claude_sync.test")
    log.warning("prompt was %r", HARMLESS[0])
    log.warning("connecting with %s", "logged-secret-123")
    try:
        raise RuntimeError("store at https://u:failure-pw-1@db failed (token=failure-tok-2)")
    except RuntimeError as exc:
        log.error("store failed: %r", exc, exc_info=exc)
    formatter = logging.Formatter()
    shown = [formatter.format(r) for r in records if r.name == "claude_sync.test"]
    assert shown[0] == f"prompt was {HARMLESS[0]!r}"
    assert shown[1] == "connecting with <redacted>"
    assert "failure-pw-1" not in shown[2] and "failure-tok-2" not in shown[2] and "Traceback" in shown[2]


def test_header_list_variables_are_secrets_by_value() -> None:
    """``ANTHROPIC_CUSTOM_HEADERS`` / ``OTEL_EXPORTER_OTLP_HEADERS`` carry auth headers: each
    header's value is known (public ones such as ``Accept`` excepted)."""
    from claude_sync import ClaudeAgentOptions
    from claude_sync._redaction.redactor import redact_text

    custom = "X-Gateway-Auth: gw-4f8a9c2e71d0b3aa\nAccept: application/json"
    otlp = "authorization=Basic%20b3RscC11c2VyOnMzY3JldA,x-tenant=tenant-7788aabbcc"
    options = ClaudeAgentOptions(env={"ANTHROPIC_CUSTOM_HEADERS": custom, "OTEL_EXPORTER_OTLP_HEADERS": otlp})
    shown = repr(options) + redact_text("sent gw-4f8a9c2e71d0b3aa and b3RscC11c2VyOnMzY3JldA for tenant-7788aabbcc")
    for secret in ("gw-4f8a9c2e71d0b3aa", "b3RscC11c2VyOnMzY3JldA", "tenant-7788aabbcc"):
        assert secret not in shown, secret
    assert "application/json" in redact_text("Accept: application/json")


@pytest.mark.parametrize("safe, plus", [("", False), ("", True), ("/", False), ("/ é", False), (" ", True)])
def test_percent_encoding_is_urllibs_quote_without_loading_it(safe: str, plus: bool) -> None:
    import random
    from urllib.parse import quote, quote_plus

    from claude_sync._redaction.secrets import percent_encoded

    pick = random.Random(41)
    alphabet = [chr(n) for n in range(0x80)] + ["é", "€", "😀", "\u00a0", "\ufffd", "ÿ"]
    values = ["", " ", "a b/c?d=e&f+g%h", "sk-ant-api03-Ab_9~.-"]
    values += ["".join(pick.choice(alphabet) for _ in range(pick.randint(1, 40))) for _ in range(300)]
    for value in values:
        expected = quote_plus(value, safe=safe) if plus else quote(value, safe=safe)
        assert percent_encoded(value, safe=safe, plus=plus) == expected, value
    with pytest.raises(UnicodeEncodeError):
        percent_encoded("key\udc80value")


def test_a_known_secret_and_a_plain_url_load_no_url_parser() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from claude_sync._redaction.secrets import remember, remember_config, scrub\n"
        "before = set(sys.modules)\n"
        "remember('sk-ant-secret value/1'); remember_config({'url': 'http://127.0.0.1:8080/v1'})\n"
        "assert scrub('x sk-ant-secret%20value%2F1 y') == 'x <redacted> y', scrub('x sk-ant-secret%20value%2F1 y')\n"
        "print(sorted(set(sys.modules) - before))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.strip()
    assert "urllib" not in loaded and "ipaddress" not in loaded, loaded  # (Python 3.9's pathlib loads urllib.parse itself)
