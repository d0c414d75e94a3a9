#!/usr/bin/env bash
# Starts (or stops) a private PostgreSQL server for the test suite: its own data folder (in /tmp, which the
# postgres user can always reach, unlike some checkout locations), listening on 127.0.0.1 only, no systemd.
# Prints the database URL the tests use.
#   scripts/postgres.sh start   # idempotent
#   scripts/postgres.sh stop
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${FLINT_TEST_PG_PORT:-15432}"   # below the ephemeral range, so no client socket can hold it
ROOT="${FLINT_TEST_PG_DIR:-/tmp/flint-test-pg-$PORT}"
PGBIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$PGBIN/initdb" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "${1:-start}" in
start)
    if [ ! -s "$ROOT/data/PG_VERSION" ]; then
        rm -rf "$ROOT"; mkdir -p "$ROOT"
        [ "$(id -u)" = 0 ] && chown postgres:postgres "$ROOT"
        as_postgres "$PGBIN/initdb" -D "$ROOT/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
    fi
    # Scratch databases live for one test: no autovacuum, whose workers would block DROP DATABASE … FORCE.
    if ! as_postgres "$PGBIN/pg_ctl" -D "$ROOT/data" status >/dev/null 2>&1; then
        as_postgres "$PGBIN/pg_ctl" -D "$ROOT/data" -l "$ROOT/server.log" -w \
            -o "-c listen_addresses=127.0.0.1 -p $PORT -k $ROOT -c max_connections=300 -c fsync=off -c autovacuum=off" start >/dev/null
    fi
    psql_() { as_postgres psql -h "$ROOT" -p "$PORT" -U postgres -tAc "$1"; }
    [ "$(psql_ "SELECT 1 FROM pg_roles WHERE rolname='flint'")" = 1 ] || psql_ "CREATE ROLE flint LOGIN CREATEDB PASSWORD 'flint'" >/dev/null
    [ "$(psql_ "SELECT 1 FROM pg_database WHERE datname='flint'")" = 1 ] || psql_ "CREATE DATABASE flint OWNER flint" >/dev/null
    echo "postgres://flint:flint@127.0.0.1:$PORT/flint"
    ;;
stop)
    as_postgres "$PGBIN/pg_ctl" -D "$ROOT/data" -m fast stop >/dev/null 2>&1 || true
    ;;
esac
