"""``claude_sync.port.port_source``: source in, ported source and flags out (pure)."""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from claude_sync.port import PortResult, UnparsableSource, port_source
from claude_sync.port.markers import marker_text
from claude_sync.port.rules import MARKER, RULES

REPO = Path(__file__).resolve().parents[2]
PY39 = os.path.expanduser("~/.pyenv/versions/3.9.18/bin/python")


def port(source: str, exists: Optional[object] = None) -> PortResult:
    return port_source(textwrap.dedent(source).lstrip("\n"), exists=exists)  # type: ignore[arg-type]


def unmarked(text: str) -> str:
    """``text`` without its ``# claude_sync.port:`` marker lines (the tests of rewrites)."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith(MARKER))


def ported(source: str) -> str:
    """The ported text without its marker lines (``test_markers_*`` check those)."""
    return unmarked(port(source).text)


def flags(source: str) -> List[Tuple[int, str]]:
    return [(f.line, f.message) for f in port(source).flags]


def same(source: str) -> str:
    return textwrap.dedent(source).lstrip("\n")


# ----------------------------------------------------------------------------- async / await


def test_async_and_await_keywords_go_and_nothing_else_moves() -> None:
    result = port(
        """
        from claude_agent_sdk import ClaudeSDKClient
        async def main():  # entry
            async with ClaudeSDKClient() as client:   # two blanks kept
                await client.query("hi")
                async for message in client.receive_response():
                    print(message)
            return [x async for x in stream()]
        """
    )
    assert result.text == same(
        """
        from claude_sync import ClaudeSDKClient
        def main():  # entry
            with ClaudeSDKClient() as client:   # two blanks kept
                client.query("hi")
                for message in client.receive_response():
                    print(message)
            return [x for x in stream()]
        """
    )
    assert result.flags == []


def test_await_keeps_precedence_and_parentheses() -> None:
    assert ported(
        """
        async def f():
            total = await a() + await b() * 2
            return (await
                    c())
        """
    ) == same(
        """
        def f():
            total = a() + b() * 2
            return (
                    c())
        """
    )


def test_async_generator_used_as_a_prompt_stream_becomes_a_plain_generator() -> None:
    assert ported(
        """
        from typing import AsyncIterator

        async def prompts() -> AsyncIterator[dict]:
            yield {"type": "user", "message": {"role": "user", "content": "hi"}}

        async def main():
            async for m in query(prompt=prompts()):
                print(m)
        """
    ) == same(
        """
        from typing import Iterator

        def prompts() -> Iterator[dict]:
            yield {"type": "user", "message": {"role": "user", "content": "hi"}}

        def main():
            for m in query(prompt=prompts()):
                print(m)
        """
    )


# ----------------------------------------------------------------------------- entry points


@pytest.mark.parametrize(
    "call, expected",
    [
        ("asyncio.run(main())", "main()"),
        ("asyncio.run(main(1, x=2), debug=True)", "main(1, x=2)"),
        ("anyio.run(main)", "main()"),
        ("anyio.run(main, 1, 'a', backend='trio')", "main(1, 'a')"),
        ("trio.run(main, *args)", "main(*args)"),
        ("anyio.run(functools.partial(main, 1))", "functools.partial(main, 1)()"),
        ("anyio.run(lambda: main(1))", "(lambda: main(1))()"),
        ("sys.exit(asyncio.run(main()))", "sys.exit(main())"),
    ],
)
def test_event_loop_entry_points_become_direct_calls(call: str, expected: str) -> None:
    result = port(f"import asyncio, anyio, trio, sys, functools\n\n{call}\n")
    assert result.text == f"import sys, functools\n\n{expected}\n"
    assert result.flags == []


def test_entry_point_under_main_guard_and_its_import_inside_the_block() -> None:
    assert ported(
        """
        if __name__ == "__main__":
            import asyncio
            asyncio.run(main())
        """
    ) == same(
        """
        if __name__ == "__main__":
            main()
        """
    )


def test_a_block_left_empty_gets_pass() -> None:
    assert ported(
        """
        try:
            import anyio
        except ImportError:
            anyio = None
        """
    ) == same(
        """
        try:
            pass
        except ImportError:
            anyio = None
        """
    )


# ----------------------------------------------------------------------------- rewrites


def test_sleep_becomes_time_sleep_and_time_is_imported_in_order() -> None:
    result = port(
        """
        import asyncio
        import sys

        async def main():
            await asyncio.sleep(0.5)  # settle
        """
    )
    assert result.text == same(
        """
        import time
        import sys

        def main():
            time.sleep(0.5)  # settle
        """
    )
    assert result.flags == []


def test_from_imported_names_and_aliases_resolve() -> None:
    assert ported(
        """
        import asyncio as aio
        from anyio import sleep as nap

        async def main():
            await aio.sleep(1)
            await nap(2)
        """
    ) == same(
        """
        import time

        def main():
            time.sleep(1)
            time.sleep(2)
        """
    )


def test_existing_time_import_is_reused() -> None:
    assert ported(
        """
        import asyncio
        import time

        async def f():
            await asyncio.sleep(time.time() % 1)
        """
    ) == same(
        """
        import time

        def f():
            time.sleep(time.time() % 1)
        """
    )


def test_a_clash_with_a_local_name_is_flagged_not_rewritten() -> None:
    result = port(
        """
        import asyncio
        from datetime import time

        async def f():
            await asyncio.sleep(1)
        """
    )
    assert "asyncio.sleep(1)" in result.text and "import asyncio" in result.text
    assert [f.line for f in result.flags] == [6]
    assert "that name is taken" in result.flags[0].message


@pytest.mark.parametrize(
    "before, after, needs",
    [
        ("asyncio.Queue()", "queue.Queue()", "import queue"),
        ("asyncio.Queue(maxsize=3)", "queue.Queue(maxsize=3)", "import queue"),
        ("asyncio.Event()", "threading.Event()", "import threading"),
        ("anyio.Event()", "threading.Event()", "import threading"),
        ("asyncio.Lock()", "threading.Lock()", "import threading"),
        ("asyncio.Semaphore(4)", "threading.Semaphore(4)", "import threading"),
        ("asyncio.Condition()", "threading.Condition()", "import threading"),
        ("anyio.current_time()", "time.monotonic()", "import time"),
        ("anyio.Path('x')", "pathlib.Path('x')", "import pathlib"),
        ("anyio.open_file('x', 'rb')", "open('x', 'rb')", None),
        ("anyio.to_thread.run_sync(work, 1, cancellable=True)", "work(1)", None),
        ("anyio.to_thread.run_sync(partial(f, x=1))", "partial(f, x=1)()", None),
        ("asyncio.to_thread(work, 1, key=2)", "work(1, key=2)", None),
    ],
)
def test_primitives_with_a_sync_twin_are_rewritten(before: str, after: str, needs: Optional[str]) -> None:
    result = port(f"import asyncio, anyio\n\nx = {before}\n")
    assert result.text == (f"{needs}\n\nx = {after}\n" if needs else f"x = {after}\n")
    assert result.flags == []


def test_timeout_error_and_queue_exceptions() -> None:
    assert ported(
        """
        import asyncio

        try:
            pass
        except (asyncio.TimeoutError, asyncio.QueueEmpty):
            pass
        """
    ) == same(
        """
        import queue

        try:
            pass
        except (TimeoutError, queue.Empty):
            pass
        """
    )


@pytest.mark.parametrize(
    "call",
    [
        "asyncio.sleep(1, 'result')",
        "asyncio.Queue(3, loop)",
        "anyio.Lock(fast_acquire=True)",
        "anyio.to_thread.run_sync(f, unknown_option=1)",
    ],
)
def test_call_shapes_the_twin_lacks_are_flagged(call: str) -> None:
    result = port(f"import asyncio, anyio\n\nx = {call}\n")
    assert unmarked(result.text).endswith(f"\n\nx = {call}\n")
    assert len(result.flags) == 1 and result.flags[0].line == 4


# ----------------------------------------------------------------------------- flags


@pytest.mark.parametrize(
    "expression, advice",
    [
        ("await asyncio.wait_for(client.query('x'), 5)", "timeout="),
        ("await asyncio.gather(a(), b())", "AgentPool"),
        ("asyncio.create_task(worker())", "threading.Thread"),
        ("asyncio.ensure_future(worker())", "threading.Thread"),
        ("asyncio.TaskGroup()", "AgentPool"),
        ("anyio.create_task_group()", "AgentPool"),
        ("asyncio.timeout(3)", "receive_response(timeout="),
        ("anyio.fail_after(3)", "receive_response(timeout="),
        ("anyio.move_on_after(3)", "TimeoutError"),
        ("asyncio.get_event_loop()", "event loop"),
        ("asyncio.get_running_loop().run_in_executor(None, f)", "run_in_executor"),
        ("asyncio.CancelledError", "nothing is cancelled"),
        ("anyio.create_memory_object_stream()", "queue.Queue"),
        ("anyio.open_process(['ls'])", "subprocess.Popen"),
        ("asyncio.iscoroutinefunction(f)", "drop the check"),
        ("anyio.abc.TaskGroup", "no automatic synchronous equivalent"),
        ("asyncio.subprocess.PIPE", "subprocess"),
    ],
)
def test_what_has_no_safe_rewrite_is_flagged_with_its_sync_equivalent(expression: str, advice: str) -> None:
    result = port(f"import asyncio, anyio\n\nasync def f():\n    x = {expression}\n")
    assert len(result.flags) == 1, result.flags
    flag = result.flags[0]
    assert flag.line == 5 and advice in flag.message
    assert result.text.splitlines()[3] == f"    {MARKER} {marker_text(flag.message)}"
    library = expression.replace("await ", "").split(".")[0]
    assert result.text.startswith(f"import {library}\n")  # still used: kept (the other goes)
    ast.parse(result.text)


def test_flags_point_at_lines_of_the_ported_text() -> None:
    result = port(
        """
        import asyncio
        import anyio

        async def main():
            await asyncio.sleep(1)
            await asyncio.gather(a(), b())
        """
    )
    lines = result.text.splitlines()
    assert [lines[f.line - 1].strip() for f in result.flags] == ["asyncio.gather(a(), b())"]


def test_third_party_async_clients_are_flagged() -> None:
    result = port(
        """
        import redis.asyncio as redis
        import httpx

        async def f():
            r = redis.Redis()
            async with httpx.AsyncClient() as c:
                await c.get("x")
        """
    )
    messages = [f.message for f in result.flags]
    assert len(messages) == 3
    assert "redis.Redis" in messages[0] and "`async with httpx.AsyncClient(…)`" in messages[1] and "`await c.get(…)`" in messages[2]
    assert result.blockers == [result.flags[1]], "`with httpx.AsyncClient()` fails at run time"


def test_a_coroutine_called_without_await_is_marked_in_the_code() -> None:
    result = port(
        """
        import asyncio

        async def worker(n):
            return n

        async def main():
            pending = worker(1)
            await asyncio.gather(worker(2))
            await worker(3)
            print(await pending)
        """
    )
    assert result.text.splitlines()[6] == f"    {MARKER} worker() was not awaited: it now runs here, to the end; to run it alongside, start a threading.Thread"
    assert [f.line for f in result.flags] == [8, 10, 13]
    assert "`await pending` awaited a coroutine made earlier" in result.flags[2].message
    again = port_source(result.text)
    assert [f.line for f in again.flags] == [8, 10, 13], "the markers keep the flags until someone deletes them"
    assert port_source(again.text).text == result.text


def test_every_rule_in_the_table_has_an_action_the_engine_knows() -> None:
    assert {rule.action for rule in RULES.values()} <= {"rename", "unwrap_run", "unwrap_thread", "remove_mark", "flag"}
    assert all(rule.target for rule in RULES.values() if rule.action == "rename")


# ----------------------------------------------------------------------------- official names


def test_official_imports_become_claude_sync_ones() -> None:
    assert ported(
        """
        import claude_agent_sdk
        import claude_code_sdk as old
        from claude_agent_sdk import ClaudeSDKClient, query
        from claude_agent_sdk.types import TextBlock
        from claude_code_sdk import ClaudeCodeOptions

        x = claude_agent_sdk.ClaudeAgentOptions()
        """
    ) == same(
        """
        import claude_sync
        import claude_sync as old
        from claude_sync import ClaudeSDKClient, query
        from claude_sync.types import TextBlock
        from claude_sync import ClaudeCodeOptions

        x = claude_sync.ClaudeAgentOptions()
        """
    )


def test_private_official_modules_are_flagged_and_left_alone() -> None:
    result = port("from claude_agent_sdk._internal.query import Query\n")
    assert unmarked(result.text) == "from claude_agent_sdk._internal.query import Query\n"
    assert "a private module of the official SDK" in result.flags[0].message


def test_dotted_path_strings_follow_and_private_ones_are_flagged() -> None:
    result = port(
        """
        patch("claude_agent_sdk.query")
        importlib.import_module('claude_code_sdk')
        patch("claude_agent_sdk._internal.transport.subprocess_cli.anyio")
        log("claude_agent_sdk is great")
        """
    )
    assert unmarked(result.text) == same(
        """
        patch("claude_sync.query")
        importlib.import_module('claude_sync')
        patch("claude_agent_sdk._internal.transport.subprocess_cli.anyio")
        log("claude_agent_sdk is great")
        """
    )
    assert [f.line for f in result.flags] == [4, 6]  # the private path; the mention (not a path)


def test_names_claude_sync_lacks_are_flagged_when_an_oracle_is_given() -> None:
    known = {("claude_sync", "query")}
    result = port("from claude_agent_sdk import query, NoSuchThing\n", exists=lambda m, n: (m, n) in known)
    assert [f.message for f in result.flags] == ["claude_sync has no NoSuchThing: see the porting guide for what to use instead"]


# ----------------------------------------------------------------------------- tests and helpers


def test_async_test_marks_go() -> None:
    assert ported(
        """
        import pytest

        pytestmark = [pytest.mark.anyio, pytest.mark.slow]


        @pytest.mark.asyncio
        async def test_a():
            await thing()


        @pytest.mark.anyio  # the backend
        @pytest.mark.parametrize("x", [1])
        async def test_b(x):
            pass
        """
    ) == same(
        """
        import pytest

        pytestmark = [pytest.mark.slow]


        def test_a():
            thing()


        @pytest.mark.parametrize("x", [1])
        def test_b(x):
            pass
        """
    )


def test_a_module_wide_mark_goes_with_pytest_when_nothing_else_uses_it() -> None:
    assert ported("import pytest\n\npytestmark = pytest.mark.anyio\n\n\nasync def test_a():\n    pass\n") == (
        "\n\ndef test_a():\n    pass\n"
    )


def test_async_mocks_become_mocks() -> None:
    assert ported(
        """
        from unittest.mock import AsyncMock, patch

        async def test_x():
            m = AsyncMock(return_value=1)
            await m()
            m.assert_awaited_once_with()
            assert m.await_count == 1
        """
    ) == same(
        """
        from unittest.mock import MagicMock, patch

        def test_x():
            m = MagicMock(return_value=1)
            m()
            m.assert_called_once_with()
            assert m.call_count == 1
        """
    )


def test_async_protocol_methods_take_their_sync_names() -> None:
    assert ported(
        """
        import contextlib
        from typing import AsyncGenerator, Awaitable, Callable

        class Resource:
            async def __aenter__(self):
                return self

            async def __aexit__(self, *exc):
                await self.aclose()

        @contextlib.asynccontextmanager
        async def opened() -> AsyncGenerator[Resource, None]:
            yield Resource()

        Hook = Callable[[int], Awaitable[str]]
        """
    ) == same(
        """
        import contextlib
        from typing import Generator, Callable

        class Resource:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.close()

        @contextlib.contextmanager
        def opened() -> Generator[Resource, None, None]:
            yield Resource()

        Hook = Callable[[int], str]
        """
    )


def test_a_class_with_both_protocols_is_flagged() -> None:
    result = port(
        """
        class Both:
            def __enter__(self):
                return self

            async def __aenter__(self):
                return self
        """
    )
    assert "defines both __aenter__ and __enter__" in result.flags[0].message


def test_async_builtins_become_sync_ones_unless_shadowed() -> None:
    assert ported("async def f(it):\n    return await anext(aiter(it))\n") == "def f(it):\n    return next(iter(it))\n"
    assert ported("def anext(x):\n    return x\n\ny = anext(1)\n") == "def anext(x):\n    return x\n\ny = anext(1)\n"


# ----------------------------------------------------------------------------- guarantees


def test_already_ported_code_is_left_exactly_as_it_is() -> None:
    source = same(
        """
        import time
        from claude_sync import query

        for message in query(prompt="hi"):
            time.sleep(0.1)
        """
    )
    result = port_source(source)
    assert result.text == source and not result.changed and result.flags == []


def test_porting_twice_changes_nothing_more() -> None:
    first = port(
        """
        import asyncio
        from claude_agent_sdk import query

        async def main():
            await asyncio.sleep(1)
            async for m in query(prompt="x"):
                print(m)

        asyncio.run(main())
        """
    )
    assert port_source(first.text).text == first.text


def test_line_endings_encoding_marks_and_non_ascii_positions_are_kept() -> None:
    source = "# coding: utf-8\r\nimport asyncio\r\nasync def f():\r\n    s = 'héllo wörld'; await asyncio.sleep(1)\r\n"
    assert port_source(source).text == "# coding: utf-8\r\nimport time\r\ndef f():\r\n    s = 'héllo wörld'; time.sleep(1)\r\n"


def test_unparsable_source_raises_and_says_where() -> None:
    with pytest.raises(UnparsableSource, match=r"x.py:2: cannot parse"):
        port_source("import asyncio\nasync def (:\n", filename="x.py")


def test_top_level_await_from_a_notebook_cell_ports() -> None:
    assert ported("await client.query('hi')\n") == "client.query('hi')\n"


def test_an_await_inside_an_f_string_is_removed_or_flagged_never_missed() -> None:
    result = port("async def g():\n    pass\nasync def f():\n    return f'{await g()}!'\n")
    if sys.version_info >= (3, 12):  # the tokenizer shows the expression's tokens
        assert result.text == "def g():\n    pass\ndef f():\n    return f'{g()}!'\n" and result.flags == []
    else:  # the output would not compile: a blocker, which the command line never writes
        assert "await g()" in result.text and "inside an f-string" in result.flags[0].message
        assert result.blockers == result.flags


def test_the_porting_page_names_every_asyncio_anyio_trio_call_the_tool_knows() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "porting.rst").read_text()
    assert "python -m claude_sync.port" in page
    known = [q for q in RULES if q.split(".")[0] in ("asyncio", "anyio", "trio")]
    assert [q for q in known if f"``{q.split('.')[-1]}" not in page and f".{q.split('.')[-1]}" not in page] == []


def test_what_an_unwrap_drops_is_neither_ported_nor_flagged_and_its_imports_can_go() -> None:
    result = port(
        """
        import trio
        from trio.to_thread import run_sync
        from trio import CapacityLimiter

        async def f(work, limiter):
            return await run_sync(work, limiter=limiter or CapacityLimiter(2))
        """
    )
    assert result.text == "\ndef f(work, limiter):\n    return work()\n"
    assert result.flags == []


def test_flags_and_markers_point_at_the_same_place_on_every_run() -> None:
    first = port("async def g():\n    pass\n\nasync def f():\n    if True:\n        x = g()\n")
    second = port_source(first.text)
    assert [(f.line, f.column) for f in first.flags] == [(7, 9)] == [(f.line, f.column) for f in second.flags]


# ----------------------------------------------------------------------------- what it cannot prove


def test_a_coroutine_made_first_and_awaited_later_is_flagged_and_marked() -> None:
    result = port(
        """
        from claude_agent_sdk import ClaudeSDKClient

        async def main():
            async with ClaudeSDKClient() as client:
                later = client.query("second")
                await client.query("first")
                await later
        """
    )
    assert [(f.line, f.message.split(" awaited")[0]) for f in result.flags] == [(8, "`await later`")]
    assert "ran where it was made" in result.flags[0].message
    lines = result.text.splitlines()
    assert lines[6].startswith(f"        {MARKER} `await later` awaited a coroutine made earlier") and lines[7] == "        later"
    assert [f.line for f in port_source(result.text).flags] == [8], "the marker keeps --check failing"


def test_an_await_on_a_module_it_does_not_know_is_flagged() -> None:
    result = port(
        """
        import mylib
        from elsewhere import fetch

        async def main(session: mylib.Session, untyped):
            value = await mylib.load()
            other = await fetch()
            third = await session.get()
            fourth = await untyped.get()  # the caller's object: what it passes is its business
        """
    )
    assert [f.message.split(":")[0] for f in result.flags] == ["`await mylib.load(…)`", "`await fetch(…)`", "`await session.get(…)`"]
    assert all("coroutine object instead of its value" in f.message for f in result.flags)
    assert "`session` is `mylib.Session`, from a module this run does not port" in result.flags[2].message


def test_awaits_it_can_prove_are_not_flagged() -> None:
    result = port(
        """
        import asyncio
        from claude_agent_sdk import ClaudeSDKClient, ClaudeAgentOptions, query

        class Bot:
            def __init__(self):
                self.client = ClaudeSDKClient(ClaudeAgentOptions())

            async def helper(self):
                return 1

            async def run(self, other: ClaudeSDKClient):
                await self.client.connect()
                await other.interrupt()
                await self.helper()

        async def step():
            return 2

        async def main():
            q = asyncio.Queue()
            await q.put(await step())
            await q.get()
            client = ClaudeSDKClient()
            await client.query("hi")
            await asyncio.sleep(1)
        """
    )
    assert result.flags == []


def test_check_fails_on_the_output_of_a_port_it_could_not_prove(tmp_path: Path) -> None:
    from claude_sync.port.cli import main

    path = tmp_path / "app.py"
    path.write_text("import mylib\n\nasync def main():\n    value = await mylib.load()\n")
    assert main(["-w", str(path)], stdout=io.StringIO(), stderr=io.StringIO()) == 1
    assert "\n    value = mylib.load()\n" in path.read_text()
    err = io.StringIO()
    assert main(["--check", str(path)], stdout=io.StringIO(), stderr=err) == 1
    assert "mylib.load" in err.getvalue()


# ----------------------------------------------------------------------------- never a port that cannot run


def test_async_with_a_timeout_around_more_than_a_receive_loop_blocks_the_port() -> None:
    result = port(
        """
        import asyncio

        async def main(client):
            async with asyncio.timeout(5):
                await client.query("hi")
        """
    )
    assert [f.message.split(":")[0] for f in result.blockers] == ["blocks the port"]
    assert "`async with asyncio.timeout(…)` would become `with …`, which fails at run time" in result.blockers[0].message
    assert result.blockers[0] in result.flags


@pytest.mark.parametrize(
    "opening",
    ["asyncio.TaskGroup() as group", "anyio.create_task_group() as group", "trio.open_nursery() as group", "anyio.fail_after(1, shield=True)"],
)
def test_async_with_over_an_async_library_object_blocks_the_port(opening: str) -> None:
    result = port(f"import asyncio, anyio, trio\n\nasync def main():\n    async with {opening}:\n        pass\n")
    assert len(result.blockers) == 1


def test_a_timeout_around_one_receive_loop_becomes_its_timeout() -> None:
    assert ported(
        """
        import asyncio
        import anyio
        from claude_agent_sdk import ClaudeSDKClient

        async def main(limit):
            async with ClaudeSDKClient() as client:
                try:
                    async with asyncio.timeout(3.0):  # a comment
                        async for msg in client.receive_response():
                            if msg:
                                break
                except asyncio.TimeoutError:
                    pass
                async with anyio.move_on_after(limit):
                    async for msg in client.receive_messages():
                        print(msg)
                async with anyio.fail_after(limit):
                    async for msg in client.receive_response(merge_assistant=True):
                        print(msg)
        """
    ) == same(
        """
        from claude_sync import ClaudeSDKClient
        from claude_sync import ReceiveTimeoutError

        def main(limit):
            with ClaudeSDKClient() as client:
                try:
                    for msg in client.receive_response(timeout=3.0):
                        if msg:
                            break
                except TimeoutError:
                    pass
                try:
                    for msg in client.receive_messages(timeout=limit):
                        print(msg)
                except ReceiveTimeoutError:
                    pass
                for msg in client.receive_response(merge_assistant=True, timeout=limit):
                    print(msg)
        """
    )


def test_a_timeout_it_cannot_prove_is_not_rewritten() -> None:
    for body in (
        "async for m in client.receive_response():\n                await client.interrupt()",  # an await inside
        "async for m in client.receive_response(timeout=9):\n                pass",  # its own limit
        "async for m in unknown.receive_response():\n                pass",  # not a claude_sync client
    ):
        source = (
            "import asyncio\nfrom claude_agent_sdk import ClaudeSDKClient\n\nasync def main(unknown):\n"
            "    async with ClaudeSDKClient() as client:\n        async with asyncio.timeout(3):\n            " + body + "\n"
        )
        result = port_source(source)
        assert len(result.blockers) == 1, body


@pytest.mark.skipif(not Path(PY39).is_file(), reason="needs Python 3.9 at " + PY39)
def test_an_await_in_an_f_string_on_python_3_9_is_never_written(tmp_path: Path) -> None:
    path = tmp_path / "app.py"
    source = "async def g():\n    return 1\n\n\nasync def f():\n    return f'{await g()}!'\n"
    path.write_text(source)
    done = subprocess.run([PY39, "-m", "claude_sync.port", "-w", str(path)], env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "blocks the port: `await` inside an f-string" in done.stderr and "not ported" in done.stderr
    assert path.read_text() == source


def test_the_output_is_compiled_and_a_port_that_would_not_compile_is_a_bug_not_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    from claude_sync.port import engine

    with pytest.raises(UnparsableSource, match="x.py:2: cannot parse: no binding for nonlocal 'x' found"):
        port_source("async def f():\n    nonlocal x\n", filename="x.py")  # parses, never compiled

    def broken(plan: object) -> None:  # a rule that leaves an await outside async def
        plan.edit(0, 0, "def g():\n    await h()\n")  # type: ignore[attr-defined]

    monkeypatch.setattr(engine, "place_markers", broken)
    with pytest.raises(engine.PortBug, match="does not compile"):
        port_source("async def f():\n    await g()\n")


def test_a_timeout_around_a_query_loop_becomes_its_timeout() -> None:
    assert ported(
        """
        import asyncio
        from claude_agent_sdk import query

        async def main():
            async with asyncio.timeout(60):
                async for message in query(prompt="hi"):
                    print(message)
        """
    ) == same(
        """
        from claude_sync import query

        def main():
            for message in query(prompt="hi", timeout=60):
                print(message)
        """
    )


def test_strings_are_rewritten_only_where_they_are_module_paths() -> None:
    """Issue 40: a provider id, a requirement string and an entry point's name are flagged,
    never renamed; ``client``/``query`` map to claude_sync's modules of those names; wrapt's
    targets in both forms, ``pkgutil.resolve_name``'s ``module:attr`` and ``sys.modules`` follow."""
    known = {
        ("claude_sync.client", "ClaudeSDKClient"), ("claude_sync", "query"), ("claude_sync.query", "query"),
    }
    result = port(
        """
        PROVIDER = "claude_agent_sdk"
        _instruments = ("claude-agent-sdk >= 0.1.45",)
        importlib.import_module(name="claude_agent_sdk.query")
        mock.patch("claude_agent_sdk.client.ClaudeSDKClient.connect")
        mock.patch("claude_agent_sdk.query.InternalClient")
        wrapt.wrap_function_wrapper("claude_agent_sdk.client", "ClaudeSDKClient.connect", w)
        wrapt.wrap_function_wrapper(module="claude_agent_sdk", name="query", wrapper=w)
        pkgutil.resolve_name("claude_agent_sdk.client:ClaudeSDKClient.connect")
        sys.modules.pop("claude_agent_sdk.query", None)
        setup(entry_points={"g": ["claude_agent_sdk = pkg.mod:Plugin", "p = claude_agent_sdk.client:ClaudeSDKClient"]})
        """,
        exists=lambda m, n: (m, n) in known,
    )
    assert unmarked(result.text) == same(
        """
        PROVIDER = "claude_agent_sdk"
        _instruments = ("claude-agent-sdk >= 0.1.45",)
        importlib.import_module(name="claude_sync.query")
        mock.patch("claude_sync.client.ClaudeSDKClient.connect")
        mock.patch("claude_agent_sdk.query.InternalClient")
        wrapt.wrap_function_wrapper("claude_sync.client", "ClaudeSDKClient.connect", w)
        wrapt.wrap_function_wrapper(module="claude_sync", name="query", wrapper=w)
        pkgutil.resolve_name("claude_sync.client:ClaudeSDKClient.connect")
        sys.modules.pop("claude_sync.query", None)
        setup(entry_points={"g": ["claude_agent_sdk = pkg.mod:Plugin", "p = claude_sync.client:ClaudeSDKClient"]})
        """
    )
    messages = [f.message for f in result.flags]
    assert len(messages) == 4, messages
    assert "names the official SDK in a string that is not a module path" in messages[0]
    assert "requires the official distribution" in messages[1] and "require 'claude-sync'" in messages[1]
    assert "InternalClient" in messages[2] and "a name claude_sync lacks" in messages[2]
    assert "'claude_agent_sdk = pkg.mod:Plugin' names the official SDK" in messages[3]


def test_official_module_imports_map_to_the_modules_of_the_same_name() -> None:
    assert ported(
        """
        from claude_agent_sdk.client import ClaudeSDKClient
        from claude_agent_sdk.query import query
        import claude_agent_sdk.client
        from claude_agent_sdk.testing.session_store_conformance import run_session_store_conformance
        """
    ) == same(
        """
        from claude_sync.client import ClaudeSDKClient
        from claude_sync.query import query
        import claude_sync.client
        from claude_sync.testing import run_session_store_conformance
        """
    )


def test_docstrings_naming_the_official_sdk_are_not_flagged() -> None:
    assert port('"""An adapter for claude_agent_sdk (pip install claude-agent-sdk)."""\n').flags == []


def test_a_marker_whose_flag_was_fixed_by_hand_goes_and_one_run_drops_the_unused_import() -> None:
    """Issue 39: after ``-w``, a ``gather`` rewritten by hand is no longer named by ``--check``,
    and one more run removes its marker and the ``import asyncio`` nothing uses any more; a
    marker of a flag the ported code cannot show again (an unawaited coroutine) stays."""
    first = port(
        """
        import asyncio


        async def one(p):
            return p


        async def main():
            await asyncio.gather(one("a"), one("b"))
            one("c")
        """
    )
    assert [f.message.split(":")[0] for f in first.flags] == ["asyncio.gather(…)", "one() was not awaited"]
    fixed = first.text.replace('    asyncio.gather(one("a"), one("b"))\n', '    one("a")\n    one("b")\n')
    again = port_source(fixed)
    assert [f.message for f in again.flags] == [
        "one() was not awaited: it now runs here, to the end; to run it alongside, start a threading.Thread"
    ]
    assert "asyncio" not in again.text and again.text.count(MARKER) == 1
    assert port_source(again.text).text == again.text


def test_an_await_of_a_coroutine_another_file_of_the_run_made_synchronous_is_not_a_flag() -> None:
    """Issue 40: 60 of one library's 66 flags were awaits of its own handlers (``async def`` in
    its other modules), plain functions after the port. A call nothing proves still is flagged."""
    from claude_sync.port.engine import run_coroutines

    run = run_coroutines([
        ("handlers", "async def handle_text(t):\n    return t\n\nclass Adapter:\n    async def _agenerate(self, p):\n        return p\n"),
        ("broken", "def ("),  # its own port reports it
    ])  # fmt: skip
    source = same(
        """
        from mylib import handlers
        from mylib.handlers import handle_text
        from otherlib import Client


        async def main(adapter, other: Client):
            await handle_text("a")
            await handlers.handle_text("b")
            await adapter._agenerate("c")  # the caller's object, whose class the run ports
            await other.fetch()
        """
    )
    alone = port_source(source)
    assert [f.message.split(":")[0] for f in alone.flags] == [
        "`await handle_text(…)`",
        "`await handlers.handle_text(…)`",
        "`await other.fetch(…)`",
    ]
    together = port_source(source, run=run)
    assert [f.message.split(":")[0] for f in together.flags] == [
        "`await other.fetch(…)`",  # an object of a module the run does not port
    ]


def test_a_longer_name_that_contains_the_official_one_is_not_a_mention() -> None:
    """Seen porting real libraries: ``langchain_claude_agent_sdk.chat_models`` (a logger name),
    ``mock.patch("hindsight_claude_agent_sdk._client.Hindsight")`` (the library's own module),
    ``"hindsight-claude-agent-sdk/"`` (its user agent) and ``opentelemetry.instrumentation.claude_agent_sdk``
    name the *library*, not the official SDK: neither rewritten nor flagged. A mention on a name
    boundary still is."""
    source = """
        caplog.at_level("WARNING", logger="langchain_claude_agent_sdk.chat_models")
        mock.patch("hindsight_claude_agent_sdk._client.Hindsight")
        importlib.import_module("opentelemetry.instrumentation.claude_agent_sdk")
        AGENT = "hindsight-claude-agent-sdk/" + VERSION
        OTHER = "claude_agent_sdk_extras"
        TAGS = ["source:claude-agent-sdk", "see src/claude_agent_sdk/types.py"]
        log(f"Failed to instrument claude_agent_sdk.query: {e}")
        """
    result = port(source)
    assert unmarked(result.text) == same(source)
    flagged = [f.message.split("'")[1] for f in result.flags]
    assert flagged == [
        "source:claude-agent-sdk", "see src/claude_agent_sdk/types.py", "Failed to instrument claude_agent_sdk.query: "
    ], flagged


def test_a_private_official_module_is_flagged_with_what_to_use_instead() -> None:
    """Seen porting a record/replay library: its imports of the official SDK's transport,
    internal client and message parser (and a ``patch`` of the transport) were flagged only as
    "claude_sync has no counterpart", which says nothing about what to do."""
    result = port(
        """
        import claude_agent_sdk._internal.transport.subprocess_cli as sdk_subprocess
        from claude_agent_sdk._internal.client import InternalClient
        from claude_agent_sdk._internal.message_parser import parse_message
        from claude_agent_sdk._internal.session_store import something
        patch("claude_agent_sdk._internal.transport.subprocess_cli.SubprocessCLITransport")
        """
    )
    messages = [f.message for f in result.flags]
    assert len(messages) == 4, messages  # the message parser has a public twin (next test)
    for message in messages[:2] + messages[3:]:
        assert "pass transport=" in message and "recording_transport(options, path)" in message, message
    assert "import the public claude_sync name that does the job" in messages[2]
    assert all("no counterpart" not in m for m in messages)


def test_the_official_wire_parser_ports_to_claude_sync_parse_message() -> None:
    """Issue 40: a drift checker / replay library calls the official
    ``claude_agent_sdk._internal.message_parser.parse_message``; claude_sync had no public
    parser, so the import was a flag with nothing to call instead."""
    from claude_sync.port.cli import claude_sync_has

    result = port_source(
        same(
            """
            from claude_agent_sdk._internal.message_parser import parse_message
            import claude_agent_sdk._internal.message_parser as parser
            import claude_agent_sdk

            a = parse_message({"type": "x"})
            b = parser.parse_message({"type": "x"})
            c = claude_agent_sdk._internal.message_parser.parse_message({})
            """
        ),
        exists=claude_sync_has,
    )
    lines = result.text.splitlines()
    assert lines[0] == "from claude_sync import parse_message"
    assert lines[1] == "import claude_sync as parser"
    assert [f.message.split(":")[0] for f in result.flags] == [
        "claude_agent_sdk._internal.message_parser is in a private module of the official SDK, which claude_sync does not have"
    ]
    assert "its parse_message is claude_sync.parse_message" in result.flags[0].message


# ----------------------------------------------------------------------------- awaits, per scope
def test_an_await_is_judged_in_the_scope_python_resolves_its_name_in() -> None:
    """Issue 40: ``client`` bound to the official client in one function and to something else
    in another flagged every ``await client.…()`` of the file; the library's own objects (an
    untyped parameter, an attribute of ``self``, an import from a module of the run, what one of
    its functions returns) were flagged although the port makes their coroutines synchronous."""
    from claude_sync.port.engine import run_coroutines

    run = run_coroutines([
        ("mylib", "from contextlib import asynccontextmanager\n\n@asynccontextmanager\nasync def replay_tape(t):\n    yield t\n"),
        ("hooks", "def create_hooks():\n    return {}\n\nclass Transport:\n    async def connect(self):\n        pass\n"),
    ])  # fmt: skip
    source = same(
        """
        from claude_agent_sdk import ClaudeSDKClient
        from mylib import replay_tape
        from hooks import create_hooks
        from otherlib import Session


        async def record(prompt):
            async with ClaudeSDKClient() as client:
                await client.query(prompt)


        async def replayed(context, tape):
            async with context as client:
                await client.interrupt()
            async with replay_tape(tape) as client:
                await client.get_mcp_status()
            hook = create_hooks()["Stop"][0].hooks[0]
            await hook({}, None, {})


        class Wrapper:
            def __init__(self, inner):
                self._inner = inner

            async def connect(self):
                await self._inner.connect()


        async def other():
            client = Session()
            await client.fetch()

            async def inner():
                await client.fetch()

            await inner()
        """
    )
    result = port_source(source, run=run)
    assert [(f.original_line, f.message.split(":")[0]) for f in result.flags] == [
        (31, "`await client.fetch(…)`"),
        (34, "`await client.fetch(…)`"),  # bound in the function around it
    ]
    assert "`client` is made by `otherlib.Session(…)`, from a module this run does not port" in result.flags[0].message


def test_an_awaited_a_method_names_its_synchronous_twin_as_a_guess() -> None:
    """Issue 40: ``await tool.ainvoke(…)`` said "call a synchronous API here"; the flag names
    ``invoke``, as what such a library usually calls it (not a name the tool knows)."""
    result = port(
        """
        from langchain_core.tools import BaseTool
        from langchain_core.callbacks import AsyncCallbackManagerForLLMRun

        async def call(tool: BaseTool, model, items, run_manager: AsyncCallbackManagerForLLMRun):
            await tool.ainvoke({})
            await model.astream("x")
            await items.append(1)
            await run_manager.on_llm_new_token("t")
        """
    )
    messages = [f.message for f in result.flags]
    assert len(messages) == 3, messages  # items.append: the caller's object, no twin in its name
    assert "call `tool.invoke(…)` if it has it (`ainvoke` is named like the async twin of `invoke`)" in messages[0]
    assert "`tool` is `langchain_core.tools.BaseTool`" in messages[0]
    assert "call `model.stream(…)` here if the object has it" in messages[1]
    assert "take a `CallbackManagerForLLMRun` instead" in messages[2] and "if its library has one" in messages[2]


def test_a_method_the_run_defines_as_a_coroutine_is_not_taken_for_a_twin() -> None:
    from claude_sync.port.engine import run_coroutines

    run = run_coroutines([("adapter", "class Adapter:\n    async def ainvoke(self, p):\n        return p\n")])
    source = same(
        """
        async def main(adapter):
            return await adapter.ainvoke("x")
        """
    )
    assert len(port_source(source).flags) == 1
    assert port_source(source, run=run).flags == []


def test_a_string_that_is_python_code_importing_the_official_sdk_is_flagged_as_code_to_port() -> None:
    """Issue 40: a code template a test writes to a file (``pytester.makepyfile``), a ``python -c``
    argument and an ``exec`` text were flagged as a mere mention of the name; they are code that
    runs where this port does not reach."""
    source = same(
        '''
        import subprocess
        import sys

        TEMPLATE = """
        import pytest
        from claude_agent_sdk import ClaudeSDKClient
        """
        subprocess.run([sys.executable, "-c", "import claude_agent_sdk; print(claude_agent_sdk.__version__)"])
        exec("x = 1; from claude_code_sdk.types import TextBlock")
        PROVIDER = "claude_agent_sdk"
        '''
    )
    result = port_source(source)
    messages = [f.message for f in result.flags]
    assert len(messages) == 4
    assert all("this string is Python code that imports" in m and "port it too" in m for m in messages[:3])
    assert "imports claude_agent_sdk" in messages[0] and "imports claude_code_sdk" in messages[2]
    assert "not a module path" in messages[3]
    code = "\n".join(line for line in result.text.splitlines() if not line.lstrip().startswith(MARKER))
    assert code.count("claude_agent_sdk") == source.count("claude_agent_sdk"), "never rewritten"


def test_wait_for_around_a_call_says_the_call_now_runs_first() -> None:
    """Issue 40: 65 of a replay library's flags were ``await asyncio.wait_for(_drive(t), 20)``
    with the generic "pass the limit to the blocking call" text, which did not say that the
    ported line fails (``wait_for`` gets ``_drive``'s value) nor what to write."""
    result = port(
        """
        import asyncio

        async def _drive(t):
            return t

        async def test():
            types = await asyncio.wait_for(_drive(1), 20)
        """
    )
    [flag] = result.flags
    assert "`_drive(1)` runs to the end before wait_for is called" in flag.message
    assert "write `_drive(1)` alone" in flag.message and "receive_response(timeout=…)" in flag.message


def test_an_await_on_an_async_mock_or_a_module_loaded_by_name_is_flagged() -> None:
    """Seen porting the official SDK's own tests: ``asyncpg = pytest.importorskip("asyncpg")``
    then ``pool: asyncpg.Pool`` and ``client = AsyncMock()``: objects that stay asynchronous
    after the port. A ``MagicMock``'s calls return plain values: not flagged."""
    result = port(
        """
        import pytest
        from unittest.mock import AsyncMock, MagicMock

        asyncpg = pytest.importorskip("asyncpg")

        async def test(pool: asyncpg.Pool, redis: "FakeAsyncRedis"):
            await pool.execute("x")
            await redis.get("k")
            client = AsyncMock()
            await client.disconnect()
            transport = MagicMock()
            await transport.write("x")
        """
    )
    messages = [f.message for f in result.flags]
    assert len(messages) == 3, messages
    assert "`pool` is `asyncpg.Pool`" in messages[0]
    assert "`redis` is `FakeAsyncRedis`" in messages[1]
    assert "`client` is made by `unittest.mock.AsyncMock(…)`" in messages[2] and "make a `Mock` instead" in messages[2]


def test_a_module_of_the_run_is_matched_by_its_first_part_only() -> None:
    """A file ``util.py`` in the run does not make ``importlib.util``'s objects (nor an
    ``somelib.util`` client) the code's own."""
    from claude_sync.port.engine import run_coroutines

    run = run_coroutines([("util", "def helper():\n    return 1\n"), ("mypkg", "")])
    source = same(
        """
        from somelib.util import make_client
        from mypkg.sub import Store

        async def main():
            client = make_client()
            await client.get("k")
            store = Store()
            await store.load()
        """
    )
    assert [f.message.split(":")[0] for f in port_source(source, run=run).flags] == ["`await client.get(…)`"]


def test_a_bare_distribution_name_is_a_requirement_only_where_it_is_read_as_one() -> None:
    """Seen in a cassette library's tests: ``assert "claude-agent-sdk" in out`` (its CLI prints
    the SDK's name) was flagged as "requires the official distribution", which it does not."""
    result = port(
        """
        import importlib.metadata

        def deps():
            return ("claude-agent-sdk",)

        def check(out):
            assert "claude-agent-sdk" in out
            return importlib.metadata.version("claude-agent-sdk")
        """
    )
    kinds = ["requires" if "requires the official distribution" in f.message else "mention" for f in result.flags]
    assert kinds == ["requires", "mention", "requires"], [f.message for f in result.flags]


def test_a_method_or_class_attribute_does_not_bind_a_name_outside_its_class() -> None:
    result = port(
        """
        class Store:
            load = None

            async def fetch(self):
                pass

        async def main():
            await fetch()
            await load()
        """
    )
    assert [f.message.split(":")[0] for f in result.flags] == ["`await fetch(…)`", "`await load(…)`"]


def test_an_a_method_with_a_known_sync_twin_is_rewritten_not_flagged() -> None:
    """The a… twins the tool knows (``aclose`` -> ``close``, ``__anext__`` -> ``__next__``) are
    rewritten; only a guessed twin (``ainvoke``) is a flag, worded as a guess."""
    result = port(
        """
        from otherlib import Client

        async def f(client: Client, it, tool):
            await client.aclose()
            await it.__anext__()
            await tool.ainvoke({})
        """
    )
    assert "client.close()" in result.text and "it.__next__()" in result.text
    assert [f.message.split(":")[0] for f in result.flags] == ["`await tool.ainvoke(…)`"]
    assert "if the object has it" in result.flags[0].message


def test_an_untyped_parameter_given_an_unported_object_in_the_same_file_is_flagged() -> None:
    """An untyped parameter is the caller's object, unless a call in the file passes it an
    object of a module the run does not port."""
    result = port(
        """
        from otherlib import ClientSession

        async def fetch(session, url):
            return await session.get(url)

        class Worker:
            async def run(self, conn):
                await conn.send("x")

        async def main():
            session = ClientSession()
            await fetch(session, "u")
            await Worker().run(conn=session)
        """
    )
    assert [f.message.split(":")[0] for f in result.flags] == ["`await session.get(…)`", "`await conn.send(…)`"]
    assert "`session` is made by `otherlib.ClientSession(…)`" in result.flags[0].message
