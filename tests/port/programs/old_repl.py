"""A small REPL written for the older claude_code_sdk, on anyio."""

from typing import Any, AsyncIterator, Dict

import anyio
from claude_code_sdk import (
    ClaudeCodeOptions,
    ClaudeSDKClient,
    HookMatcher,
    ResultMessage,
)


async def log_tool(input_data: Dict[str, Any], tool_use_id: Any, context: Any) -> Dict[str, Any]:
    print(f"[tool] {input_data.get('tool_name')}")
    return {}


async def first_messages() -> AsyncIterator[Dict[str, Any]]:
    yield {"type": "user", "message": {"role": "user", "content": "You are my shell helper."}}


async def repl() -> None:
    options = ClaudeCodeOptions(
        append_system_prompt="Answer in one line.",
        hooks={"PreToolUse": [HookMatcher(hooks=[log_tool])]},
    )
    async with ClaudeSDKClient(options) as client:
        await client.query(first_messages())
        async for _ in client.receive_response():
            pass
        while True:
            line = await anyio.to_thread.run_sync(input, "> ")
            if line in ("", "exit"):
                break
            await client.query(line)
            async for message in client.receive_response():
                if isinstance(message, ResultMessage):
                    print(message.result)


if __name__ == "__main__":
    anyio.run(repl)
