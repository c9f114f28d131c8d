#!/usr/bin/env bash
# The test suite, set-up included.
#
#   bash scripts/test.sh                    # the whole suite
#   bash scripts/test.sh tests/package -x   # any pytest arguments
#
# Creates (or reuses) .venv, installs claude_sync with the `test` extra and the pinned Claude
# Code CLI (scripts/venv.sh), then runs `python -m pytest` with the arguments given. The tests
# of the other extras (test-integrations, docs, ...) skip, naming the extra to install; the
# run tells the suite it has only `test` (CLAUDE_SYNC_TEST_EXTRAS=test, unless set already),
# so that under CI=true they skip too instead of failing.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
ensure_setup
export CLAUDE_SYNC_TEST_EXTRAS="${CLAUDE_SYNC_TEST_EXTRAS:-$SETUP_EXTRAS}"
exec .venv/bin/python -m pytest "$@"
