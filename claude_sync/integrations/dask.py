"""Agents on a Dask distributed cluster, each worker keeping its own warm ``AgentPool``.

::

    from distributed import Client
    from claude_sync.integrations.dask import AgentPoolPlugin, run_on_worker, submit_runs

    client = Client(cluster)
    install(client, options=opts, max_workers=4, warm=2)      # once per cluster
    futures = submit_runs(client, prompts)                     # distributed futures
    results = client.gather(futures)                           # [RunResult, ...]

``AgentPoolPlugin`` is a ``distributed.WorkerPlugin``: on every worker (and every worker
that joins later) ``setup`` starts an ``AgentPool``; ``teardown`` (worker closing) closes
it, reaping every CLI. Tasks call ``run_on_worker``, which submits to that pool and waits,
so a CLI reset after one task serves the next task on that worker, and ``warm`` CLIs are
ready before tasks arrive.

Options cross to the workers by pickle: options holding callables (``can_use_tool``,
``hooks``, ``stderr``, in-process MCP servers) are refused with a ``TypeError`` naming the
field. Build those inside the worker instead: pass ``options_factory``, a module-level
function (importable on the workers) that returns the options.

A conversation of several turns that must survive a lost worker runs as one task of
``run_conversation_on_worker``: its turns are mirrored to a shared ``session_store`` (e.g.
``PostgresSessionStore``) under a session id chosen by the caller, so when Dask reruns the
task on another worker, the turns already in the store are not run again: the conversation
resumes from the store (``resume=``) and only the missing turns are sent.

Needs ``distributed``: the ``dask`` extra (``pip install -e '.[dask]'`` in a checkout, or
``'claude_sync-<version>-py3-none-any.whl[dask]'``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from distributed import WorkerPlugin, get_worker

from .._agents.pool import AgentPool
from .._agents.run import RunResult, check_picklable_options
from .._options.options import ClaudeAgentOptions
from .._sessions.store_functions import get_session_messages_from_store
from .._sessions.types import SessionMessage, SessionStore
from .._structured.class_schema import json_schema_of

__all__ = ["AgentPoolPlugin", "install", "run_on_worker", "run_conversation_on_worker", "submit_runs", "pool_stats"]

PLUGIN_NAME = "claude_sync-agent-pool"


class AgentPoolPlugin(WorkerPlugin):  # type: ignore[misc]  # distributed ships no type hints here
    """Keeps one ``AgentPool`` per worker process. Raises ``TypeError`` at construction for
    options that cannot be pickled to the workers, ``ValueError`` for bad pool sizes.

    Attributes:
        name: ``"claude_sync-agent-pool"``: the name the plugin is registered under, and how
            ``run_on_worker`` finds the worker's pool.
        options: The options every worker's pool runs with (None with ``options_factory``).
        options_factory: A module-level function each worker calls to build its options (for options
            holding callables).
        pool_kwargs: The ``AgentPool`` arguments (``max_workers``, ``warm``, ``reuse``,
            ``max_runs_per_cli``).
        pool: This worker's pool once ``setup`` ran; None before, after ``teardown``, and in a
            pickled copy.
    """

    name = PLUGIN_NAME

    def __init__(
        self,
        options: Optional[ClaudeAgentOptions] = None,
        *,
        options_factory: Optional[Callable[[], ClaudeAgentOptions]] = None,
        max_workers: int = 4,
        warm: int = 0,
        reuse: bool = True,
        max_runs_per_cli: int = 100,
    ) -> None:
        if options is not None and options_factory is not None:
            raise ValueError("pass options or options_factory, not both")
        check_picklable_options(options)
        AgentPool._check_sizes(max_workers, warm, max_runs_per_cli)
        self.options = options
        self.options_factory = options_factory
        self.pool_kwargs: Dict[str, Any] = dict(
            max_workers=max_workers, warm=warm, reuse=reuse, max_runs_per_cli=max_runs_per_cli
        )
        self.pool: Optional[AgentPool] = None

    def setup(self, worker: Any) -> None:
        """Worker event loop: start this worker's pool (threads only; returns at once)."""
        options = self.options_factory() if self.options_factory is not None else self.options
        self.pool = AgentPool(options, **self.pool_kwargs)

    def teardown(self, worker: Any) -> None:
        """Worker closing: close the pool (bounded; every CLI reaped)."""
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()

    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        state["pool"] = None  # a pool never travels; each worker starts its own
        return state


def install(client: Any, **plugin_kwargs: Any) -> AgentPoolPlugin:
    """Register an ``AgentPoolPlugin`` (``plugin_kwargs`` as its constructor's) on every
    worker of ``client``'s cluster; returns the plugin."""
    plugin = AgentPoolPlugin(**plugin_kwargs)
    register = getattr(client, "register_plugin", None) or client.register_worker_plugin
    register(plugin, name=PLUGIN_NAME)
    return plugin


def _worker_pool(worker: Any = None) -> AgentPool:
    plugin = (worker or get_worker()).plugins.get(PLUGIN_NAME)
    pool = getattr(plugin, "pool", None)
    if pool is None:
        raise RuntimeError(
            "this Dask worker has no claude_sync AgentPool: call "
            "claude_sync.integrations.dask.install(client, ...) first"
        )
    return pool  # type: ignore[no-any-return]


def run_on_worker(
    prompt: str,
    *,
    options: Optional[ClaudeAgentOptions] = None,
    timeout: Optional[float] = None,
    output_format: Any = None,
) -> RunResult[Any]:
    """Task body: run ``prompt`` on this worker's pool and wait (a Dask worker thread).

    ``options`` None uses the plugin's; ``output_format`` as for ``AgentPool.submit`` (a class
    defined in ``__main__`` or a notebook travels by value: Dask pickles with cloudpickle).
    Raises what ``run`` raises, and ``RuntimeError`` when the plugin is not installed.
    """
    future = _worker_pool().submit(prompt, options=options, timeout=timeout, output_format=output_format)
    return future.result()


def submit_runs(
    client: Any,
    prompts: Iterable[str],
    *,
    options: Optional[ClaudeAgentOptions] = None,
    timeout: Optional[float] = None,
    output_format: Any = None,
    **map_kwargs: Any,
) -> List[Any]:
    """``client.map(run_on_worker, prompts, …)`` with ``pure=False`` (two equal prompts are
    two runs). ``output_format``: a class (each result's ``output`` is an instance) or a
    schema dict. Raises ``TypeError`` for options that cannot be pickled, or an
    ``output_format`` class without a JSON form (checked here, before anything travels)."""
    check_picklable_options(options)
    if isinstance(output_format, type):
        json_schema_of(output_format)
    map_kwargs.setdefault("pure", False)
    return client.map(  # type: ignore[no-any-return]
        run_on_worker, list(prompts), options=options, timeout=timeout, output_format=output_format, **map_kwargs
    )


def pool_stats(dask_worker: Any) -> Dict[str, int]:
    """This worker's ``AgentPool.stats()``: ``client.run(pool_stats)`` (Dask passes the
    worker as ``dask_worker``) returns them per worker address."""
    return _worker_pool(dask_worker).stats()


def run_conversation_on_worker(
    prompts: Sequence[str],
    *,
    session_id: str,
    store_factory: Callable[[], SessionStore],
    options: Optional[ClaudeAgentOptions] = None,
    timeout: Optional[float] = None,
) -> List[str]:
    """Task body: ``prompts`` as the turns of one conversation, resumable on another worker.

    ``session_id`` (a UUID the caller picks, e.g. ``uuid5`` of a job id) names the session in
    the store ``store_factory()`` returns (a module-level function or ``functools.partial``,
    e.g. ``partial(PostgresSessionStore, conninfo)``: built on the worker, closed at the end).
    Turns whose prompt and answer are already in the store (an earlier attempt on a worker
    that died) are not run again; the rest run on this worker's pool, each a fresh CLI
    resumed from the store. Returns one answer text per prompt. A turn cut off mid-way on a
    dead worker is sent again (a batched mirror stores a turn when it ends). Raises what
    ``run`` raises, ``SessionStoreError`` when the store fails, ``RuntimeError`` without the
    plugin.
    """
    pool = _worker_pool()
    base = options if options is not None else pool.options
    base = base if base is not None else ClaudeAgentOptions()
    store = store_factory()
    try:
        directory = None if base.cwd is None else str(base.cwd)
        stored = get_session_messages_from_store(store, session_id, directory)
        answers = answered_turns(stored, prompts)
        for prompt in prompts[len(answers):]:
            where = {"resume": session_id} if stored or answers else {"session_id": session_id}
            turn = replace(base, session_store=store, **where)  # type: ignore[arg-type]
            answers.append(pool.submit(prompt, options=turn, timeout=timeout).result().text)
    finally:
        close = getattr(store, "close", None)
        if callable(close):
            close()
    return answers


def answered_turns(messages: List[SessionMessage], prompts: Sequence[str]) -> List[str]:
    """The answers of the leading ``prompts`` that ``messages`` (a stored session) holds with
    an answer: for each prompt in order, the text of the last assistant message after it."""
    answers: List[str] = []
    index = 0
    for prompt in prompts:
        while index < len(messages) and not _is_prompt(messages[index], prompt):
            index += 1
        if index == len(messages):
            break
        index += 1
        answer = None
        while index < len(messages) and not (messages[index].type == "user" and _prompt_text(messages[index]) is not None):
            text = _text_of(_content(messages[index])) if messages[index].type == "assistant" else ""
            answer = text or answer
            index += 1
        if answer is None:
            break
        answers.append(answer)
    return answers


def _content(message: SessionMessage) -> Any:
    return message.message.get("content") if isinstance(message.message, dict) else None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _prompt_text(message: SessionMessage) -> Optional[str]:
    """The text of a user prompt (None for a tool result or anything else)."""
    content = _content(message)
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        return "".join(str(b.get("text", "")) for b in content)
    return None


def _is_prompt(message: SessionMessage, prompt: str) -> bool:
    return message.type == "user" and _prompt_text(message) == prompt
