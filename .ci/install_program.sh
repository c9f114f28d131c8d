#!/usr/bin/env bash
# Usage: install_program.sh PROGRAM DEBIAN_PACKAGE
# Makes sure PROGRAM is on this machine (examples/approvals_app's tests start `redis-server`
# and headless `chromium` themselves), installing the Debian package only when PROGRAM is not on
# PATH. Idempotent. Prints the program's path last (the tests read it from
# CLAUDE_SYNC_REDIS_SERVER / CLAUDE_SYNC_CHROMIUM, else PATH).
set -euo pipefail
program="$1"
package="$2"
if ! path="$(command -v "$program")"; then
  echo "installing $package (apt-get install $package)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "$package" >&2
  path="$(command -v "$program")"
fi
"$path" --version >&2
echo "$path"
