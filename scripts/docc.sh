#!/usr/bin/env bash
# Builds the DatePicking DocC catalog; exits non-zero on any warning (broken symbol links included).
# Usage: scripts/docc.sh [output-dir]   (run from anywhere; default output /tmp/dp-doc)
set -euo pipefail
cd "$(dirname "$0")/.."
output="${1:-/tmp/dp-doc}"
symbols="$(mktemp -d /tmp/dp-sg.XXXXXX)"
trap 'rm -rf "$symbols"' EXIT
swift build --target DatePicking \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$symbols"
# Only the module's own symbol graphs (DatePicking*.symbols.json); Foundation's would add noise.
find "$symbols" -type f ! -name 'DatePicking*.symbols.json' -delete
log="$(mktemp /tmp/dp-docc-log.XXXXXX)"
status=0
docc convert Sources/DatePicking/DatePicking.docc \
    --additional-symbol-graph-dir "$symbols" \
    --warnings-as-errors \
    --output-path "$output" \
    --fallback-display-name DatePicking \
    --fallback-bundle-identifier datepicking 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ] || grep -qiE '^(warning|error)|: (warning|error):' "$log"; then
    echo "docc: failed (status $status); see the diagnostics above" >&2
    rm -f "$log"
    exit 1
fi
rm -f "$log"
echo "docc: documentation written to $output"
