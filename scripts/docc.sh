#!/usr/bin/env bash
# Builds the DocC catalog of every library listed below; exits non-zero on any warning (broken
# symbol links included). Each catalog is Sources/<Module>/<Module>.docc.
# Usage: scripts/docc.sh [output-dir]   (run from anywhere; default output /tmp/dp-doc; one
# subdirectory per module, e.g. /tmp/dp-doc/DatePicking)
set -euo pipefail
cd "$(dirname "$0")/.."
output="${1:-/tmp/dp-doc}"
mkdir -p "$output"
# One module a line. ":package" documents `package` declarations too, for libraries whose API is
# `package` (shared between this package's own targets, not public).
modules=(
    DatePicking
    TimerStorage
    TimerSystem
)
for entry in "${modules[@]}"; do
    module="${entry%%:*}"
    access=()
    [ "$entry" = "$module:package" ] && access=(-Xswiftc -symbol-graph-minimum-access-level -Xswiftc package)
    symbols="$(mktemp -d /tmp/dp-sg.XXXXXX)"
    log="$(mktemp /tmp/dp-docc-log.XXXXXX)"
    swift build --target "$module" "${access[@]}" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$symbols"
    # Only the module's own symbol graphs (<Module>*.symbols.json); Foundation's would add noise.
    find "$symbols" -type f ! -name "$module*.symbols.json" -delete
    status=0
    docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$symbols" \
        --warnings-as-errors \
        --output-path "$output/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "$(printf '%s' "$module" | tr '[:upper:]' '[:lower:]')" 2>&1 | tee "$log" || status=$?
    failed=0
    if [ "$status" -ne 0 ] || grep -qiE '^(warning|error)|: (warning|error):' "$log"; then failed=1; fi
    rm -rf "$symbols" "$log"
    if [ "$failed" -ne 0 ]; then
        echo "docc: $module failed (status $status); see the diagnostics above" >&2
        exit 1
    fi
    echo "docc: $module documentation written to $output/$module"
done
