# Sourced by scripts/try.sh and scripts/test.sh (not run on its own): the whole set-up a fresh
# machine needs, done once and reused after.
#
#   ensure_setup          # from the project root
#
# 1. The virtual environment .venv (created with $PYTHON, default python3, which must be 3.9
#    or newer), reused when it is there.
# 2. claude_sync itself, editable, with the `test` extra (`pip install -e '.[test]'`: pytest
#    and pytest-timeout, pure Python), in setuptools' `compat` editable mode: the checkout is a
#    path entry, so `import claude_sync` also works from the checkout's parent folder (where
#    the default mode loses to the folder itself, seen as a namespace package) — skipped when .venv/.claude_sync-setup records that this
#    very setup.cfg and pyproject.toml were installed already and claude_sync imports from
#    this checkout.
# 3. The pinned Claude Code CLI (.ci/install_cli.sh, into ~/.cache/claude_sync; needs node and
#    npm), exported as CLAUDE_SYNC_TEST_CLI.
# Progress goes to stderr. Exits (the sourcing script) non-zero, saying why, on any failure.

SETUP_EXTRAS="test"

setup_say() { echo "setup: $*" >&2; }
setup_die() { echo "setup: ERROR: $*" >&2; exit 1; }

ensure_setup() {
  local python="${PYTHON:-python3}" venv=".venv" stamp want
  if [ ! -x "$venv/bin/python" ]; then
    command -v "$python" >/dev/null 2>&1 || setup_die "no $python on PATH (Python 3.9 or newer; set PYTHON=/path/to/python)"
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 9))' \
      || setup_die "$python is Python $("$python" -c 'import sys; print(sys.version.split()[0])'); claude_sync needs 3.9 or newer (set PYTHON=...)"
    setup_say "creating $venv with $("$python" --version 2>&1)"
    "$python" -m venv "$venv" || setup_die "$python -m venv $venv failed (Debian/Ubuntu: apt-get install python3-venv)"
  fi
  stamp="$venv/.claude_sync-setup"
  want="extras=$SETUP_EXTRAS editable=compat $(cat setup.cfg pyproject.toml | cksum)"
  # Reinstall when setup.cfg/pyproject.toml changed, or claude_sync no longer imports from
  # this checkout (uninstalled, or the checkout moved).
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] \
    || ! "$venv/bin/python" -c 'import sys, claude_sync; sys.exit(not claude_sync.__file__.startswith(sys.argv[1]))' "$PWD/" 2>/dev/null; then
    setup_say "pip install -e '.[$SETUP_EXTRAS]' into $venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[$SETUP_EXTRAS]" \
      --config-settings editable_mode=compat \
      || setup_die "pip install -e '.[$SETUP_EXTRAS]' failed"
    echo "$want" >"$stamp"
  else
    setup_say "reusing $venv (claude_sync[$SETUP_EXTRAS] installed from this setup.cfg)"
  fi
  CLAUDE_SYNC_TEST_CLI="$(bash .ci/install_cli.sh | tail -n 1)" || setup_die "the pinned CLI could not be installed (see above)"
  export CLAUDE_SYNC_TEST_CLI
}
