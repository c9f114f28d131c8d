"""Try claude_sync without an account or a network: the real ``claude`` CLI, pinned, against
``claude_sync.testing``'s fake Anthropic API on 127.0.0.1, in a scratch HOME.

    bash .ci/install_cli.sh          # once: the pinned CLI into ~/.cache/claude_sync (needs npm)
    python examples/try_offline.py "What is 2 + 2?"

The fake "model" answers by asking for the Bash tool; the CLI really runs it (after asking our
``can_use_tool`` callback, a plain function), and the fake then reads the tool's output back to
you. Everything else — the stream-json protocol, the permission round trip, the messages — is
the real thing. ``CLAUDE_SYNC_TEST_CLI`` picks another binary. Needs nothing beyond
claude_sync itself (``pip install -e .`` in a checkout, or its wheel) and the CLI.
"""

from __future__ import annotations

import sys
import tempfile
from typing import Any, Dict

from claude_sync import (
    AssistantMessage,
    CLINotFoundError,
    PermissionResultAllow,
    ResultMessage,
    TextBlock,
    ToolPermissionContext,
    ToolUseBlock,
    query,
)
from claude_sync.testing import (
    FakeAnthropicAPI,
    offline_options,
    scrubbed_environ,
    text,
    tool_use,
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
    script = [tool_use("Bash", {"command": "echo 2 + 2 = $((2 + 2))", "description": "Add"}), read_back]
    with FakeAnthropicAPI(script) as api, scrubbed_environ(), tempfile.TemporaryDirectory(prefix="claude_sync-try-") as scratch:
        try:
            options = offline_options(api, scratch, permission_mode="default", can_use_tool=allow_and_show)
        except CLINotFoundError as exc:
            print(exc, file=sys.stderr)
            return 1
        print(f"> {prompt}")
        for message in query(prompt, options=options):
            if isinstance(message, AssistantMessage):
                for block in message.content:
                    if isinstance(block, TextBlock):
                        print(block.text)
                    elif isinstance(block, ToolUseBlock):
                        print(f"  [the model asks for {block.name}]")
            elif isinstance(message, ResultMessage):
                print(f"[{message.subtype}, {message.num_turns} turn(s), {message.duration_ms} ms, CLI {options.cli_path}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
