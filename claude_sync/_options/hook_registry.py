"""``options.hooks`` → the callback ids the CLI is told and the callbacks behind them (pure).

``HookRegistry.from_options`` checks the option's shape and numbers its callbacks; the plan
(``command.interpret_options``) sends ``initialize_hooks_field()`` as ``initialize.hooks``
and the wiring gives ``HookRegistry.lookup`` to the hooks' request handler
(``claude_sync._callbacks.hooks.hook_server``), so the ids the CLI is told are exactly the
ones served. ``check_fail_closed_answer`` reads the CLI's ``initialize`` answer when a matcher
asked to fail closed, ``check_observes_only_answer`` when one set ``observes_only``.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .._callbacks.hook_types import HookCallback, HookMatcher
from .._redaction.redactor import redacted_logger
from .._wire.errors import CLIConnectionError, UnknownHookCallbackError
from .._wire.record import FrozenRecord, frozen_record
from .timeouts import CLI_MAX_WAIT

__all__ = ["HookRegistry", "RegisteredHook", "OBSERVES_ONLY_CLI", "check_fail_closed_answer", "check_observes_only_answer"]

logger = redacted_logger("claude_sync.hooks")

OBSERVES_ONLY_CLI = (2, 1, 333)
"""The first CLI that reads a matcher's ``observesOnly`` (older ones drop the key unread)."""


@frozen_record
class RegisteredHook(FrozenRecord):
    """One hook callback as registered with the CLI under ``callback_id``."""

    callback_id: str
    event: str
    matcher_index: int
    """Position of its ``HookMatcher`` in ``options.hooks[event]``."""
    matcher: Optional[str]
    timeout: Optional[float]
    callback: HookCallback
    on_failure: Optional[str] = None
    """``"continue"`` / ``"block"`` (fail closed) / None (the CLI's default)."""
    observes_only: Optional[bool] = None
    """``HookMatcher.observes_only`` (``Stop`` only; None: not sent)."""


class HookRegistry:
    """``options.hooks`` with generated callback ids: ``hook_0``, ``hook_1``, …

    Ids are unique within one registry and stable: the same options give the same ids, in
    the order of the events, then matchers, then callbacks. Matchers without callbacks, and
    events left without matchers, are not sent (they could never fire anything).
    """

    def __init__(self, entries: Sequence[RegisteredHook] = ()):
        self._entries: Dict[str, RegisteredHook] = {}
        for entry in entries:
            if entry.callback_id in self._entries:
                raise ValueError(f"duplicate hook callback id {entry.callback_id!r}")
            self._entries[entry.callback_id] = entry

    @classmethod
    def from_options(cls, hooks: Optional[Mapping[str, Sequence[HookMatcher]]]) -> HookRegistry:
        """Validate ``ClaudeAgentOptions.hooks`` and number its callbacks.

        Any event name is accepted (CLI 2.1.332 knows 34; see ``KNOWN_HOOK_EVENTS``).
        Raises ``TypeError`` for a non-mapping ``hooks``, a non-str event name, a matcher list
        that is not a list/tuple, an item that is not a ``HookMatcher``, a non-str
        ``matcher``, a non-callable hook or a non-numeric timeout; ``ValueError`` for an empty
        event name or a timeout that is not a finite number > 0.
        """
        if hooks is None:
            return cls()
        if not isinstance(hooks, Mapping):
            raise TypeError(
                f"hooks must be a dict of event name -> list of HookMatcher, "
                f"got {type(hooks).__name__}"
            )
        entries: List[RegisteredHook] = []
        for event, matchers in hooks.items():
            _check_event_name(event)
            for index, matcher in enumerate(_check_matcher_list(event, matchers)):
                where = f"hooks[{event!r}][{index}]"
                _check_matcher(where, matcher)
                _check_observes_only(where, event, matcher.observes_only)
                for callback in matcher.hooks:
                    entries.append(
                        RegisteredHook(
                            callback_id=f"hook_{len(entries)}",
                            event=event,
                            matcher_index=index,
                            matcher=matcher.matcher,
                            timeout=_json_number(matcher.timeout),
                            callback=callback,
                            on_failure=matcher.on_failure,
                            observes_only=matcher.observes_only,
                        )
                    )
        return cls(entries)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def callback_ids(self) -> List[str]:
        """Every registered id, in registration order."""
        return list(self._entries)

    def initialize_hooks_field(self) -> Dict[str, List[Dict[str, Any]]]:
        """The ``hooks`` field of the ``initialize`` request (``{}`` when there are none).

        ``{"<Event>": [{"hookCallbackIds": [...], "matcher": ..., "timeout": ...}]}``; matcher
        and timeout are left out when None.
        """
        field: Dict[str, List[Dict[str, Any]]] = {}
        for group in self._matcher_groups():
            first = group[0]
            config: Dict[str, Any] = {"hookCallbackIds": [entry.callback_id for entry in group]}
            if first.matcher is not None:
                config["matcher"] = first.matcher
            if first.timeout is not None:
                config["timeout"] = first.timeout
            if first.on_failure is not None:
                config["onFailure"] = first.on_failure
            if first.observes_only is not None:
                config["observesOnly"] = first.observes_only
            field.setdefault(first.event, []).append(config)
        return field

    @property
    def blocks_on_failure(self) -> bool:
        """Some matcher asked the CLI to fail closed (``on_failure="block"``)."""
        return any(entry.on_failure == "block" for entry in self._entries.values())

    @property
    def observes_only(self) -> bool:
        """Some matcher set ``observes_only=True``."""
        return any(entry.observes_only for entry in self._entries.values())

    def registered(self, callback_id: Any) -> RegisteredHook:
        """The registration behind ``callback_id``.

        Raises ``UnknownHookCallbackError`` for an id this registry never handed out.
        """
        entry = self._entries.get(callback_id) if isinstance(callback_id, str) else None
        if entry is None:
            known = ", ".join(self._entries) or "none registered"
            raise UnknownHookCallbackError(
                f"no hook callback is registered under id {callback_id!r} (known: {known})",
                callback_id=callback_id,
            )
        return entry

    def lookup(self, callback_id: Any) -> HookCallback:
        """The callback registered under ``callback_id``.

        Raises ``UnknownHookCallbackError`` for an id this registry never handed out.
        """
        return self.registered(callback_id).callback

    def _matcher_groups(self) -> Iterable[List[RegisteredHook]]:
        """Entries grouped back into their matchers, in registration order."""
        groups: Dict[Tuple[str, int], List[RegisteredHook]] = {}
        for entry in self._entries.values():
            groups.setdefault((entry.event, entry.matcher_index), []).append(entry)
        return groups.values()


def _check_event_name(event: Any) -> None:
    if not isinstance(event, str):
        raise TypeError(f"hook event names must be str, got {type(event).__name__} {event!r}")
    if not event:
        raise ValueError("hook event name must not be empty")


def _check_matcher_list(event: str, matchers: Any) -> Sequence[Any]:
    if isinstance(matchers, HookMatcher):
        raise TypeError(
            f"hooks[{event!r}] must be a list of HookMatcher, got a single HookMatcher; "
            f"wrap it in a list"
        )
    if not isinstance(matchers, (list, tuple)):
        raise TypeError(
            f"hooks[{event!r}] must be a list of HookMatcher, got {type(matchers).__name__}"
        )
    return matchers


def _check_matcher(where: str, matcher: Any) -> None:
    if not isinstance(matcher, HookMatcher):
        raise TypeError(f"{where} must be a HookMatcher, got {type(matcher).__name__}")
    if matcher.matcher is not None and not isinstance(matcher.matcher, str):
        raise TypeError(
            f"{where}.matcher must be a str or None, got {type(matcher.matcher).__name__}"
        )
    if not isinstance(matcher.hooks, (list, tuple)):
        raise TypeError(
            f"{where}.hooks must be a list of callables, got {type(matcher.hooks).__name__}"
        )
    for position, callback in enumerate(matcher.hooks):
        if not callable(callback):
            raise TypeError(
                f"{where}.hooks[{position}] must be callable, got {type(callback).__name__}"
            )
    _check_timeout(where, matcher.timeout)
    if matcher.on_failure not in (None, "continue", "block"):
        raise ValueError(
            f"{where}.on_failure must be 'continue', 'block' or None, got {matcher.on_failure!r}"
        )


def _check_observes_only(where: str, event: str, observes_only: Any) -> None:
    if observes_only is not None and not isinstance(observes_only, bool):
        raise TypeError(f"{where}.observes_only must be True, False or None, got {type(observes_only).__name__}")
    if observes_only and event != "Stop":
        raise ValueError(f"{where}.observes_only=True is for Stop hooks only (the CLI ignores it on {event})")


def _check_timeout(where: str, timeout: Any) -> None:
    if timeout is None:
        return
    from numbers import Real  # hooks with a timeout only

    if isinstance(timeout, bool) or not isinstance(timeout, Real):
        raise TypeError(
            f"{where}.timeout must be a number of seconds or None, got {type(timeout).__name__}"
        )
    if not math.isfinite(timeout) or timeout <= 0:
        raise ValueError(f"{where}.timeout must be a finite number of seconds > 0, got {timeout!r}")
    if float(timeout) > CLI_MAX_WAIT:
        raise ValueError(
            f"{where}.timeout must be at most {CLI_MAX_WAIT} seconds (the CLI's hook timer, 2**31 - 1 ms: "
            f"CLI 2.1.197 gives up on a longer one at once, losing the hook's answer), got {timeout!r}"
        )


def _json_number(timeout: Optional[float]) -> Optional[float]:
    """A checked timeout as a plain ``int``/``float`` (``Fraction``, numpy ints… do not encode)."""
    if timeout is None or type(timeout) in (int, float):
        return timeout
    from numbers import Integral

    return int(timeout) if isinstance(timeout, Integral) else float(timeout)


def check_fail_closed_answer(response: Mapping[str, Any]) -> None:
    """After ``initialize``, when a matcher has ``on_failure="block"``: make sure it will block.

    Raises ``CLIConnectionError`` when the CLI does not say ``hook_on_failure_supported`` (an
    older CLI drops the field, and its hooks would fail open), or says ``hooks_applied:
    false`` (nothing registered the hooks, as on an already running session).
    """
    if not response.get("hook_on_failure_supported"):
        raise CLIConnectionError(
            'a hook has on_failure="block", but this CLI does not honour on_failure (its '
            "initialize answer lacks hook_on_failure_supported), so a failing hook would "
            'not block: update Claude Code or remove on_failure="block"'
        )
    if response.get("hooks_applied") is False:
        raise CLIConnectionError(
            'a hook has on_failure="block", but the CLI did not register the hooks '
            "(hooks_applied: false): start a new session"
        )


def check_observes_only_answer(response: Mapping[str, Any]) -> bool:
    """After ``initialize``, when a matcher set ``observes_only``: whether the CLI reads it.

    The CLI's version is not known before ``initialize`` (and a CLI older than 2.1.333 drops
    the key unread, as zod drops unknown keys), so this reads the answer's
    ``claude_code_version`` (2.1.333 sends it; 2.1.197 does not) and logs a warning on
    ``claude_sync.hooks`` when it is absent or older: the hooks still run, and that CLI writes
    its notice when one misses its timeout. Never raises.
    """
    version = response.get("claude_code_version")
    reads_it = isinstance(version, str) and _version_tuple(version) >= OBSERVES_ONLY_CLI
    if not reads_it:
        logger.warning(
            "a Stop hook has observes_only=True, but this CLI (%s) predates it (CLI 2.1.333+ reads "
            "it): the hooks run, and the CLI notes in the transcript any that miss their timeout",
            version if isinstance(version, str) else "version not in its initialize answer",
        )
    return reads_it


def _version_tuple(version: str) -> Tuple[int, ...]:
    """``"2.1.333"`` → ``(2, 1, 333)``; ``()`` when it does not start with a dotted number."""
    parts: List[int] = []
    for part in version.split(" ", 1)[0].split("."):
        if not part.isdigit():
            break
        parts.append(int(part))
    return tuple(parts)
