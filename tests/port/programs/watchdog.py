"""Ask, and give up after a deadline; a heartbeat task prints while we wait (asyncio)."""

import asyncio
import contextlib

from claude_agent_sdk import ClaudeSDKClient, ResultMessage


async def heartbeat(stop: asyncio.Event) -> None:
    while not stop.is_set():
        print(".", end="", flush=True)
        await asyncio.sleep(1)


async def ask(client: ClaudeSDKClient, question: str) -> ResultMessage:
    await client.query(question)
    async for message in client.receive_response():
        if isinstance(message, ResultMessage):
            return message
    raise RuntimeError("no result")


async def main() -> None:
    stop = asyncio.Event()
    beat = asyncio.create_task(heartbeat(stop))
    async with ClaudeSDKClient() as client:
        try:
            result = await asyncio.wait_for(ask(client, "Summarise RFC 9110 in one line."), timeout=30)
            print("\n", result.result)
        except asyncio.TimeoutError:
            print("\ngave up after 30 s")
            await client.interrupt()
    stop.set()
    with contextlib.suppress(asyncio.CancelledError):
        await beat


asyncio.run(main())
