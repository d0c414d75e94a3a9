#!/usr/bin/env bash
# Starts (or stops) a private PostgreSQL server for the test suite: its own data folder (in /tmp, which the
# postgres user can always reach, unlike some checkout locations), listening on 127.0.0.1 only, no systemd.
# The server accepts TLS (ssl=on) with a certificate for localhost and 127.0.0.1, signed by a private CA made
# once with openssl; the CA's certificate is $ROOT/ca.pem, for tests that verify the server (sslmode=verify-full).
# Prints the database URL the tests use.
#   scripts/postgres.sh start   # idempotent; also gives an older data folder its certificates and turns TLS on
#   scripts/postgres.sh ca      # prints the path of the CA certificate
#   scripts/postgres.sh stop
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${FLINT_TEST_PG_PORT:-15432}"   # below the ephemeral range, so no client socket can hold it
ROOT="${FLINT_TEST_PG_DIR:-/tmp/flint-test-pg-$PORT}"
PGBIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$PGBIN/initdb" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# A CA and a server certificate it signs (ten years), made unless both are there. The server's files go into
# the data folder, where ssl=on looks for them; PostgreSQL refuses a key others can read.
NEW_CERTIFICATES=0
make_certificates() {
    [ -s "$ROOT/ca.pem" ] && [ -s "$ROOT/data/server.crt" ] && [ -s "$ROOT/data/server.key" ] && return
    NEW_CERTIFICATES=1
    local work; work="$(mktemp -d)"
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=Flint test CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
    printf '%s\n' "subjectAltName=DNS:localhost,IP:127.0.0.1" "basicConstraints=CA:FALSE" \
        "keyUsage=digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" >"$work/server.ext"
    openssl x509 -req -days 3650 -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -set_serial "0x$(openssl rand -hex 8)" \
        -extfile "$work/server.ext" -out "$work/server.crt" 2>/dev/null
    install -m 0600 "$work/server.key" "$ROOT/data/server.key"
    install -m 0644 "$work/server.crt" "$ROOT/data/server.crt"
    install -m 0644 "$work/ca.pem" "$ROOT/ca.pem"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$ROOT/data/server.key" "$ROOT/data/server.crt" "$ROOT/ca.pem"
    rm -rf "$work"   # the CA's key: nothing else is ever signed with it
}

case "${1:-start}" in
start)
    if [ ! -s "$ROOT/data/PG_VERSION" ]; then
        rm -rf "$ROOT"; mkdir -p "$ROOT"
        [ "$(id -u)" = 0 ] && chown postgres:postgres "$ROOT"
        as_postgres "$PGBIN/initdb" -D "$ROOT/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
    fi
    make_certificates
    # Scratch databases live for one test: no autovacuum, whose workers would block DROP DATABASE … FORCE.
    if ! as_postgres "$PGBIN/pg_ctl" -D "$ROOT/data" status >/dev/null 2>&1; then
        as_postgres "$PGBIN/pg_ctl" -D "$ROOT/data" -l "$ROOT/server.log" -w \
            -o "-c listen_addresses=127.0.0.1 -p $PORT -k $ROOT -c max_connections=300 -c fsync=off -c autovacuum=off" start >/dev/null
    fi
    psql_() { as_postgres psql -h "$ROOT" -p "$PORT" -U postgres -tAc "$1"; }
    # Through the configuration, not the start options, so a server already running turns TLS on (or takes new
    # certificates) on a reload, without a restart that would cut off a test run using it.
    if [ "$(psql_ "SHOW ssl")" != on ] || [ "$NEW_CERTIFICATES" = 1 ]; then
        psql_ "ALTER SYSTEM SET ssl = on" >/dev/null
        psql_ "SELECT pg_reload_conf()" >/dev/null
    fi
    tls_works() { as_postgres psql "host=127.0.0.1 port=$PORT user=postgres dbname=postgres sslmode=require" -tAc "SELECT 1" >/dev/null 2>&1; }
    for _ in $(seq 50); do tls_works && break; sleep 0.1; done
    tls_works || { echo "PostgreSQL does not accept TLS connections; see $ROOT/server.log" >&2; exit 1; }
    [ "$(psql_ "SELECT 1 FROM pg_roles WHERE rolname='flint'")" = 1 ] || psql_ "CREATE ROLE flint LOGIN CREATEDB PASSWORD 'flint'" >/dev/null
    [ "$(psql_ "SELECT 1 FROM pg_database WHERE datname='flint'")" = 1 ] || psql_ "CREATE DATABASE flint OWNER flint" >/dev/null
    echo "postgres://flint:flint@127.0.0.1:$PORT/flint"
    ;;
ca)
    echo "$ROOT/ca.pem"
    ;;
stop)
    as_postgres "$PGBIN/pg_ctl" -D "$ROOT/data" -m fast stop >/dev/null 2>&1 || true
    ;;
esac
