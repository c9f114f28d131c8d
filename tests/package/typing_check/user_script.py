"""A user's script written against the public API only; ``mypy --strict`` must pass on it
(``tests/wire/test_signatures.py``). Never run: it is type-checked."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Dict, List, Optional

from typing_extensions import TypedDict

import claude_sync
from claude_sync import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookContext,
    HookMatcher,
    Message,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    TextBlock,
    ToolPermissionContext,
    ToolUseBlock,
    query,
    show,
    tool,
)


def allow_reads(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> PermissionResultAllow | PermissionResultDeny:
    if name in ("Read", "Glob"):
        return PermissionResultAllow()
    return PermissionResultDeny(message=f"{name} is not allowed here")


def log_tool(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> Dict[str, Any]:
    print(hook_input.get("tool_name"), tool_use_id)
    return {}


@tool("add", "Add two numbers", {"a": float, "b": float})
def add(args: Dict[str, Any]) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


def answer(prompt: str) -> str:
    options = ClaudeAgentOptions(
        max_turns=2,
        model="claude-sonnet-4-5",
        can_use_tool=allow_reads,
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[log_tool])]},
        mcp_servers={"calc": claude_sync.create_sdk_mcp_server("calc", tools=[add])},
    )
    options.raise_on_error_result = False
    texts: List[str] = []
    for message in query(prompt, options=options):
        if isinstance(message, AssistantMessage):
            texts.extend(block.text for block in message.content if isinstance(block, TextBlock))
            calls: List[str] = [block.name for block in message.content if isinstance(block, ToolUseBlock)]
            print(calls)
        elif isinstance(message, ResultMessage):
            cost: Optional[float] = message.total_cost_usd
            print(message.num_turns, cost, message._repr_html_())
    return "".join(texts)


def chat() -> None:
    with ClaudeSDKClient(ClaudeAgentOptions(max_turns=1)) as client:
        client.query("Hello")
        received = list(client.receive_response(timeout=60.0))
        print(len(received), repr(received[-1]))
        print("".join(client.text_stream(timeout=60.0)))


def watch(prompt: str) -> Optional[str]:
    run = show(query(prompt))
    last: Message = run[-1] if isinstance(run[-1], ResultMessage) else ResultMessage("x", 0, 0, True, 0, "s")
    pieces: List[str] = list(query(prompt).text_stream())
    return "".join(pieces) if isinstance(last, ResultMessage) else None


print(inspect.signature(ClaudeAgentOptions).parameters["max_turns"].default)


@dataclasses.dataclass
class Invoice:
    number: str
    total: float
    lines: List[str]


class Movie(TypedDict):
    title: str
    year: int


def typed_runs() -> float:
    invoice = claude_sync.run("Read the invoice", output_format=Invoice)
    result: claude_sync.RunResult[Invoice] = invoice
    movie = claude_sync.run("Name a film", output_format=Movie)
    with claude_sync.AgentPool() as pool:
        later = pool.submit("Read it again", output_format=Invoice)
        years: List[int] = [r.output["year"] for r in pool.map(["a", "b"], output_format=Movie)]
        print(later.result().output.number, years)
    try:
        claude_sync.parse_output(Invoice, {"number": "1", "total": 2, "lines": []})
    except claude_sync.StructuredOutputError as exc:
        print(exc.error_path, exc.raw_output, claude_sync.json_schema_of(Invoice)["required"])
    return result.output.total + len(movie.output["title"])
