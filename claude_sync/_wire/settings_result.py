"""The typed answer of the CLI's ``get_settings`` control request: ``ResolvedSettings`` (pure).

What the CLI sends (2.1.197 and 2.1.332)::

    {"effective": {…merged…},
     "sources": [{"source": "userSettings", "settings": {…}}, …],   # low → high precedence
     "applied": {"model": "…", "effort": "high", …},
     "errors": [{"file": …, "path": …, "message": …}],             # 2.1.332, when any
     "served_settings_state": "ok" | "pending" | "stale_cache" | "failed" | "ineligible"}  # 2.1.332

Source names are given as the TS SDK's ``resolveSettings`` names them (``ResolvedSettingSource``):
``userSettings`` → ``"user"``, ``projectSettings`` → ``"project"``, ``localSettings`` →
``"local"``, ``flagSettings`` (``--settings``, ``settings=``) → ``"flag"``, ``policySettings``
(managed settings, ``managed_settings=``) → ``"managed"``; a name this table lacks stays as the
CLI sent it. ``provenance`` is derived as the CLI itself looks a key's source up: the highest
source whose own settings hold the top-level key.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Dict, List, Mapping, Optional

from .record import FrozenRecord, frozen_record

__all__ = ["ResolvedSettings", "ResolvedSettingsSource", "SOURCE_NAMES"]

SOURCE_NAMES = {
    "userSettings": "user", "projectSettings": "project", "localSettings": "local",
    "flagSettings": "flag", "policySettings": "managed",
}  # fmt: skip
"""The CLI's source names → the TS SDK's ``ResolvedSettingSource``."""


@frozen_record
class ResolvedSettingsSource(FrozenRecord):
    """One settings source as the CLI loaded it (raw, before merging).

    Attributes:
        source: ``"user"``, ``"project"``, ``"local"``, ``"flag"`` or ``"managed"`` (or a
            newer CLI's own name, as sent).
        settings: Its settings, as loaded.
    """

    source: str
    settings: Dict[str, Any]


def _dict(value: Any) -> Dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


@frozen_record
class ResolvedSettings(FrozenRecord):
    """The settings a session runs with, as the CLI's own merge produced them
    (``ClaudeSDKClient.get_settings()``, ``resolve_settings()``).

    Attributes:
        effective: The merged settings.
        sources: The sources that supplied any, lowest precedence first.
        provenance: Top-level key of ``effective`` → the source that supplied it (the highest
            source holding the key; nested keys: read ``sources``).
        applied: What the session applies now: ``model``, ``effort`` … (the CLI's ``applied``).
        errors: Settings files the CLI skipped as invalid, with its messages (CLI 2.1.332;
            empty when none or older).
        served_settings_state: Where the organization's server-managed settings stand
            (``"ok"``, ``"pending"``, ``"stale_cache"``, ``"failed"``, ``"ineligible"``; CLI
            2.1.332, None from older ones).
        raw: The answer as the CLI sent it.
    """

    effective: Dict[str, Any]
    sources: List[ResolvedSettingsSource]
    provenance: Dict[str, str]
    applied: Dict[str, Any] = field(default_factory=dict)
    errors: List[Dict[str, Any]] = field(default_factory=list)
    served_settings_state: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ResolvedSettings:
        """Build it from the CLI's ``get_settings`` answer, tolerating missing or mistyped
        keys (they get the defaults). Runs on the caller's thread; never raises for a dict."""
        sources = []
        for item in data.get("sources") or ():
            if isinstance(item, Mapping) and isinstance(item.get("source"), str):
                name: str = item["source"]
                named = SOURCE_NAMES.get(name, name)
                sources.append(ResolvedSettingsSource(source=named, settings=_dict(item.get("settings"))))
        effective = _dict(data.get("effective"))
        provenance: Dict[str, str] = {}
        for key in effective:
            for source in reversed(sources):
                if key in source.settings:
                    provenance[key] = source.source
                    break
        errors = data.get("errors")
        state = data.get("served_settings_state")
        return cls(
            effective=effective,
            sources=sources,
            provenance=provenance,
            applied=_dict(data.get("applied")),
            errors=[dict(e) for e in errors if isinstance(e, Mapping)] if isinstance(errors, list) else [],
            served_settings_state=state if isinstance(state, str) else None,
            raw=dict(data),
        )
