"""Try claude_sync without an account or a network: the real ``claude`` CLI, pinned, against
the test suite's fake Anthropic API on 127.0.0.1, in a scratch HOME.

    bash .ci/install_cli.sh          # once: the pinned CLI into ~/.cache/claude_sync (needs npm)
    python examples/try_offline.py "What is 2 + 2?"

The fake "model" answers by asking for the Bash tool; the CLI really runs it (after asking our
``can_use_tool`` callback, a plain function), and the fake then reads the tool's output back to
you. Everything else — the stream-json protocol, the permission round trip, the messages — is
the real thing. ``CLAUDE_SYNC_TEST_CLI`` picks another binary.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))  # the fake API and the hermetic environment

from fake_api import FakeAnthropicAPI, text, tool_use  # noqa: E402
from harness import INSTALL_COMMAND, _is_stripped, find_test_cli, hermetic_env  # noqa: E402

from claude_sync import (  # noqa: E402
    AssistantMessage,
    ClaudeAgentOptions,
    PermissionResultAllow,
    ResultMessage,
    TextBlock,
    ToolPermissionContext,
    ToolUseBlock,
    query,
)


def allow_and_show(tool: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> PermissionResultAllow:
    """Runs on claude_sync's callback pool when the CLI asks whether it may use a tool."""
    print(f"  can_use_tool({tool!r}, {tool_input.get('command')!r}) -> allow")
    return PermissionResultAllow()


def read_back(request: Any) -> Any:
    """The fake model's second reply: quote what the tool printed."""
    [result] = request.tool_results
    content = result["content"]
    output = content if isinstance(content, str) else " ".join(part.get("text", "") for part in content)
    return text(f"The shell says: {output.strip()}")


def main() -> int:
    prompt = " ".join(sys.argv[1:]) or "What is 2 + 2?"
    cli = find_test_cli()
    if cli is None:
        print(f"No pinned claude CLI found. Install it first: {INSTALL_COMMAND}", file=sys.stderr)
        return 1
    for name in [name for name in os.environ if _is_stripped(name)]:
        del os.environ[name]  # no real keys, providers or proxies reach the CLI
    script = [tool_use("Bash", {"command": "echo 2 + 2 = $((2 + 2))", "description": "Add"}), read_back]
    with FakeAnthropicAPI(script) as api, tempfile.TemporaryDirectory(prefix="claude_sync-try-") as scratch:
        work = Path(scratch) / "work"
        work.mkdir()
        options = ClaudeAgentOptions(
            cli_path=cli,
            cwd=str(work),
            env=hermetic_env(scratch, api.base_url, CLAUDE_CODE_MAX_RETRIES=0),
            permission_mode="default",
            can_use_tool=allow_and_show,
        )
        print(f"> {prompt}")
        for message in query(prompt, options=options):
            if isinstance(message, AssistantMessage):
                for block in message.content:
                    if isinstance(block, TextBlock):
                        print(block.text)
                    elif isinstance(block, ToolUseBlock):
                        print(f"  [the model asks for {block.name}]")
            elif isinstance(message, ResultMessage):
                print(f"[{message.subtype}, {message.num_turns} turn(s), {message.duration_ms} ms, CLI {cli}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
