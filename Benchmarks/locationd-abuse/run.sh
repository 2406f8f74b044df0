#!/usr/bin/env bash
# Issue 37, item 2, side by side in one run: N registers on one connection, then another client's ping, and the
# ping after the registering connection closed, for locationd before (main at e15bfc3, built here in a
# worktree under out/before) and after (this checkout); release builds; the driver is registers.py (Python 3,
# standard library only). A BEFORE_BIN directory skips the before build.
# Usage: Benchmarks/locationd-abuse/run.sh [--counts 1000,8000,16000] [--trials 3]
set -euo pipefail
. "$(dirname "$0")/../require.sh"
require_commands swift python3 git
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$here/out"
build() {
    swift build -c release --package-path "$1" --product locationd >"$here/out/build.log" 2>&1 \
        || { tail -30 "$here/out/build.log"; exit 1; }
    swift build -c release --package-path "$1" --show-bin-path
}
before="${BEFORE_BIN:-}"
if [ -z "$before" ]; then
    [ -d "$here/out/before" ] || git -C "$root" worktree add --detach "$here/out/before" e15bfc3 >/dev/null
    before="$(build "$here/out/before")"
fi
after="$(build "$root")"
python3 "$here/registers.py" "$before" "$after" "$@"
