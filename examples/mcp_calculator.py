"""A calculator Claude can call: in-process MCP tools, written as plain Python functions.

    python examples/mcp_calculator.py "What is (12 + 30) * 2? And what is 1 / 0?"

The three tools (add, multiply, divide) run inside this Python process, on claude_sync's
callback threads: the ``claude`` CLI reaches them through its stdin/stdout, so there is no
server to start and no ``mcp`` package to install. Dividing by zero shows the error path: the
tool answers with ``isError`` and Claude reads the message and explains it.

It runs the ``claude`` CLI you are logged in with. Environment variables:

    CLAUDE_CLI_PATH   the ``claude`` binary to run (default: ``claude`` on PATH or in the
                      usual install folders).

Everything else in the environment is passed on to the CLI unchanged, so its own variables
(``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``, ...) work as usual. The project's tests run
this file unchanged against a local fake of the API that way.
"""

import os
import sys
from typing import Any, Dict

from claude_sync import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ResultMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    create_sdk_mcp_server,
    tool,
)

NUMBERS = {"a": float, "b": float}  # input schema: two required numbers


def answer(value: float) -> str:
    """A number as the model should read it: 42 rather than 42.0."""
    return str(int(value)) if float(value).is_integer() else repr(value)


@tool("add", "Add two numbers: a + b", NUMBERS)
def add(args: Dict[str, Any]) -> str:
    return answer(args["a"] + args["b"])  # a str becomes one text block


@tool("multiply", "Multiply two numbers: a * b", NUMBERS)
def multiply(args: Dict[str, Any]) -> str:
    return answer(args["a"] * args["b"])


@tool("divide", "Divide a by b: a / b", NUMBERS)
def divide(args: Dict[str, Any]) -> Dict[str, Any]:
    if args["b"] == 0:
        # An error result: Claude sees the text and that the call failed. (Raising an
        # exception here would do the same, with the exception's message as the text.)
        return {"content": [{"type": "text", "text": "Cannot divide by zero."}], "isError": True}
    return {"content": [{"type": "text", "text": answer(args["a"] / args["b"])}]}


calculator = create_sdk_mcp_server("calculator", version="1.0.0", tools=[add, multiply, divide])


def main() -> None:
    prompt = " ".join(sys.argv[1:]) or "What is (12 + 30) * 2? And what is 1 / 0?"
    options = ClaudeAgentOptions(
        cli_path=os.environ.get("CLAUDE_CLI_PATH") or None,
        system_prompt="You are a careful assistant. Do all arithmetic with the calculator tools.",
        mcp_servers={"calculator": calculator},
        # The tools are named mcp__<server key>__<tool name>. Allowing them means no
        # permission prompt; tools=[] leaves out Claude Code's built-in tools (Bash, Edit ...).
        allowed_tools=["mcp__calculator__add", "mcp__calculator__multiply", "mcp__calculator__divide"],
        tools=[],
        max_turns=10,
    )
    with ClaudeSDKClient(options) as client:
        client.query(prompt)
        for message in client.receive_response():
            if isinstance(message, AssistantMessage):
                for block in message.content:
                    if isinstance(block, TextBlock):
                        print(block.text)
                    elif isinstance(block, ToolUseBlock):
                        arguments = ", ".join(f"{k}={v}" for k, v in block.input.items())
                        print(f"-> {block.name.split('__')[-1]}({arguments})")
            elif isinstance(message, UserMessage) and isinstance(message.content, list):
                for block in message.content:
                    if isinstance(block, ToolResultBlock):
                        print(f"<- {'error: ' if block.is_error else ''}{result_text(block)}")
            elif isinstance(message, ResultMessage):
                cost = message.total_cost_usd or 0.0
                print(f"[{message.subtype}, {message.num_turns} turn(s), ${cost:.4f}]")


def result_text(block: ToolResultBlock) -> str:
    if isinstance(block.content, str):
        return block.content
    return " ".join(part.get("text", "") for part in block.content or [] if part.get("type") == "text")


if __name__ == "__main__":
    main()
