#!/usr/bin/env bash
# Builds each library's DocC catalog; exits non-zero on any warning (broken symbol links included).
# Usage: scripts/docc.sh [output-dir]   (run from anywhere; default output /tmp/dp-doc; one
# subdirectory per module, e.g. /tmp/dp-doc/DatePicking)
set -euo pipefail
cd "$(dirname "$0")/.."
output="${1:-/tmp/dp-doc}"
mkdir -p "$output"
for module in DatePicking TimerStorage; do
    symbols="$(mktemp -d /tmp/dp-sg.XXXXXX)"
    trap 'rm -rf "$symbols"' EXIT
    swift build --target "$module" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$symbols"
    # Only the module's own symbol graphs (<Module>*.symbols.json); Foundation's would add noise.
    find "$symbols" -type f ! -name "$module*.symbols.json" -delete
    log="$(mktemp /tmp/dp-docc-log.XXXXXX)"
    status=0
    docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$symbols" \
        --warnings-as-errors \
        --output-path "$output/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "$(printf '%s' "$module" | tr '[:upper:]' '[:lower:]')" 2>&1 | tee "$log" || status=$?
    if [ "$status" -ne 0 ] || grep -qiE '^(warning|error)|: (warning|error):' "$log"; then
        echo "docc: $module failed (status $status); see the diagnostics above" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log" && rm -rf "$symbols"
    echo "docc: $module documentation written to $output/$module"
done
