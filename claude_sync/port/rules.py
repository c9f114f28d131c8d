"""What each asyncio / anyio / trio name (and the async helpers of ``typing``, ``contextlib``,
``unittest`` and ``pytest``) becomes in synchronous code: the data the engine applies.

A ``Rule`` either rewrites a reference (``rename`` to a qualified name, e.g. ``asyncio.sleep`` ->
``time.sleep``), unwraps a call (``asyncio.run(main())`` -> ``main()``; ``to_thread.run_sync(f,
x)`` -> ``f(x)``), removes it (a ``pytest.mark.anyio`` decorator), or flags it with the sync
equivalent for a human to write (``asyncio.gather`` -> ``AgentPool.map`` / threads). A rename
that is only right for some call shapes says which (``max_positional``, ``keywords``); any other
shape is flagged with the same advice rather than rewritten.

Every name under an ``ASYNC_LIBRARIES`` root that has no rule of its own is flagged
(``generic_advice``): nothing from those libraries survives the port unremarked.

Pure data and lookups: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional

__all__ = [
    "ASYNC_LIBRARIES",
    "ATTRIBUTE_RENAMES",
    "BUILTIN_RENAMES",
    "GENERATOR_TARGETS",
    "MARKER",
    "METHOD_RENAMES",
    "OFFICIAL_DISTRIBUTIONS",
    "OFFICIAL_MODULES",
    "OFFICIAL_PACKAGES",
    "OFFICIAL_PUBLIC_MODULES",
    "RULES",
    "Rule",
    "SUBSCRIPT_UNWRAP",
    "THIRD_PARTY_ASYNC",
    "async_library",
    "generic_advice",
    "rule_for",
]

MARKER = "# claude_sync.port:"
"""Comment prefix the tool writes above a line that needs a hand port it cannot detect again
later (a coroutine called without ``await``); ``--check`` fails while one remains."""

OFFICIAL_PACKAGES = ("claude_agent_sdk", "claude_code_sdk")
"""The official SDK's package names (today's and the older one)."""

OFFICIAL_DISTRIBUTIONS = ("claude-agent-sdk", "claude-code-sdk")
"""The official SDK's distribution names (what ``pip install`` and requirement strings say)."""

OFFICIAL_PUBLIC_MODULES: Dict[str, str] = {
    "": "claude_sync",
    "types": "claude_sync.types",
    "testing": "claude_sync.testing",
    "testing.session_store_conformance": "claude_sync.testing",
    "client": "claude_sync.client",
    "query": "claude_sync.query",
}
"""The official SDK's public modules (after the package name) -> the claude_sync module holding
the same names: the same module path where claude_sync has one (``client``, ``query``, ``types``,
``testing``), so imports and string paths (``mock.patch``, wrapt) map alike."""

OFFICIAL_MODULES: Dict[str, str] = {
    **OFFICIAL_PUBLIC_MODULES,
    "_errors": "claude_sync",
    "_internal.message_parser": "claude_sync",
}
"""Official module (after the package name) -> claude_sync module holding the same names, for
imports (the exceptions of the private ``_errors`` are public names of ``claude_sync``; the
wire parser ``_internal.message_parser.parse_message``, which record/replay libraries call, is
``claude_sync.parse_message``). Any other module of the official package is private to it and
is flagged."""

ASYNC_LIBRARIES: FrozenSet[str] = frozenset(
    {"asyncio", "anyio", "trio", "sniffio", "pytest_asyncio", "async_timeout", "aiofiles"}
)
"""Roots whose every use must be rewritten or flagged."""

THIRD_PARTY_ASYNC: Dict[str, str] = {
    "asyncpg": "a synchronous driver (psycopg; claude_sync's Postgres session store uses it)",
    "redis.asyncio": "the synchronous client redis.Redis",
    "aioredis": "the synchronous client redis.Redis",
    "aiohttp": "requests, or httpx.Client",
    "httpx.AsyncClient": "httpx.Client",
    "aiosqlite": "sqlite3",
    "motor": "pymongo",
    "aioboto3": "boto3",
    "aiobotocore": "botocore",
    "websockets.asyncio": "websockets.sync",
    "openai.AsyncOpenAI": "openai.OpenAI",
    "anthropic.AsyncAnthropic": "anthropic.Anthropic",
}
"""Async APIs of other libraries -> their synchronous counterpart. Their calls return
coroutines, which nothing awaits once ``await`` is gone: every use is flagged."""

THREADS = "a threading.Thread (or concurrent.futures.ThreadPoolExecutor().submit)"
MANY_RUNS = (
    "run the calls on threads: AgentPool(options).map(prompts), run() on a "
    "ThreadPoolExecutor, or one threading.Thread per call"
)
TIMEOUT = (
    "pass the limit to the blocking call itself: receive_response(timeout=…) / "
    "query(…, timeout=…) (raise ReceiveTimeoutError), Event.wait(t), Queue.get(timeout=t), "
    "Future.result(timeout=t)"
)
NO_LOOP = "there is no event loop in synchronous code: call the function directly"
NO_CANCEL = (
    "nothing is cancelled in synchronous code: a consumer thread ends when its iterator "
    "ends (client.close() or interrupt() end it)"
)


@dataclass(frozen=True)
class Rule:
    """How one qualified name is ported (see the module docstring)."""

    action: str
    """``rename`` | ``unwrap_run`` | ``unwrap_thread`` | ``remove_mark`` | ``flag``."""
    advice: str
    """The sync equivalent, as shown to the user."""
    target: Optional[str] = None
    """``rename``: the qualified name written instead (``builtins.X`` is the bare name)."""
    max_positional: Optional[int] = None
    """``rename`` of a call: more positional arguments than this are flagged, not rewritten."""
    keywords: Optional[FrozenSet[str]] = None
    """``rename`` of a call: keywords allowed (None: any); ``unwrap_thread``: keywords dropped."""


def rename(target: str, advice: str = "", *, max_positional: Optional[int] = None, keywords: Optional[FrozenSet[str]] = None) -> Rule:
    return Rule("rename", advice or target.replace("builtins.", ""), target, max_positional, keywords)


def flag(advice: str) -> Rule:
    return Rule("flag", advice)


RUN = Rule("unwrap_run", "call the function directly")
MARK = Rule("remove_mark", "a synchronous test needs no async marker")

RULES: Dict[str, Rule] = {
    # -- entry points
    "asyncio.run": RUN,
    "anyio.run": RUN,
    "trio.run": RUN,
    # -- sleeping and clocks
    "asyncio.sleep": rename("time.sleep", max_positional=1, keywords=frozenset({"delay"})),
    "anyio.sleep": rename("time.sleep", max_positional=1, keywords=frozenset({"delay"})),
    "trio.sleep": rename("time.sleep", max_positional=1, keywords=frozenset({"seconds"})),
    "anyio.sleep_forever": flag("block on something that ends: threading.Event().wait() or a thread's join()"),
    "anyio.sleep_until": flag("time.sleep(deadline - time.monotonic())"),
    "trio.sleep_forever": flag("block on something that ends: threading.Event().wait() or a thread's join()"),
    "trio.sleep_until": flag("time.sleep(deadline - time.monotonic())"),
    "anyio.current_time": rename("time.monotonic"),
    "trio.current_time": rename("time.monotonic"),
    # -- timeouts
    "asyncio.wait_for": flag(TIMEOUT),
    "asyncio.timeout": flag(TIMEOUT),
    "asyncio.timeout_at": flag(TIMEOUT),
    "anyio.fail_after": flag(TIMEOUT),
    "anyio.move_on_after": flag(TIMEOUT + "; catch the TimeoutError to move on"),
    "anyio.CancelScope": flag(TIMEOUT),
    "trio.fail_after": flag(TIMEOUT),
    "trio.fail_at": flag(TIMEOUT),
    "trio.move_on_after": flag(TIMEOUT + "; catch the TimeoutError to move on"),
    "trio.move_on_at": flag(TIMEOUT + "; catch the TimeoutError to move on"),
    "trio.CancelScope": flag(TIMEOUT),
    "trio.TooSlowError": flag("the TimeoutError (ReceiveTimeoutError) of the call's timeout="),
    "async_timeout.timeout": flag(TIMEOUT),
    "asyncio.TimeoutError": rename("builtins.TimeoutError", "TimeoutError (claude_sync's ReceiveTimeoutError is one)"),
    # -- running things at once
    "asyncio.gather": flag(MANY_RUNS),
    "asyncio.wait": flag("concurrent.futures.wait(futures) on a ThreadPoolExecutor's futures"),
    "asyncio.as_completed": flag("concurrent.futures.as_completed(futures) (AgentPool.submit returns such futures)"),
    "asyncio.create_task": flag(THREADS),
    "asyncio.ensure_future": flag(THREADS),
    "asyncio.TaskGroup": flag(MANY_RUNS),
    "asyncio.Task": flag(THREADS),
    "asyncio.Future": flag("concurrent.futures.Future"),
    "asyncio.shield": flag(NO_CANCEL),
    "asyncio.current_task": flag("threading.current_thread()"),
    "asyncio.all_tasks": flag("threading.enumerate()"),
    "anyio.create_task_group": flag(MANY_RUNS),
    "trio.open_nursery": flag(MANY_RUNS),
    "asyncio.to_thread": Rule("unwrap_thread", "call the function here: synchronous code already blocks", keywords=None),
    "anyio.to_thread.run_sync": Rule(
        "unwrap_thread",
        "call the function here: synchronous code already blocks",
        keywords=frozenset({"cancellable", "abandon_on_cancel", "limiter"}),
    ),
    "trio.to_thread.run_sync": Rule(
        "unwrap_thread",
        "call the function here: synchronous code already blocks",
        keywords=frozenset({"cancellable", "abandon_on_cancel", "limiter"}),
    ),
    "anyio.from_thread.run": flag("call the function directly (there is no event loop to hand it to)"),
    "anyio.from_thread.run_sync": flag("call the function directly (there is no event loop to hand it to)"),
    # -- cancellation
    "asyncio.CancelledError": flag(NO_CANCEL),
    "anyio.get_cancelled_exc_class": flag(NO_CANCEL),
    "trio.Cancelled": flag(NO_CANCEL),
    # -- the loop
    "asyncio.get_event_loop": flag(NO_LOOP + " (loop.run_until_complete(x) -> x)"),
    "asyncio.get_running_loop": flag(NO_LOOP + " (loop.run_in_executor(None, f, *a) -> f(*a))"),
    "asyncio.new_event_loop": flag(NO_LOOP + " (loop.run_until_complete(x) -> x)"),
    "asyncio.set_event_loop": flag(NO_LOOP),
    "asyncio.Runner": flag(NO_LOOP + " (runner.run(x) -> x)"),
    "asyncio.run_coroutine_threadsafe": flag(NO_LOOP),
    "asyncio.iscoroutine": flag("after the port nothing is a coroutine: drop the check"),
    "asyncio.iscoroutinefunction": flag("after the port nothing is a coroutine function: drop the check"),
    # -- synchronisation primitives
    "asyncio.Event": rename("threading.Event", max_positional=0, keywords=frozenset()),
    "anyio.Event": rename("threading.Event", max_positional=0, keywords=frozenset()),
    "trio.Event": rename("threading.Event", max_positional=0, keywords=frozenset()),
    "asyncio.Lock": rename("threading.Lock", max_positional=0, keywords=frozenset()),
    "anyio.Lock": rename("threading.Lock", max_positional=0, keywords=frozenset()),
    "trio.Lock": rename("threading.Lock", max_positional=0, keywords=frozenset()),
    "asyncio.Condition": rename("threading.Condition", max_positional=1, keywords=frozenset({"lock"})),
    "anyio.Condition": rename("threading.Condition", max_positional=1, keywords=frozenset({"lock"})),
    "asyncio.Semaphore": rename("threading.Semaphore", max_positional=1, keywords=frozenset({"value"})),
    "asyncio.BoundedSemaphore": rename("threading.BoundedSemaphore", max_positional=1, keywords=frozenset({"value"})),
    "anyio.Semaphore": rename("threading.Semaphore", max_positional=1, keywords=frozenset()),
    "trio.Semaphore": rename("threading.Semaphore", max_positional=1, keywords=frozenset()),
    "asyncio.Barrier": rename("threading.Barrier", max_positional=1, keywords=frozenset({"parties"})),
    "anyio.CapacityLimiter": flag("threading.BoundedSemaphore(n) (acquire/release; no token statistics)"),
    "trio.CapacityLimiter": flag("threading.BoundedSemaphore(n) (acquire/release; no token statistics)"),
    "asyncio.Queue": rename("queue.Queue", max_positional=1, keywords=frozenset({"maxsize"})),
    "asyncio.LifoQueue": rename("queue.LifoQueue", max_positional=1, keywords=frozenset({"maxsize"})),
    "asyncio.PriorityQueue": rename("queue.PriorityQueue", max_positional=1, keywords=frozenset({"maxsize"})),
    "asyncio.QueueEmpty": rename("queue.Empty"),
    "asyncio.QueueFull": rename("queue.Full"),
    "anyio.create_memory_object_stream": flag("a queue.Queue shared by the two threads"),
    "trio.open_memory_channel": flag("a queue.Queue shared by the two threads"),
    # -- files and processes
    "anyio.open_file": rename("builtins.open"),
    "trio.open_file": rename("builtins.open"),
    "aiofiles.open": rename("builtins.open"),
    "anyio.Path": rename("pathlib.Path"),
    "trio.Path": rename("pathlib.Path"),
    "anyio.run_process": flag("subprocess.run(args, capture_output=True, check=True)"),
    "anyio.open_process": flag("subprocess.Popen"),
    "trio.run_process": flag("subprocess.run(args, capture_output=True, check=True)"),
    "asyncio.create_subprocess_exec": flag("subprocess.Popen"),
    "asyncio.create_subprocess_shell": flag("subprocess.Popen(…, shell=True)"),
    "asyncio.subprocess": flag("subprocess (subprocess.PIPE, subprocess.Popen)"),
    "asyncio.open_connection": flag("socket.create_connection"),
    # -- pytest and helpers
    "pytest.mark.anyio": MARK,
    "pytest.mark.asyncio": MARK,
    "pytest.mark.trio": MARK,
    "pytest_asyncio.fixture": rename("pytest.fixture"),
    # -- typing, contextlib, unittest, inspect: the async spellings of sync things
    "typing.AsyncIterator": rename("typing.Iterator"),
    "typing.AsyncIterable": rename("typing.Iterable"),
    "typing.AsyncGenerator": rename("typing.Generator", "typing.Generator[Y, S, None]"),
    "typing.AsyncContextManager": rename("typing.ContextManager"),
    "typing.Awaitable": rename("typing.Awaitable", "the awaited type itself"),
    "typing.Coroutine": rename("typing.Coroutine", "the coroutine's return type itself"),
    "collections.abc.AsyncIterator": rename("collections.abc.Iterator"),
    "collections.abc.AsyncIterable": rename("collections.abc.Iterable"),
    "collections.abc.AsyncGenerator": rename("collections.abc.Generator", "collections.abc.Generator[Y, S, None]"),
    "collections.abc.Awaitable": rename("collections.abc.Awaitable", "the awaited type itself"),
    "collections.abc.Coroutine": rename("collections.abc.Coroutine", "the coroutine's return type itself"),
    "contextlib.asynccontextmanager": rename("contextlib.contextmanager"),
    "contextlib.AsyncExitStack": rename("contextlib.ExitStack"),
    "contextlib.aclosing": rename("contextlib.closing"),
    "contextlib.AbstractAsyncContextManager": rename("contextlib.AbstractContextManager"),
    "unittest.IsolatedAsyncioTestCase": rename("unittest.TestCase"),
    "unittest.mock.AsyncMock": rename("unittest.mock.MagicMock"),
    "inspect.iscoroutinefunction": flag("after the port nothing is a coroutine function: drop the check"),
    "inspect.iscoroutine": flag("after the port nothing is a coroutine: drop the check"),
    "inspect.isawaitable": flag("after the port nothing is awaitable: drop the check"),
    "inspect.isasyncgenfunction": flag("after the port async generators are plain generators: inspect.isgeneratorfunction"),
    "inspect.isasyncgen": flag("after the port async generators are plain generators: inspect.isgenerator"),
}

SUBSCRIPT_UNWRAP: Dict[str, int] = {
    "typing.Awaitable": 0,
    "typing.Coroutine": 2,
    "collections.abc.Awaitable": 0,
    "collections.abc.Coroutine": 2,
}
"""Annotations replaced by one of their type arguments (``Awaitable[T]`` -> ``T``,
``Coroutine[A, B, T]`` -> ``T``): qualified name -> index of the argument kept."""

GENERATOR_TARGETS = frozenset({"typing.Generator", "collections.abc.Generator"})
"""Renames whose subscript needs a third argument (``AsyncGenerator[Y, S]`` -> ``Generator[Y,
S, None]``)."""

BUILTIN_RENAMES: Dict[str, str] = {
    "StopAsyncIteration": "StopIteration",
    "anext": "next",
    "aiter": "iter",
}
"""Builtins with a sync twin, renamed where the module does not bind the name itself."""

ATTRIBUTE_RENAMES: Dict[str, str] = {
    "assert_awaited": "assert_called",
    "assert_awaited_once": "assert_called_once",
    "assert_awaited_with": "assert_called_with",
    "assert_awaited_once_with": "assert_called_once_with",
    "assert_any_await": "assert_any_call",
    "assert_has_awaits": "assert_has_calls",
    "assert_not_awaited": "assert_not_called",
    "await_count": "call_count",
    "await_args": "call_args",
    "await_args_list": "call_args_list",
    "aclose": "close",
    "asend": "send",
    "athrow": "throw",
    "enter_async_context": "enter_context",
    "push_async_callback": "callback",
    "push_async_exit": "push",
    "addAsyncCleanup": "addCleanup",
    "__aenter__": "__enter__",
    "__aexit__": "__exit__",
    "__aiter__": "__iter__",
    "__anext__": "__next__",
}
"""``obj.<name>`` spellings that exist only on async objects (AsyncMock, async generators,
AsyncExitStack, async context managers/iterators), renamed to their sync twins."""

METHOD_RENAMES: Dict[str, str] = {
    "__aenter__": "__enter__",
    "__aexit__": "__exit__",
    "__aiter__": "__iter__",
    "__anext__": "__next__",
    "asyncSetUp": "setUp",
    "asyncTearDown": "tearDown",
}
"""Method definitions renamed to what sync protocols call (unless the class already defines
the sync name, which is flagged)."""


def async_library(qualified: str) -> Optional[str]:
    """The async library (an ``ASYNC_LIBRARIES`` root or a ``THIRD_PARTY_ASYNC`` prefix) that
    ``qualified`` belongs to, else None."""
    root = qualified.split(".")[0]
    if root in ASYNC_LIBRARIES:
        return root
    for prefix in THIRD_PARTY_ASYNC:
        if qualified == prefix or qualified.startswith(prefix + "."):
            return prefix
    return None


def rule_for(qualified: str) -> Optional[Rule]:
    """The rule for ``qualified``, else None (see ``generic_advice`` for async roots)."""
    return RULES.get(qualified)


def generic_advice(qualified: str) -> str:
    """The flag text for a name of an async library that has no rule of its own."""
    library = async_library(qualified)
    if library in THIRD_PARTY_ASYNC:
        return (
            f"{qualified} is async ({library}): its calls return coroutines that nothing awaits "
            f"after the port; use {THIRD_PARTY_ASYNC[library]}"
        )
    return (
        f"{qualified} has no automatic synchronous equivalent: write the sync version by hand "
        "(threads for concurrency, time.sleep, the timeout= of the blocking call)"
    )
