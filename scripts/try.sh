#!/usr/bin/env bash
# The offline try, set-up included: no account, no network beyond the package registries on
# the first run.
#
#   bash scripts/try.sh "What is 2 + 2?"
#   bash scripts/try.sh --help
#
# Creates (or reuses) .venv, installs claude_sync into it and the pinned Claude Code CLI
# (scripts/venv.sh), then runs examples/try_offline.py with the arguments given: the real CLI
# against the fake Anthropic API of claude_sync.testing, on 127.0.0.1. Then it says where the
# CLI is and how to run your own code the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  -h|--help)
    cat <<'USAGE'
usage: bash scripts/try.sh [PROMPT...]

Try claude_sync with no account and no network: sets up .venv (claude_sync with the `test`
extra) and the pinned Claude Code CLI (~/.cache/claude_sync/cli, via .ci/install_cli.sh; needs
python3 >= 3.9, node and npm, and the package registries the first time), then runs
examples/try_offline.py: the real CLI against claude_sync's fake Anthropic API on 127.0.0.1.
The fake is scripted, not a model: it quotes your prompt and always asks for one shell command.

Afterwards, your own code against the same fake API:
  .venv/bin/python -m claude_sync.testing.with_fake_api .venv/bin/python examples/quick_start.py "What is 2 + 2?"
USAGE
    exit 0 ;;
esac
. scripts/venv.sh
ensure_setup
.venv/bin/python examples/try_offline.py "$@"
cat <<NEXT

The claude CLI used: $CLAUDE_SYNC_TEST_CLI
(claude_sync finds it from now on, with no settings: it is the last place it looks.)
Next, your own code, the command line or a notebook against the same fake API, offline:
  . .venv/bin/activate
  python -m claude_sync.testing.with_fake_api python examples/quick_start.py "What is 2 + 2?"
  python -m claude_sync.testing.with_fake_api claude-sync doctor
With your own logged-in claude, leave out 'python -m claude_sync.testing.with_fake_api'.
NEXT
