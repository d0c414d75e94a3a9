#!/usr/bin/env bash
# Runs a test command with a time bound, for a suite whose run on this machine takes about ten minutes: a test that
# hangs would otherwise hold the run until CI's own limit, which then shows only the last lines written and not
# which test never ended. At the bound, this prints every thread's stack of the test processes (gdb, where it is
# installed) and, last, the tests that started and never finished; then it ends the run, which fails.
#
#   scripts/bounded-tests.sh SECONDS COMMAND...     # e.g. scripts/bounded-tests.sh 1800 swift test --package-path Server
set -uo pipefail
limit="$1"
shift
log="$(mktemp)"
trap 'rm -f "$log" "$log.expired"' EXIT

# Swift Testing's lines, line-buffered so that the log holds every line written.
stdbuf -oL -eL "$@" > >(tee "$log") 2>&1 &
run=$!

# Every process below `$1`, children first.
descendants() {
    local child
    for child in $(pgrep -P "$1" || true); do
        echo "$child"
        descendants "$child"
    done
}

report() {
    echo "=== the tests ran past ${limit} s: stopping them"
    local processes
    processes="$(descendants "$run")"
    for pid in $processes; do
        grep -q 'PackageTests.xctest' "/proc/$pid/cmdline" 2>/dev/null || continue
        if command -v gdb >/dev/null; then
            echo "=== stacks of test process $pid: each thread's Flint and NIO frames"
            gdb -p "$pid" -batch -ex "thread apply all bt 40" 2>/dev/null \
                | awk '/^Thread /{ print; next } /Flint|NIO|PostgresNIO|Hummingbird|sqlite3_|pthread_cond|futex|__lll/{ sub(/ \(.*$/, ""); print "   " $0 }' \
                | swift demangle --simplified 2>/dev/null | cut -c1-200 | head -400
        fi
    done
    echo "=== tests that started and never finished:"
    grep -a 'Test [^ ]*(.*) started' "$log" | grep -v 'Test case' | sed 's/^.*Test \([^ ]*(.*)\) started.*$/\1/' | sort -u > "$log.started"
    grep -a 'Test [^ ]*(.*) .*\(passed\|failed\)' "$log" | grep -v 'Test case' \
        | sed 's/^.*Test \([^ ]*(.*)\) \(with\|passed\|failed\).*$/\1/' | sort -u > "$log.ended"
    comm -23 "$log.started" "$log.ended" | sed 's/^/    /'
    rm -f "$log.started" "$log.ended"
    touch "$log.expired"
    kill -KILL "$run" $processes 2>/dev/null || true
}

# The watchdog sleeps in the background; a run that ends first ends it.
( sleep "$limit" & wait $!; report ) &
watchdog=$!
wait "$run"
status=$?
sleeper="$(pgrep -P "$watchdog" || true)"
kill "$watchdog" $sleeper 2>/dev/null
wait "$watchdog" 2>/dev/null
if [ -e "$log.expired" ]; then
    rm -f "$log.expired"
    exit 124
fi
exit "$status"
