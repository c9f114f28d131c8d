"""``SessionStore`` implementations: in memory, SQLite (and PostgreSQL, an extra)."""
