#!/usr/bin/env bash
# Install the pinned Claude Code CLI that the e2e tests drive, outside the repository.
#
#   bash .ci/install_cli.sh            # installs (or reuses) the pinned version
#   CLAUDE_SYNC_CLI_VERSION=2.1.197 CLAUDE_SYNC_CLI_CACHE=/some/dir bash .ci/install_cli.sh
#
# Idempotent: an existing install whose `claude --version` already reports the pinned version is
# reused as it is. Progress goes to stderr; the LAST line on stdout is the path of the binary, so
# callers can do `CLI="$(bash .ci/install_cli.sh | tail -n 1)"`.
# Exits non-zero (loudly) when node or npm is missing, when npm fails, or when the installed
# binary reports another version than the pinned one.
set -euo pipefail

version="${CLAUDE_SYNC_CLI_VERSION:-2.1.197}"
cache_root="${CLAUDE_SYNC_CLI_CACHE:-$HOME/.cache/claude_sync/cli}"
prefix="$cache_root/$version"
binary="$prefix/node_modules/.bin/claude"

say() { echo "install_cli: $*" >&2; }
die() { echo "install_cli: ERROR: $*" >&2; exit 1; }

reports_pinned_version() {
  # `claude --version` prints e.g. "2.1.197 (Claude Code)".
  local reported
  [ -x "$binary" ] || return 1
  reported="$("$binary" --version 2>/dev/null | head -n 1 || true)"
  [ "${reported%% *}" = "$version" ]
}

command -v node >/dev/null 2>&1 || die "node is not on PATH (install Node.js >= 18, e.g. 'apt-get install nodejs npm')"
command -v npm >/dev/null 2>&1 || die "npm is not on PATH (install it, e.g. 'apt-get install npm')"

if reports_pinned_version; then
  say "reusing $binary ($version)"
else
  say "installing @anthropic-ai/claude-code@$version into $prefix"
  mkdir -p "$prefix"
  # A package.json of its own keeps npm from walking up into some parent project.
  [ -f "$prefix/package.json" ] || echo '{"private": true}' >"$prefix/package.json"
  (
    cd "$prefix"
    npm install --no-audit --no-fund --save-exact --loglevel=error \
      "@anthropic-ai/claude-code@$version" >&2
  ) || die "npm install of @anthropic-ai/claude-code@$version failed"
  [ -x "$binary" ] || die "npm finished but $binary is missing or not executable"
  if ! reports_pinned_version; then
    die "$binary reports '$("$binary" --version 2>&1 | head -n 1)', expected $version"
  fi
  say "installed $binary ($version)"
fi

echo "$binary"
