"""Try claude_sync without an account or a network: the real ``claude`` CLI, pinned, against
``claude_sync.testing``'s fake Anthropic API on 127.0.0.1, in a scratch HOME.

    bash .ci/install_cli.sh          # once: the pinned CLI into ~/.cache/claude_sync (needs npm)
    python examples/try_offline.py "What is 2 + 2?"

The fake "model" is scripted, not a model: it quotes your prompt, says so, and asks for the
Bash tool whatever you asked; the CLI really runs it (after asking our ``can_use_tool``
callback, a plain function), and the fake then reads the tool's output back to you. Everything else — the stream-json protocol, the permission round trip, the messages — is
the real thing. ``CLAUDE_SYNC_TEST_CLI`` picks another binary. Needs nothing beyond
claude_sync itself (``pip install -e .`` in a checkout, or its wheel) and the CLI.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Any, Dict, List, Optional

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
    reply,
    scrubbed_environ,
    text,
    tool_use,
)
from claude_sync.testing.with_fake_api import prompt_of


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


def first_reply(request: Any) -> Any:
    """The fake model's first reply: say what it is, quoting the prompt the CLI sent it, and
    ask for the same shell command whatever the prompt."""
    said = text(f"You asked {prompt_of(request)!r}. I am claude_sync's scripted fake model, "
                "not Claude: whatever the prompt, I ask for one shell command, to show the tool round trip.")
    return reply(said, tool_use("Bash", {"command": "echo 2 + 2 = $((2 + 2))", "description": "Add"}))


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="try_offline.py",
        description="Try claude_sync offline: the real claude CLI against the fake Anthropic API of "
                    "claude_sync.testing on 127.0.0.1 (no account; the fake is scripted, not a model).",
        allow_abbrev=False,
    )  # fmt: skip
    parser.add_argument("prompt", nargs="*", help='what to ask (default: "What is 2 + 2?")')
    prompt = " ".join(parser.parse_args(argv).prompt) or "What is 2 + 2?"
    script = [first_reply, read_back]
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
