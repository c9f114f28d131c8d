"""In-process MCP tools served while two questions run at once (trio)."""

from typing import Any, Dict

import trio
from claude_agent_sdk import ClaudeAgentOptions, create_sdk_mcp_server, query, tool


@tool("now", "The current time", {})
async def now(args: Dict[str, Any]) -> Dict[str, Any]:
    await trio.sleep(0)
    return {"content": [{"type": "text", "text": str(trio.current_time())}]}


SERVER = create_sdk_mcp_server(name="clock", tools=[now])
OPTIONS = ClaudeAgentOptions(mcp_servers={"clock": SERVER}, allowed_tools=["mcp__clock__now"])


async def ask(question: str) -> None:
    async for message in query(prompt=question, options=OPTIONS):
        print(type(message).__name__)


async def main() -> None:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ask, "What time is it?")
        nursery.start_soon(ask, "And now?")
    with trio.fail_after(60):
        await ask("One more time?")


trio.run(main)
