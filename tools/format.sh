#!/bin/sh
# Formats Tessera's C and C++ sources with clang-format and the root
# .clang-format (`make format`), or with --check lists the files it would
# change and fails (`make test`'s `format` test). Third-party code carries
# its own .clang-format that turns formatting off.
set -e
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format: clang-format is missing (tools/setup.sh installs it)" >&2; exit 2; }
files() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files --cached --others --exclude-standard -- '*.c' '*.cpp' '*.h' '*.hpp'
    else
        find . -path ./out -prune -o -type f \( -name '*.c' -o -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) -print
    fi
}
case "${1:-}" in
    "") files | xargs -r clang-format -i ;;
    --check)
        bad=$(files | while read -r f; do
            if [ -f "$f" ] && ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then echo "$f"; fi
        done)
        [ -z "$bad" ] && exit 0
        echo "format: not in the house style (run make format):" >&2
        echo "$bad" >&2
        exit 1 ;;
    *) echo "usage: tools/format.sh [--check]" >&2; exit 2 ;;
esac
