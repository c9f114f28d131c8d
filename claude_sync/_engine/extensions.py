"""What rides along one live connection without being the connection: the session store's
mirror, the trace context, the wire log, the host-death watch, the CLI-version check. Each is a
``ConnectionExtension``; the connection calls its hooks at fixed points and knows nothing
else about it. Which extensions a connection gets is the wiring's choice
(``claude_sync._wiring.connection_extensions``), never the engine's.

=============  =======================  ===============================================
hook           thread                   when
=============  =======================  ===============================================
``prepare``    the connecting thread    before the spawn plan: may re-plan the options
``transport``  the connecting thread    the plan is made, before a spawn: may supply
                                        the transport to connect instead
``started``    the connecting thread    the transport is up, before the reader starts
``handshake_`` the connecting thread    after ``started``: may supply the answer to
``answer``                              ``initialize`` (the CLI had it already): then
                                        none is written
``handshaken`` the connecting thread    the ``initialize`` answer used, checked
``tap``        the reader thread        wraps the stdout chunks it reads (once)
``sent``       any writing thread       bytes about to be written to the CLI
``connected``  the connecting thread    ``initialize`` was answered (may send requests)
``on_frame``   the reader thread        a ``transcript_mirror`` frame arrived
``on_result``  the reader thread        a result arrived, before it is queued
``ended``      the reader thread        end of stream (``closing``: the connection ends it)
``close``      the closing thread       after the reader ended (bounded by ``timeout``)
=============  =======================  ===============================================

Hooks on the reader thread must not block for long and never run user code. Every hook has
a default that does nothing; ``Extensions`` calls a hook only on the extensions that define
it, so the per-write and per-chunk paths cost nothing for the others. Pure: no threads here.
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Tuple,
)

if TYPE_CHECKING:  # pragma: no cover
    from .._options.command import OptionsPlan, SpawnPlan
    from .._options.options import ClaudeAgentOptions
    from .._wire.messages import ResultMessage
    from .._wire.protocol import TranscriptMirrorReceived
    from .transport import Transport

__all__ = ["ConnectionExtension", "Extensions", "ExtensionsFn", "RequestFn"]

RequestFn = Callable[[str, Dict[str, Any]], Dict[str, Any]]
"""The connection's control request: ``request(subtype, payload) -> answer``."""

ExtensionsFn = Callable[[Any], Iterable["ConnectionExtension"]]
"""Makes a connection's extensions, in order, given its ``Session`` (the connecting thread,
when ``connect`` starts; the wiring's ``connection_extensions``)."""


class ConnectionExtension:
    """One piece that plugs into a connection (see the module table for threads and times)."""

    def prepare(
        self, options: ClaudeAgentOptions, plan: OptionsPlan, environ: Mapping[str, str]
    ) -> Tuple[ClaudeAgentOptions, OptionsPlan]:
        """The options to spawn with and their plan (``interpret_options``): ``(options,
        plan)`` unchanged, or re-planned (a session store's resume repoints them; the trace
        context is added). May raise: the connect fails with that error."""
        return options, plan

    def transport(self, options: ClaudeAgentOptions, plan: SpawnPlan) -> Optional[Transport]:
        """A not-yet-connected transport that carries this connection instead of spawning
        ``plan`` (the engine calls its ``connect``), or None: spawn as usual. Asked only when
        the engine would spawn the CLI it found itself (no custom transport, no testing
        stand-in's route), in order; the first answer that is not None wins. May raise: the
        connect fails with that error."""
        return None

    def started(self, transport: Transport) -> None:
        """The transport is connected; the reader has not started yet."""

    def handshake_answer(self) -> Optional[Dict[str, Any]]:
        """The answer to ``initialize`` the connected transport's CLI already gave (it was
        initialized before with these very fields), or None: send ``initialize`` as usual.
        With an answer the connection writes no ``initialize`` and uses it (checked by
        ``check_initialize_answer`` as a fresh one); the first answer that is not None wins.
        Must not raise."""
        return None

    def handshaken(self, answer: Dict[str, Any], reused: bool) -> None:
        """The ``initialize`` answer this connection uses, checked (``reused``: it came from
        ``handshake_answer``, no ``initialize`` was written)."""

    def tap(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        """The stdout chunks as the reader will read them (return ``chunks`` or a wrapper)."""
        return chunks

    def sent(self, data: bytes) -> None:
        """``data`` (whole frames) is about to be written to the CLI."""

    def connected(self, request: RequestFn) -> None:
        """The handshake is done; ``request`` sends a control request (raises as it does)."""

    def on_frame(self, frame: TranscriptMirrorReceived) -> None:
        """A ``transcript_mirror`` frame (the CLI's transcript lines, for a session store)."""

    def on_result(self, result: ResultMessage) -> None:
        """A turn's result, before the consumer can see it."""

    def ended(self, transport: Transport, closing: bool) -> None:
        """The CLI's stdout ended: on its own (``closing`` False; the connection waited for
        the exit status first), or because the connection is closing."""

    def close(self, timeout: float) -> None:
        """The connection is closing and its reader has ended; release what this holds."""


def _defines(extension: ConnectionExtension, hook: str) -> bool:
    return getattr(type(extension), hook) is not getattr(ConnectionExtension, hook)


class Extensions:
    """The extensions of one connection, in order; each hook goes to those that define it."""

    __slots__ = ("items", "senders", "_open")

    def __init__(self, items: Iterable[ConnectionExtension] = ()) -> None:
        self.items: List[ConnectionExtension] = list(items)
        self.senders = tuple(e.sent for e in self.items if _defines(e, "sent"))
        """Bound ``sent`` hooks, read on every write (an empty tuple for most connections)."""
        self._open = list(self.items)  # not closed yet, in order (close pops from the end)

    def prepare(
        self, options: ClaudeAgentOptions, plan: OptionsPlan, environ: Mapping[str, str]
    ) -> Tuple[ClaudeAgentOptions, OptionsPlan]:
        """Each ``prepare`` in order, each given what the one before returned."""
        for extension in self.items:
            if _defines(extension, "prepare"):
                options, plan = extension.prepare(options, plan, environ)
        return options, plan

    def transport(self, options: ClaudeAgentOptions, plan: SpawnPlan) -> Optional[Transport]:
        """The first transport an extension supplies (``ConnectionExtension.transport``), or None."""
        for extension in self.items:
            if _defines(extension, "transport"):
                supplied = extension.transport(options, plan)
                if supplied is not None:
                    return supplied
        return None

    def started(self, transport: Transport) -> None:
        for extension in self.items:
            extension.started(transport)

    def tap(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        for extension in self.items:
            if _defines(extension, "tap"):
                chunks = extension.tap(chunks)
        return chunks

    def handshake_answer(self) -> Optional[Dict[str, Any]]:
        """The first answer an extension supplies (``ConnectionExtension.handshake_answer``), or
        None; one that is not a dict is ignored (fail closed: ``initialize`` is sent)."""
        for extension in self.items:
            if _defines(extension, "handshake_answer"):
                answer = extension.handshake_answer()
                if isinstance(answer, dict):
                    return answer
        return None

    def handshaken(self, answer: Dict[str, Any], reused: bool) -> None:
        for extension in self.items:
            if _defines(extension, "handshaken"):
                extension.handshaken(answer, reused)

    def connected(self, request: RequestFn) -> None:
        for extension in self.items:
            extension.connected(request)

    def on_frame(self, frame: TranscriptMirrorReceived) -> None:
        for extension in self.items:
            extension.on_frame(frame)

    def on_result(self, result: ResultMessage) -> None:
        for extension in self.items:
            extension.on_result(result)

    def ended(self, transport: Transport, closing: bool) -> None:
        for extension in self.items:
            extension.ended(transport, closing)

    def close(self, timeout: float) -> None:
        """Close each, last first, once: a second call closes only those a first one did not
        reach (cut short by a ``KeyboardInterrupt``, the one it interrupted included). Every
        one is closed even when another raises (the first error is raised at the end)."""
        first: List[BaseException] = []
        while self._open:
            try:
                self._open[-1].close(timeout)
            except Exception as exc:  # noqa: BLE001 - the others must close too
                first.append(exc)
            self._open.pop()
        if first:
            raise first[0]
