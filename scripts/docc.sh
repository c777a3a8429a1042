#!/usr/bin/env bash
# Builds the DocC catalog of every library (Sources/<M>/<M>.docc); exits non-zero on any warning
# (broken symbol links included). DOCC_ONLY="Sources/M/M.docc ..." builds only those catalogs.
# Usage: scripts/docc.sh [output-dir]   (run from anywhere; default /tmp/timerd-doc; one
# sub-directory per module)
set -euo pipefail
cd "$(dirname "$0")/.."
output="${1:-/tmp/timerd-doc}"
work="$(mktemp -d /tmp/timerd-docc.XXXXXX)"
trap 'rm -rf "$work"' EXIT
failed=0
mkdir -p "$output"
for catalog in ${DOCC_ONLY:-Sources/*/*.docc}; do
    module="$(basename "$catalog" .docc)"
    symbols="$work/$module-symbols"
    mkdir -p "$symbols"
    # Libraries whose API is `package` (shared by this package's targets only) document that level.
    access=()
    case "$module" in CommandLineTable) access=(-Xswiftc -symbol-graph-minimum-access-level -Xswiftc package) ;; esac
    # The traits PostgreSQL and Notifications: TimerPostgres documents its libpq connection and
    # TimerNotifier its sd-bus session bus, not the stand-ins without them.
    swift build --traits PostgreSQL,Notifications --target "$module" "${access[@]}" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$symbols"
    # Only the module's own symbol graphs (<Module>.symbols.json and its extensions of others).
    find "$symbols" -type f ! -name "$module.symbols.json" ! -name "$module@*.symbols.json" -delete
    log="$work/$module.log"
    status=0
    docc convert "$catalog" \
        --additional-symbol-graph-dir "$symbols" \
        --warnings-as-errors \
        --output-path "$output/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "$(printf '%s' "$module" | tr '[:upper:]' '[:lower:]')" 2>&1 | tee "$log" ||
        status=$?
    if [ "$status" -ne 0 ] || grep -qiE '^(warning|error)|: (warning|error):' "$log"; then
        echo "docc: $module failed (status $status); see the diagnostics above" >&2
        failed=1
    fi
done
[ "$failed" -eq 0 ] || exit 1
echo "docc: documentation written to $output/<Module>"
