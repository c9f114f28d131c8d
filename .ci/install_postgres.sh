#!/usr/bin/env bash
# Makes sure the PostgreSQL server binaries (initdb, postgres) are on this machine, for the
# PostgresSessionStore tests, which start a throwaway server of their own. Idempotent: installs
# the Debian `postgresql` package only when no initdb is found. Prints the bin dir last.
set -euo pipefail

find_bin() {
  local dir
  if [ -n "${CLAUDE_SYNC_PG_BIN:-}" ] && [ -x "$CLAUDE_SYNC_PG_BIN/initdb" ]; then
    echo "$CLAUDE_SYNC_PG_BIN"; return 0
  fi
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/postgres" ]; then echo "$dir"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
  return 1
}

if ! bin_dir="$(find_bin)"; then
  echo "installing PostgreSQL (apt-get install postgresql)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends postgresql >&2
  bin_dir="$(find_bin)"
fi
"$bin_dir/postgres" --version >&2
echo "$bin_dir"
