#!/usr/bin/env python3
"""Several Flint nodes on one PostgreSQL: throughput per node and where the CPU goes, to size a deployment.

Usage:
  Benchmarks/nodes.py --flint .build-release/release/flint --database-url postgres://… [--nodes 2] [--seconds 5]
                      [--connections 32] [--users 10000]

Starts `--nodes` emulator-mode nodes on the same (preferably empty) database, sharing one master key, imports
`--users` users, then runs each scenario of `scale.py` (lookup, refresh, custom-token sign-in) twice: against one
node with all connections, and against every node at once with the connections split between them (one wrk per
node, started together). For each run it reports requests per second per node and in total, and the CPU time
per request of the Flint nodes, of PostgreSQL (every process named `postgres` on this machine) and of wrk.
Those per-request costs are what a deployment multiplies by its peak rate to size Flint's and the database's
cores (see docs/production.md, "Sizing a deployment"). Everything targets 127.0.0.1 and stops by itself.
"""

import argparse
import base64
import json
import os
import secrets
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale import cpu_seconds, import_users, lua_file, post, start_server, stop_servers, wrk  # noqa: E402


def processes_named(name):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm") as comm:
                    if comm.read().strip() == name:
                        found.append(int(entry))
            except OSError:
                pass
    return found


def total_cpu(pids):
    return sum(cpu_seconds(pid) for pid in pids)


def run(ports, node_pids, path, lua, seconds, connections):
    """One wrk per port, together; returns per-node rates and CPU per request."""
    postgres = processes_named("postgres")
    per_node = max(1, connections // len(ports))
    results = [None] * len(ports)
    flint_before, postgres_before = total_cpu(node_pids), total_cpu(postgres)
    wrk_before = os.times()
    started = time.monotonic()

    def one(index):
        results[index] = wrk(ports[index], path, lua, seconds, per_node)
    threads = [threading.Thread(target=one, args=(index,)) for index in range(len(ports))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    wrk_after = os.times()
    flint_cpu = total_cpu(node_pids) - flint_before
    postgres_cpu = total_cpu(postgres) - postgres_before
    wrk_cpu = (wrk_after.children_user + wrk_after.children_system) - (wrk_before.children_user + wrk_before.children_system)
    rates = [result[0] for result in results]
    requests = sum(rates) * seconds
    return {"per_node": [round(rate) for rate in rates], "total": round(sum(rates)),
            "p50_ms": max(result[1] for result in results), "p99_ms": max(result[2] for result in results),
            "non200": sum(result[3] for result in results),
            "flint_us": round(flint_cpu / requests * 1e6) if requests else None,
            "postgres_us": round(postgres_cpu / requests * 1e6) if requests else None,
            "wrk_us": round(wrk_cpu / requests * 1e6) if requests else None,
            "flint_cores": round(flint_cpu / elapsed, 2), "postgres_cores": round(postgres_cpu / elapsed, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flint", required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--users", type=int, default=10000)
    arguments = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is required (Debian: apt-get install wrk)")
    os.environ["FLINT_MASTER_KEY"] = base64.b64encode(secrets.token_bytes(32)).decode()
    servers, ports = [], []
    try:
        for _ in range(arguments.nodes):
            server, port = start_server(arguments.flint, tempfile.mkdtemp(prefix="flint-node-"), arguments.database_url)
            servers.append(server)
            ports.append(port)
        pids = [server.pid for server in servers]
        work = tempfile.mkdtemp(prefix="flint-nodes-")
        user = post(ports[0], "/v1/accounts:signUp?key=fake", {"returnSecureToken": True})
        import_users(ports[0], 0, arguments.users)
        scenarios = [
            ("lookup", "/v1/accounts:lookup?key=fake", lua_file(work, "lookup", {"idToken": user["idToken"]})),
            ("refresh", "/securetoken.googleapis.com/v1/token?key=fake",
             lua_file(work, "refresh", {"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})),
            ("sign-in", "/v1/accounts:signInWithCustomToken?key=fake", lua_file(work, "sign-in", {}, """
math.randomseed(os.time())
function request()
  local uid = "u" .. math.random(0, %d)
  return wrk.format(nil, nil, nil, '{"token":"{\\\\"uid\\\\":\\\\"' .. uid .. '\\\\"}","returnSecureToken":true}')
end
""" % (arguments.users - 1))),
        ]
        rows = []
        for name, path, lua in scenarios:
            wrk(ports[0], path, lua, 1, arguments.connections)  # warm-up, not counted
            for count in (1, arguments.nodes):
                row = {"scenario": name, "nodes": count,
                       **run(ports[:count], pids[:count], path, lua, arguments.seconds, arguments.connections)}
                rows.append(row)
                print(json.dumps(row), flush=True)
        print()
        print(f"{'scenario':<9}{'nodes':>6}{'req/s total':>13}{'req/s per node':>22}{'p50 ms':>8}{'p99 ms':>8}"
              f"{'Flint µs/req':>14}{'PG µs/req':>11}{'wrk µs/req':>12}{'Flint cores':>13}{'PG cores':>10}")
        for row in rows:
            per_node = " / ".join(f"{rate:,}" for rate in row["per_node"])
            print(f"{row['scenario']:<9}{row['nodes']:>6}{row['total']:>13,}{per_node:>22}{row['p50_ms']:>8.2f}"
                  f"{row['p99_ms']:>8.2f}{row['flint_us']:>14}{row['postgres_us']:>11}{row['wrk_us']:>12}"
                  f"{row['flint_cores']:>13.2f}{row['postgres_cores']:>10.2f}")
        if any(row["non200"] for row in rows):
            print("answers other than 200:", [(row["scenario"], row["nodes"], row["non200"]) for row in rows if row["non200"]])
        print("\nCores for a peak rate R (requests/s) of one scenario: Flint R × Flint µs/req / 1e6, "
              "PostgreSQL R × PG µs/req / 1e6.")
    finally:
        stop_servers(servers)


if __name__ == "__main__":
    main()
