#!/bin/sh
# Runs clang-tidy (.clang-tidy's checks) on every source the host build in
# $1 compiles (its compile_commands.json), tests left out: LWMPI, the NoC
# HAL code, the name server's table and the name daemon. `make tidy`.
set -e
build=${1:?usage: tools/tidy.sh HOST_BUILD_DIR}
cd "$(dirname "$0")/.."
[ -f "$build/compile_commands.json" ] || { echo "tidy: no $build/compile_commands.json (make build first)" >&2; exit 2; }
command -v clang-tidy >/dev/null || { echo "tidy: clang-tidy is missing (tools/setup.sh installs it)" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
/usr/bin/python3 - "$build/compile_commands.json" <<'PY' | xargs -r clang-tidy --quiet -p "$build" >"$log" 2>&1 || status=$?
import json, sys
files = {e["file"] for e in json.load(open(sys.argv[1]))}
print("\n".join(sorted(f for f in files if "/tests/" not in f)))
PY
# clang-tidy counts the warnings it suppressed in system headers: not news.
grep -v ' warnings\? generated\.$' "$log" || true
exit $status
