#!/usr/bin/env bash
# Fuzzes a live Flint with schemathesis against the server's own OpenAPI document (/openapi.json): every
# operation, in production mode (with the default project's API key) and in emulator mode (with the
# emulator's admin token), on a fresh SQLite store each. A finding — a 5xx, an answer that does not match the
# document, an invalid request accepted, a response slower than 10 s — fails the run, and so does a server
# that stops answering or does not exit cleanly on SIGTERM afterwards.
#
#   scripts/fuzz.sh          # quick: fixed seed, 5 examples per operation and phase (CI runs this)
#   scripts/fuzz.sh long     # a new seed (or FUZZ_SEED), 200 examples per operation (or FUZZ_EXAMPLES)
#
# FLINT_BIN names the flint executable (default: the debug build). Only 127.0.0.1 is contacted.
set -euo pipefail
cd "$(dirname "$0")/.."
FLINT_BIN="$(realpath "${FLINT_BIN:-Server/.build/debug/flint}")"
case "${1:-quick}" in
quick) examples=5; seed=1 ;;
long) examples="${FUZZ_EXAMPLES:-200}"; seed="${FUZZ_SEED:-$RANDOM}" ;;
*) echo "usage: scripts/fuzz.sh [quick|long]" >&2; exit 2 ;;
esac
# The checks: answers that match the document, and no server error. Left out, deliberately:
# positive_data_acceptance (valid JSON is still refused by Firebase's own rules: a bad email, a weak password),
# unsupported_method (Firebase answers 404 for a method a path lacks, not 405), missing_required_header and
# ignored_auth (the key may come in a header or the query, and emulator mode takes any credentials).
checks=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance
checks+=,response_schema_conformance,negative_data_rejection

fuzz() {   # fuzz MODE
    local mode="$1" dir log pid url auth status=0
    dir="$(mktemp -d)"; log="$dir/server.log"
    local flags=(--host 127.0.0.1 --port 0 --management-port 0)
    [ "$mode" = emulator ] && flags+=(--emulator)
    (cd "$dir" && exec "$FLINT_BIN" serve "${flags[@]}") >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do
        url="$(sed -n 's/^Flint is listening on \(http:[^ ]*\).*/\1/p' "$log")"
        [ -n "$url" ] && break
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; return 1; }
        sleep 0.1
    done
    [ -n "$url" ] || { echo "flint did not start" >&2; cat "$log" >&2; kill "$pid"; return 1; }
    if [ "$mode" = emulator ]; then
        auth="Authorization: Bearer owner"
        # createAuthUri naming a provider answers 501 NOT_IMPLEMENTED there, as the official emulator does (its
        # sign-in pages are its own); any other 5xx of it is still a finding.
        printf '%s\n' '[[operations]]' 'include-path-regex = "createAuthUri"' \
            'checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "501"]' >"$dir/schemathesis.toml"
    else
        auth="X-Goog-Api-Key: $(sed -n 's/^ *API key: *\([^ ]*\).*/\1/p' "$log")"
    fi
    echo "== schemathesis against $url ($mode mode, seed $seed, $examples examples)"
    # Bounded as a whole too (a quick run takes a minute or two), so a stuck run fails instead of using up CI's time.
    (cd "$dir" && timeout "${FUZZ_TIMEOUT:-900}" schemathesis run "$url/openapi.json" --header "$auth" --checks "$checks" \
        --max-examples "$examples" --seed "$seed" --workers 2 --generation-database none \
        --max-response-time 10 --request-timeout 30 --suppress-health-check all --warnings off \
        --report junit --report-dir "$dir/report") || status=$?
    if ! curl -sf --max-time 10 "$url/" >/dev/null; then echo "flint stopped answering after the fuzzing" >&2; status=1; fi
    kill -TERM "$pid"
    # A clean exit takes a moment; one that does not come within 30 s is a finding, and the server is killed.
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        echo "flint did not exit within 30 s of SIGTERM after the fuzzing; its log: $log" >&2
        kill -KILL "$pid"; status=1
    fi
    wait "$pid" || { echo "flint did not exit cleanly after the fuzzing (status $?); its log: $log" >&2; status=1; }
    [ "$status" = 0 ] && rm -rf "$dir"
    return "$status"
}

fuzz production
fuzz emulator
