#!/usr/bin/env bash
# Builds every fuzz target with libFuzzer and AddressSanitizer and runs each for N
# seconds (default 30): ./Tests/Fuzz/run.sh [N] [target ...]
#
# Each target starts from its seed corpus (Tests/Fuzz/<target>/corpus, read only) and
# keeps what it learns in .build-fuzz/corpus/<target>, so later runs go deeper. A crash
# is saved as .build-fuzz/crashes/<target>/crash-* and the script exits 1; replay one
# with a plain build: swift build --product <target> && .build/debug/<target> <file>
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-30}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(FuzzJSON FuzzJSONReader FuzzCommandLine FuzzCloudEvent FuzzRFC3339 FuzzRetryAfter FuzzHTTPResponse FuzzFleetEvent)
fi
scratch=.build-fuzz

for target in "${targets[@]}"; do
    swift build -c release --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
        --product "$target" 2>&1 | grep -E "error|warning: .*\.swift|Compiling|Build" | grep -v "^\[" || true
    [ -x "$scratch/release/$target" ] || { echo "fuzz: $target did not build" >&2; exit 1; }
done

failed=()
for target in "${targets[@]}"; do
    mkdir -p "$scratch/corpus/$target" "$scratch/crashes/$target"
    log="$scratch/$target.log"
    set +e
    "$scratch/release/$target" "$scratch/corpus/$target" "Tests/Fuzz/$target/corpus" \
        -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$scratch/crashes/$target/" >"$log" 2>&1
    status=$?
    set -e
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    crashes=$(find "$scratch/crashes/$target" -type f | wc -l)
    echo "fuzz: $target: ${runs:-?} runs in ${seconds} s, exit $status, $crashes saved crash(es) in $scratch/crashes/$target"
    if [ "$status" -ne 0 ]; then
        grep -E "ERROR|Fatal error|precondition|SUMMARY|Test unit written" "$log" | head -n 20 >&2 || true
        failed+=("$target")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in ${failed[*]}" >&2
    exit 1
fi
