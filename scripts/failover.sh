#!/usr/bin/env bash
# A PostgreSQL primary failover under load, by hand (too heavy for CI): etcd and two PostgreSQL 15 servers under
# Patroni on loopback with synchronous replication (an acknowledged commit is on both), two `flint serve` nodes on the
# multi-host URL (target_session_attrs=read-write), sign-up and refresh load on both; then the primary is killed hard
# (SIGKILL to its Patroni, its postmaster and every backend, as a machine that dies). scripts/failover.py drives the
# load and prints the outage window per node and "acknowledged writes lost: N"; it exits non-zero when N > 0 or
# service did not come back within 15 s. Everything runs in a temporary folder and stops on exit.
#   scripts/failover.sh             # FLINT_BIN=path/to/flint to use another binary than the release build
# Installs what is missing: apt-get install patroni etcd-server etcd-client postgresql-15.
set -euo pipefail
cd "$(dirname "$0")/.."
FLINT_BIN="${FLINT_BIN:-/work/.build-release/release/flint}"
[ -x "$FLINT_BIN" ] || { echo "no flint binary at $FLINT_BIN (swift build --package-path Server -c release --product flint, or set FLINT_BIN)" >&2; exit 1; }

missing=()
command -v patroni >/dev/null || missing+=(patroni)
command -v etcd >/dev/null || missing+=(etcd-server)
command -v etcdctl >/dev/null || missing+=(etcd-client)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql-15)
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "missing: ${missing[*]} (apt-get install them)" >&2; exit 1; }
    apt-get install -y "${missing[@]}" >/dev/null
fi
PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"

# PostgreSQL refuses to run as root: as root, Patroni (and the servers it starts) runs as postgres, in a folder it owns.
WORK="$(mktemp -d /tmp/flint-failover-XXXXXX)"
if [ "$(id -u)" = 0 ]; then
    chown postgres:postgres "$WORK"
    AS_POSTGRES=(setpriv --reuid postgres --regid postgres --init-groups --)
else
    AS_POSTGRES=()
fi
chmod 0755 "$WORK"
# A command, not a shell function: started with `&`, its pid ($!) is then the server's own (setpriv execs it), which
# the failover must kill; a function would run in a subshell of its own, and killing that leaves the server running.
as_postgres() { "${AS_POSTGRES[@]}" "$@"; }

PIDS=()
cleanup() {
    local pid
    for pid in $(cat "$WORK"/flint*.pid 2>/dev/null) "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    sleep 1
    for node in 1 2; do
        [ -s "$WORK/node$node/data/postmaster.pid" ] && as_postgres "$PGBIN/pg_ctl" -D "$WORK/node$node/data" -m immediate stop >/dev/null 2>&1 || true
    done
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    # A server killed a moment ago may still be writing its files.
    [ -n "${KEEP_FAILOVER_DIR:-}" ] || rm -rf "$WORK" 2>/dev/null || { sleep 2; rm -rf "$WORK"; }
}
trap cleanup EXIT INT TERM

ETCD_PORT=23790
as_postgres mkdir -p "$WORK/etcd"
"${AS_POSTGRES[@]}" etcd --name failover --data-dir "$WORK/etcd" --log-level error \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls http://127.0.0.1:23800 --initial-advertise-peer-urls http://127.0.0.1:23800 \
    --initial-cluster failover=http://127.0.0.1:23800 >"$WORK/etcd.log" 2>&1 &
PIDS+=($!)

for node in 1 2; do
    pg_port=$((25431 + node)); api_port=$((28007 + node))
    as_postgres mkdir -p "$WORK/node$node"
    # ttl 8 s, loop 1 s: the leader key of a dead primary expires within 8 s (Patroni's default is 30 s).
    as_postgres tee "$WORK/node$node/patroni.yml" >/dev/null <<EOF
scope: flint-failover
name: node$node
restapi:
  listen: 127.0.0.1:$api_port
  connect_address: 127.0.0.1:$api_port
etcd3:
  hosts: 127.0.0.1:$ETCD_PORT
bootstrap:
  dcs:
    ttl: 8
    loop_wait: 1
    retry_timeout: 3
    synchronous_mode: true
    postgresql:
      use_pg_rewind: false
      parameters:
        max_connections: 100
        wal_keep_size: 128MB
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$pg_port
  connect_address: 127.0.0.1:$pg_port
  data_dir: $WORK/node$node/data
  bin_dir: $PGBIN
  pgpass: $WORK/node$node/pgpass
  authentication:
    superuser: {username: postgres, password: postgres}
    replication: {username: replicator, password: replicator}
  parameters:
    unix_socket_directories: $WORK/node$node
EOF
    "${AS_POSTGRES[@]}" patroni "$WORK/node$node/patroni.yml" >"$WORK/node$node/patroni.log" 2>&1 &
    PIDS+=($!)
    echo "$!" >"$WORK/node$node/patroni.pid"
    [ "$node" = 1 ] && sleep 3   # node 1 bootstraps the cluster; node 2 then copies it
done

FLINT_BIN="$FLINT_BIN" PG_BIN="$PGBIN" /usr/bin/python3 scripts/failover.py "$WORK"
