"""Review every Python file of a folder with Claude, a few at a time (asyncio + gather)."""

import asyncio
import sys
from pathlib import Path

from claude_agent_sdk import AssistantMessage, ClaudeAgentOptions, TextBlock, query

MAX_AT_ONCE = 4


async def review(path: Path, limit: asyncio.Semaphore) -> str:
    """One file's review: the assistant's text, joined."""
    options = ClaudeAgentOptions(allowed_tools=["Read"], max_turns=3)
    parts = []
    async with limit:
        async for message in query(prompt=f"Review {path} in three bullet points.", options=options):
            if isinstance(message, AssistantMessage):
                parts += [b.text for b in message.content if isinstance(b, TextBlock)]
    await asyncio.sleep(0.1)  # be gentle with the rate limit
    return "\n".join(parts)


async def main(folder: str) -> int:
    files = sorted(Path(folder).glob("*.py"))
    limit = asyncio.Semaphore(MAX_AT_ONCE)
    reviews = await asyncio.gather(*(review(f, limit) for f in files))
    for path, text in zip(files, reviews):
        print(f"## {path}\n{text}\n")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else ".")))
