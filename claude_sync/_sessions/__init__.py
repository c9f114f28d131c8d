"""Sessions: the CLI's JSONL transcripts and the stores that mirror them.

Pure: reading transcripts (``transcript``, ``transcript_messages``, ``transcript_parallel``),
editing them (``fork``), running summaries (``summary``), the public types (``types``).
I/O: the session functions over files (``transcript_files``, ``transcript_edits``) and over
stores (``store_functions``), resuming from a store (``store_resume``), mirroring a running
connection into one (``store_bridge``), and the stores themselves (``stores/``).
"""
