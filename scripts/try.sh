#!/usr/bin/env bash
# The offline try, set-up included: no account, no network beyond the package registries on
# the first run.
#
#   bash scripts/try.sh "What is 2 + 2?"
#
# Creates (or reuses) .venv, installs claude_sync into it and the pinned Claude Code CLI
# (scripts/venv.sh), then runs examples/try_offline.py with the arguments given: the real CLI
# against the fake Anthropic API of claude_sync.testing, on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
ensure_setup
exec .venv/bin/python examples/try_offline.py "$@"
