"""The wire: what the CLI and claude_sync say to each other, sans I/O.

Bytes → lines (``framing``), a line → a typed event (``protocol``), a dict → a typed message
(``parse``: ``messages``, ``system_messages``, ``blocks``), the TypedDict shapes of payloads
(``shapes``), the one exception tree (``errors``, with newcomer ``hints``), the assistant-message
merge engine (``merge``), the answer's text as it arrives (``text``), and the
cheap-to-define dataclasses everything here is made of (``record``, ``serde``). All pure.
"""
