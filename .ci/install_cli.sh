#!/usr/bin/env bash
# Install a Claude Code CLI that the e2e tests drive, outside the repository.
#
#   bash .ci/install_cli.sh            # installs (or reuses) the pinned version
#   CLAUDE_SYNC_CLI_VERSION=2.1.197 CLAUDE_SYNC_CLI_CACHE=/some/dir bash .ci/install_cli.sh
#   CLAUDE_SYNC_CLI_VERSION=2.1.333 CLAUDE_SYNC_CLI_SDK_VERSION=0.3.333 bash .ci/install_cli.sh
#
# Two sources, both ordinary npm registry packages installed with npm:
# * default: `@anthropic-ai/claude-code@<version>` (its bin links node_modules/.bin/claude);
# * with CLAUDE_SYNC_CLI_SDK_VERSION: the TypeScript Agent SDK's platform package
#   `@anthropic-ai/claude-agent-sdk-<os>-<cpu>@<sdk version>`, whose `claude` is the native CLI
#   that SDK bundles (how TS users get a CLI that claude-code does not carry yet: 2.1.333 is
#   only there). It has no bin entry, so this script links node_modules/.bin/claude to it:
#   every version then lives at the same path (claude_sync.testing.offline.default_cli_path).
#
# Idempotent: an existing install whose `claude --version` already reports the wanted version is
# reused as it is. Progress goes to stderr; the LAST line on stdout is the path of the binary, so
# callers can do `CLI="$(bash .ci/install_cli.sh | tail -n 1)"`.
# Exits non-zero (loudly) when node or npm is missing, when npm fails, when there is no platform
# package for this machine, or when the installed binary reports another version than wanted.
set -euo pipefail

version="${CLAUDE_SYNC_CLI_VERSION:-2.1.197}"
sdk_version="${CLAUDE_SYNC_CLI_SDK_VERSION:-}"
cache_root="${CLAUDE_SYNC_CLI_CACHE:-$HOME/.cache/claude_sync/cli}"
prefix="$cache_root/$version"
binary="$prefix/node_modules/.bin/claude"

say() { echo "install_cli: $*" >&2; }
die() { echo "install_cli: ERROR: $*" >&2; exit 1; }

reports_wanted_version() {
  # `claude --version` prints e.g. "2.1.197 (Claude Code)".
  local reported
  [ -x "$binary" ] || return 1
  reported="$("$binary" --version 2>/dev/null | head -n 1 || true)"
  [ "${reported%% *}" = "$version" ]
}

platform_package() {
  # The SDK's platform package for this machine: claude-agent-sdk-{linux,darwin}-{x64,arm64}.
  local os cpu
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) die "no claude-agent-sdk platform package for $(uname -s)" ;;
  esac
  case "$(uname -m)" in
    x86_64|amd64) cpu=x64 ;;
    aarch64|arm64) cpu=arm64 ;;
    *) die "no claude-agent-sdk platform package for $(uname -m)" ;;
  esac
  echo "@anthropic-ai/claude-agent-sdk-$os-$cpu"
}

command -v node >/dev/null 2>&1 || die "node is not on PATH (install Node.js >= 18, e.g. 'apt-get install nodejs npm')"
command -v npm >/dev/null 2>&1 || die "npm is not on PATH (install it, e.g. 'apt-get install npm')"

if [ -n "$sdk_version" ]; then
  package="$(platform_package)"
  spec="$package@$sdk_version"
  installed="$prefix/node_modules/$package/claude"
else
  spec="@anthropic-ai/claude-code@$version"
  installed="$binary"
fi

link_platform_binary() {
  [ -x "$installed" ] || return 1
  mkdir -p "$prefix/node_modules/.bin"
  ln -sfn "../$package/claude" "$binary"
}

if [ -n "$sdk_version" ] && [ ! -e "$binary" ] && [ -x "$installed" ]; then
  link_platform_binary  # an install made without this script (no .bin link yet)
fi

if reports_wanted_version; then
  say "reusing $binary ($version)"
else
  say "installing $spec into $prefix"
  mkdir -p "$prefix"
  # A package.json of its own keeps npm from walking up into some parent project.
  [ -f "$prefix/package.json" ] || echo '{"private": true}' >"$prefix/package.json"
  (
    cd "$prefix"
    npm install --no-audit --no-fund --save-exact --loglevel=error "$spec" >&2
  ) || die "npm install of $spec failed"
  if [ -n "$sdk_version" ]; then
    link_platform_binary || die "npm finished but $installed is missing or not executable"
  fi
  [ -x "$binary" ] || die "npm finished but $binary is missing or not executable"
  if ! reports_wanted_version; then
    die "$binary reports '$("$binary" --version 2>&1 | head -n 1)', expected $version"
  fi
  say "installed $binary ($version)"
fi

echo "$binary"
