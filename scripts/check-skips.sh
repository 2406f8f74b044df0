#!/usr/bin/env bash
# `swift test` on a machine without gpsd, a D-Bus daemon, Chromium or systemd passes, and every suite (or test)
# that needs one of them says it was skipped and which Debian package enables it — never a silent pass (issue 34).
#
# The suites are found in the sources: every `.enabled(if: …, "needs … PACKAGE …")` naming gpsd, dbus, chromium or
# systemd (the comment on the line of `.enabled(if:` or the next). Only those suites run, with the programs hidden (scripts/as-fresh-machine.sh --without-tools), from the
# test build that is there (run `swift build --build-tests` first). Fails when the run fails, or when one of them
# printed no skip line naming its package.
#
#   scripts/check-skips.sh          (root, or sudo)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# "Kind Name|comment" for each condition: the suite for @Suite conditions, the function for @Test ones.
conditions="$(python3 - <<'PY'
import glob, re
tools = ("gpsd", "dbus", "chromium", "systemd")
for path in sorted(glob.glob("Tests/**/*.swift", recursive=True)):
    lines = open(path, encoding="utf-8").read().split("\n")
    types = []  # the enclosing type names seen so far
    for index, line in enumerate(lines):
        declared = re.match(r"\s*(?:@\w+(?:\(.*\))?\s+)*(?:final\s+)?(?:struct|class|enum|extension)\s+(\w+)", line)
        if declared:
            types.append((len(line) - len(line.lstrip()), declared.group(1)))
        if ".enabled(if:" not in line:
            continue
        # The attribute starts on this line or a line above (@Suite(.serialized,\n .enabled(...)).
        start = index
        while start > 0 and "@Suite" not in lines[start] and "@Test" not in lines[start]:
            start -= 1
        kind = "Suite" if "@Suite" in lines[start] else "Test"
        text = " ".join(lines[index:index + 2])
        comment = re.search(r'"(needs[^"]*)"', text)
        if not comment or not any(tool in comment.group(1) for tool in tools):
            continue
        after = "\n".join(lines[index:index + 6])
        if kind == "Suite":
            name = re.search(r"\b(?:struct|class|enum)\s+(\w+)", after).group(1)
            owner = name
        else:
            name = re.search(r"\bfunc\s+(\w+)", after).group(1)
            # The type the test is in: the nearest one declared less indented than the attribute (not a nested
            # enum of arguments declared above it).
            indent = len(lines[start]) - len(lines[start].lstrip())
            enclosing = [type_name for type_indent, type_name in types if type_indent < indent]
            owner = enclosing[-1] if enclosing else name
        print(f"{kind} {name}|{owner}|{comment.group(1)}")
PY
)"
[ -n "$conditions" ] || { echo "check-skips: no suite declares that it needs gpsd, dbus, chromium or systemd" >&2; exit 1; }
owners="$(cut -d'|' -f2 <<<"$conditions" | sort -u | paste -sd'|')"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

status=0
if [ "$(id -u)" = 0 ]; then runner=(); else runner=(sudo -E env "PATH=$PATH"); fi
"${runner[@]}" scripts/as-fresh-machine.sh --without-tools \
    swift test --skip-build --filter "\.($owners)(/|$)" >"$log" 2>&1 || status=1
if [ "$status" != 0 ]; then
    echo "check-skips: the suites that need gpsd, dbus, chromium or systemd failed without them:" >&2
    grep -E "✘|error" "$log" | head -40 >&2
fi

missing=0
while IFS='|' read -r what owner comment; do
    kind="${what%% *}" name="${what#* }"
    if [ "$kind" = Suite ]; then
        found="$(grep -F "Suite $name skipped: \"$comment\"" "$log" || true)"
    else
        found="$(grep -F "Test $name(" "$log" | grep -F "skipped: \"$comment\"" || true)"
        # A test in a suite that was skipped whole (for a reason of its own, also checked) is not run to say so.
        [ -n "$found" ] || found="$(grep -E "Suite $owner skipped: \"needs" "$log" || true)"
    fi
    if [ -z "$found" ]; then
        echo "check-skips: $kind $name printed no skip line \"$comment\"" >&2
        missing=1
    fi
done <<<"$conditions"
count="$(wc -l <<<"$conditions")"
if [ "$status" = 0 ] && [ "$missing" = 0 ]; then
    echo "check-skips: $count suites and tests that need gpsd, dbus, chromium or systemd each said they were skipped, and why"
fi
[ "$status" = 0 ] && [ "$missing" = 0 ]
