"""``PostgresSessionStore`` under the real CLI (fake API): the store down for 10 s while a
session runs, and a conversation whose turns run in two processes with separate HOMEs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List

import pytest
from pg_server import PostgresServer, running_server

from claude_sync import (
    ClaudeSDKClient,
    ResultMessage,
    SystemMessage,
    get_session_messages_from_store,
    project_key_for_directory,
)
from claude_sync._sessions.stores.postgres import PostgresSessionStore
from claude_sync.testing.fake_api import FakeAnthropicAPI, content_text, text

from .harness import hermetic_env

pytestmark = pytest.mark.e2e

Options = Callable[..., Any]
ROOT = Path(__file__).resolve().parents[2]
DOWN_SECONDS = 10.0


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    """A server of this test's own (it is stopped and started again)."""
    yield from running_server()


def one_turn(client: ClaudeSDKClient, prompt: str) -> List[Any]:
    client.query(prompt)
    messages = list(client.receive_response(timeout=120))
    assert isinstance(messages[-1], ResultMessage) and not messages[-1].is_error, messages[-1]
    return messages


def mirror_errors(messages: List[Any]) -> List[Any]:
    return [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "mirror_error"]


def local_transcript(config_dir: Path, session_id: str) -> List[Dict[str, Any]]:
    [path] = list((config_dir / "projects").glob(f"*/{session_id}.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [e for e in lines if not str(e.get("type")).startswith("api-request")]  # never mirrored (2.1.330+)


def test_the_store_down_for_ten_seconds_while_a_session_runs(
    own_server: PostgresServer, e2e_options: Options, fake_api: FakeAnthropicAPI
) -> None:
    fake_api.add(*[lambda request: text("answer to " + request.last_user_text.split()[-1])] * 20)
    store = PostgresSessionStore(own_server.conninfo(), connect_timeout=2, statement_timeout=5)
    options = e2e_options(session_store=store)
    turns: List[List[Any]] = []
    down_turns: List[float] = []
    pace = threading.Event()  # never set: a bounded wait between turns
    with store, ClaudeSDKClient(options) as client:
        turns.append(one_turn(client, "turn t0"))
        own_server.stop()
        down_at = time.monotonic()
        while time.monotonic() - down_at < DOWN_SECONDS:
            started = time.monotonic()
            turns.append(one_turn(client, f"turn t{len(turns)}"))
            down_turns.append(time.monotonic() - started)
            pace.wait(max(0.0, started + 1.0 - time.monotonic()))  # about one turn a second
        own_server.restart()
        up_at = time.monotonic()
        turns.append(one_turn(client, f"turn t{len(turns)}"))
        after_turn = time.monotonic() - up_at
    session_id = turns[0][-1].session_id
    assert [t[-1].result for t in turns] == [f"answer to t{i}" for i in range(len(turns))]  # the run went on
    errors = [mirror_errors(t) for t in turns]
    assert errors[0] == [] and all(errors[1:-1]), errors  # every turn while down reported
    assert all("OperationalError" in e.data["error"] for turn in errors for e in turn)
    local = local_transcript(Path(options.env["CLAUDE_CONFIG_DIR"]), session_id)
    pk = project_key_for_directory(str(options.cwd))
    with PostgresSessionStore(own_server.conninfo()) as reader:
        stored = reader.load({"project_key": pk, "session_id": session_id}) or []
    missing = [e for e in local if e not in stored]
    print(f"\n[figures] store down {DOWN_SECONDS:.0f} s: {len(down_turns)} turns ran meanwhile "
          f"({min(down_turns):.2f}-{max(down_turns):.2f} s each, {sum(len(e) for e in errors)} mirror_error messages); "
          f"first turn after restart {after_turn:.2f} s; local lines {len(local)}, in the store {len(stored)}, missing {len(missing)}")  # fmt: skip
    assert missing == [] and stored == local  # retried into the store once it was back, in order


# ----------------------------------------------------------------------------- two processes

TURN = r"""
import json, sys
from claude_sync import ClaudeAgentOptions, ResultMessage, SystemMessage, query
from claude_sync._sessions.stores.postgres import PostgresSessionStore
args = json.loads(sys.argv[1])
with PostgresSessionStore(args["conninfo"]) as store:
    options = ClaudeAgentOptions(cli_path=args["cli"], env=args["env"], cwd=args["cwd"], session_store=store,
                                 resume=args["resume"], close_timeout=5, initialize_timeout=30, control_timeout=30)
    messages = list(query(args["prompt"], options=options))
result = messages[-1]
assert isinstance(result, ResultMessage), result
errors = [m.data for m in messages if isinstance(m, SystemMessage) and m.subtype == "mirror_error"]
print(json.dumps({"session_id": result.session_id, "result": result.result, "mirror_errors": errors}))
"""


def turn_in_a_process(home: Path, base_url: str, cli: str, cwd: Path, conninfo: str, prompt: str, resume: Any = None) -> Dict[str, Any]:
    """One ``query`` in a separate Python process whose HOME (and the CLI's) is ``home/home``."""
    env = hermetic_env(home, base_url)
    args = {"conninfo": conninfo, "cli": cli, "env": env, "cwd": str(cwd), "prompt": prompt, "resume": resume}
    process_env = {**os.environ, "HOME": env["HOME"], "TMPDIR": env["TMPDIR"], "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", TURN, json.dumps(args)], capture_output=True, text=True,
                          env=process_env, timeout=180, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_a_conversation_moves_to_another_process_through_the_store(
    pg_conninfo: str, real_cli_path: str, e2e_options: Options, fake_api: FakeAnthropicAPI, tmp_path: Path
) -> None:
    """Turn 1 in process A, turn 2 in process B (own HOME, no local transcript) by ``resume=``."""
    app = tmp_path / "app"  # the same code directory on both "hosts": the same project key
    app.mkdir()
    fake_api.add(text("the code word is PLUM"), text("it was PLUM"))
    a = turn_in_a_process(tmp_path / "A", fake_api.base_url, real_cli_path, app, pg_conninfo, "remember the code word")
    assert a["result"] == "the code word is PLUM" and a["mirror_errors"] == []
    b_config = tmp_path / "B" / "home" / ".claude"
    assert not list(b_config.glob("projects/*/*.jsonl"))  # B never saw the session
    b = turn_in_a_process(tmp_path / "B", fake_api.base_url, real_cli_path, app, pg_conninfo,
                          "what was the code word?", resume=a["session_id"])  # fmt: skip
    assert b["session_id"] == a["session_id"] and b["result"] == "it was PLUM" and b["mirror_errors"] == []
    first, second = fake_api.turn_requests()
    sent = [(m["role"], content_text(m["content"])) for m in second.messages if m.get("role") != "system"]
    assert sent[0][0] == "user" and sent[0][1].endswith("remember the code word")
    assert sent[1] == ("assistant", "the code word is PLUM")
    assert sent[2][0] == "user" and sent[2][1].endswith("what was the code word?")
    with PostgresSessionStore(pg_conninfo) as store:
        texts = [content_text(m.message.get("content")) for m in get_session_messages_from_store(store, a["session_id"], str(app))]
    assert texts == ["remember the code word", "the code word is PLUM", "what was the code word?", "it was PLUM"]
    assert not list(b_config.glob("projects/*/*.jsonl"))  # B resumed in a temporary dir, now gone
    assert not list((tmp_path / "B" / "home" / "tmp").glob("claude_sync-resume-*"))
    fake_api.assert_no_surprises()
