#!/usr/bin/env bash
# The floor's own benchmark: builds Benchmarks/floor in release, starts it on 127.0.0.1 (--port 0), drives each of
# its endpoints with wrk in interleaved rounds and prints, per endpoint, the server's CPU per request (user and
# kernel apart, from /proc/PID/stat) and context switches per request (/proc/PID/task/*/status), with
# `openssl speed -seconds 3 rsa2048`'s figures. What each endpoint contains: README.md beside this file.
#
# Usage:  Benchmarks/floor/run.sh
# Environment overrides:
#   DATABASE_URL=postgres://…  also measure /sign-insert-pg on that PostgreSQL (table floor_accounts)
#   FLOOR_BIN=path             use this floor binary instead of building
#   FLOOR_ENDPOINTS="…"         the endpoints to measure (default: root echo verify sign sign_insert [sign_insert_pg]);
#                              recipes by their parts, e.g. scrypt_sign_insert3 (README.md)
#   ROUNDS=3  SECONDS_PER_RUN=10  WARMUP_SECONDS=2  WRK_THREADS=2  WRK_CONNECTIONS=64
#   KEEP_DIR=path              copy raw wrk outputs, the server log and results.jsonl there
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
source "$ROOT/Benchmarks/lib/measure.sh"
source "$HERE/floor.sh"
ROUNDS="${ROUNDS:-3}"
SECONDS_PER_RUN="${SECONDS_PER_RUN:-10}"
WARMUP_SECONDS="${WARMUP_SECONDS:-2}"
WRK_CONNECTIONS="${WRK_CONNECTIONS:-64}"
KEEP_DIR="${KEEP_DIR:-}"
for value in "$ROUNDS" "$SECONDS_PER_RUN" "$WARMUP_SECONDS" "$WRK_CONNECTIONS"; do
    [[ "$value" =~ ^[0-9]+$ ]] || die "numeric settings must be whole numbers (got '$value')"
done
command -v python3 >/dev/null || die "python3 is required"
command -v curl >/dev/null || die "curl is required"
ensure_wrk

WORK="$(mktemp -d "${TMPDIR:-/tmp}/floor-bench.XXXXXX")"
cleanup() {
    local status=$?
    floor_stop
    if [[ -n "$KEEP_DIR" ]]; then
        mkdir -p "$KEEP_DIR"
        cp -r "$WORK/raw" "$WORK/floor.log" "$WORK/results.jsonl" "$KEEP_DIR/" 2>/dev/null || true
    fi
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$WORK/raw"
: > "$WORK/results.jsonl"

floor_build
floor_start "$WORK" "${DATABASE_URL:-}"
if (( WARMUP_SECONDS > 0 )); then
    log "warm-up: ${WARMUP_SECONDS}s per endpoint (not measured)"
    for endpoint in $FLOOR_ENDPOINTS; do floor_measure "$endpoint" warmup "$WARMUP_SECONDS" "$WRK_CONNECTIONS" /dev/null; done
fi
log "measuring: $ROUNDS rounds of ${SECONDS_PER_RUN}s per endpoint (wrk -t${WRK_THREADS:-2} -c$WRK_CONNECTIONS)"
for round in $(seq 1 "$ROUNDS"); do
    for endpoint in $FLOOR_ENDPOINTS; do
        floor_measure "$endpoint" "$round" "$SECONDS_PER_RUN" "$WRK_CONNECTIONS" "$WORK/results.jsonl"
    done
done
read -r SIGN_US VERIFY_US < <(openssl_rsa2048_speed)
floor_summary "$WORK/results.jsonl" "$SIGN_US" "$VERIFY_US"
