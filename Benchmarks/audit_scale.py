#!/usr/bin/env python3
"""Does reading the audit trail stay in milliseconds at a million events? Fills `audit_events` with synthetic events
in bulk, then times the admin API's pages (a user's timeline, a page deep in, the project's filtered pages) and shows
the query plan of each shape.

Usage:
  Benchmarks/audit_scale.py --flint .build-release/release/flint [--events 1000000] [--users 10000]
                            [--addresses 300] [--days 90] [--requests 50] [--database-url postgres://…/flint]
                            [--out DIR]

What it does:
  1. Starts `flint serve --emulator` once on a fresh data directory (or, with --database-url, on a new database
     `flint_audit_bench_<pid>` made on that server and dropped at the end), so the migrations make the tables and
     the project; signs one user up, checks the admin API answers, and stops the server.
  2. Inserts the events in one transaction, without the server: with Python's sqlite3 into flint.sqlite, or with
     `COPY … FROM STDIN` through psql (then ANALYZE, as autovacuum would have by the time a table had grown so).
     The rows are as the server writes them: IDs in time order over the last `--days` days; ~`--users` users
     whose activity is skewed (a few very active, most quiet), each mostly from one home address of a few hundred
     shared ones; a mix of types led by sign-ins; failed sign-ins mostly from a handful of addresses stuffing
     credentials, half naming no user; an admin's configuration changes now and then.
  3. Restarts the server and times each query, `--requests` times over one keep-alive connection (after one
     unmeasured request), as the wall time from the request to the whole answer; median and p95 in ms. Then prints
     `EXPLAIN QUERY PLAN` (SQLite) or `EXPLAIN ANALYZE` (PostgreSQL) of the SQL the store runs for each shape, with
     the values inlined, so one can see which index each one takes.

The admin API is called as in emulator mode (`Authorization: Bearer owner`): the same route and the same store query
as with a service account, without the OAuth exchange in front. Everything stops by itself; the data directory is
kept (its path is printed) for inspection unless --out names where to write the results only.
"""

import argparse
import bisect
import csv
import http.client
import io
import itertools
import json
import os
import random
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from datetime import datetime, timezone

HOST = "127.0.0.1"
PROJECT = "demo-flint"
DAY_MS = 86_400_000
COLUMNS = ["realm", "time", "type", "local_id", "session_id", "ip_address", "user_agent", "principal", "operation",
           "fields", "detail"]

# (type, weight, operation, principal, detail): what one event of each kind looks like.
USER_EVENTS = [
    ("signIn", 40, "POST /v1/accounts:signInWithPassword", "user", None),
    ("signOut", 6, "POST /v1/accounts:signOut", "user", None),
    ("sessionEnded", 4, "DELETE /v1/accounts/sessions/{session}", "user", None),
    ("refreshRefused", 3, "POST /v1/token", "user", {"reason": "TOKEN_EXPIRED"}),
    ("secondFactorRequired", 3, "POST /v1/accounts:signInWithPassword", "user", None),
    ("actionCodeSent", 5, "POST /v1/accounts:sendOobCode", "user", {"requestType": "PASSWORD_RESET"}),
    ("emailVerified", 2, "POST /v1/accounts:update", "user", None),
    ("passwordChanged", 2, "POST /v1/accounts:update", "user", None),
    ("profileChanged", 8, "POST /v1/accounts:update", "user", None),
    ("providerLinked", 1, "POST /v1/accounts:signInWithIdp", "user", None),
    ("claimsChanged", 2, "POST /v1/projects/{project}/accounts:update", "serviceAccount:k1", None),
    ("budgetRefused", 2, "POST /v1/accounts:sendOobCode", "user", {"budget": "emailsPerAddress"}),
]
FAILED = ("signInFailed", "POST /v1/accounts:signInWithPassword", "user")
FAILED_SHARE = 0.12     # of all events
CONFIG_SHARE = 0.0005   # configChanged by an admin, no user
ATTACKERS = 5           # addresses that send most failed sign-ins
USER_AGENTS = ["Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15",
               "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36",
               "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
               "Mozilla/5.0 (Linux; Android 15) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36",
               "okhttp/4.12.0", "python-requests/2.32.3"]


def synthetic_events(count, users, addresses, days, seed=46):
    """Yields `count` rows (tuples in COLUMNS order), the oldest first."""
    rng = random.Random(seed)
    now = int(time.time() * 1000)
    start = now - days * DAY_MS
    times = sorted(rng.randrange(start, now) for _ in range(count))
    pool = [f"203.0.{i // 250}.{i % 250 + 1}" for i in range(addresses)]
    address_weights = [1 / (rank + 1) for rank in range(addresses)]          # Zipf: a few offices, many homes
    attackers = [f"198.51.100.{i + 7}" for i in range(ATTACKERS)]
    homes = rng.choices(pool, weights=address_weights, k=users)
    user_weights = [rng.lognormvariate(0, 1.1) for _ in range(users)]      # a few very active users, most quiet
    user_cumulative = list(itertools.accumulate(user_weights))
    kind_cumulative = list(itertools.accumulate(kind[1] for kind in USER_EVENTS))
    for index, moment in enumerate(times):
        roll = rng.random()
        user = bisect.bisect(user_cumulative, rng.random() * user_cumulative[-1])
        local_id = f"u{user:05d}"
        address = homes[user] if rng.random() < 0.8 else rng.choices(pool, weights=address_weights)[0]
        agent = USER_AGENTS[user % len(USER_AGENTS)]
        session = f"s{rng.getrandbits(96):024x}"
        if roll < CONFIG_SHARE:
            yield (PROJECT, moment, "configChanged", None, None, pool[0], USER_AGENTS[0], "console:owner",
                   "PATCH /admin/v2/projects/{project}/config", json.dumps(["signIn.email"]), None)
        elif roll < CONFIG_SHARE + FAILED_SHARE:
            if rng.random() < 0.7:                                            # stuffing: random or unknown users
                address, agent = rng.choice(attackers), USER_AGENTS[-1]
                local_id = local_id if rng.random() < 0.5 else None
            reason = "INVALID_PASSWORD" if local_id else "EMAIL_NOT_FOUND"
            yield (PROJECT, moment, FAILED[0], local_id, None, address, agent, FAILED[2], FAILED[1], None,
                   json.dumps({"method": "password", "reason": reason}))
        else:
            kind = USER_EVENTS[bisect.bisect(kind_cumulative, rng.random() * kind_cumulative[-1])]
            yield (PROJECT, moment, kind[0], local_id, session if kind[0] in ("signIn", "signOut", "sessionEnded")
                   else None, address, agent, kind[3], kind[2],
                   json.dumps(["customAttributes"]) if kind[0] == "claimsChanged" else None,
                   json.dumps(kind[4]) if kind[4] else None)


# --- the server ------------------------------------------------------------------------------------------------------

def start_server(flint, data_dir, database_url):
    command = [flint, "serve", "--emulator", "--host", HOST, "--port", "0", "--data-dir", data_dir,
               "--management-port", "0"]
    if database_url:
        command += ["--database-url", database_url]
    log = open(os.path.join(data_dir, "server.log"), "a")
    offset = log.tell()
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 120
    while time.time() < deadline:
        text = open(log.name).read()[offset:]
        if process.poll() is not None:
            sys.exit("flint serve exited: " + text[-2000:])
        match = re.search(r"Flint is listening on http://127\.0\.0\.1:(\d+)", text)
        if match:
            return process, int(match.group(1))
        time.sleep(0.1)
    process.kill()
    sys.exit("flint serve did not report its port within 120 s")


def stop_server(server):
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def post(port, path, body):
    request = urllib.request.Request(f"http://{HOST}:{port}{path}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


def audit_path(query):
    return f"/v2/projects/{PROJECT}/auditEvents" + ("?" + urllib.parse.urlencode(query) if query else "")


class Admin:
    """One keep-alive connection to the admin API."""

    def __init__(self, port):
        self.connection = http.client.HTTPConnection(HOST, port, timeout=120)

    def get(self, query):
        self.connection.request("GET", audit_path(query), headers={"Authorization": "Bearer owner"})
        answer = self.connection.getresponse()
        body = answer.read()
        if answer.status != 200:
            sys.exit(f"GET {audit_path(query)} answered {answer.status}: {body[:300]!r}")
        return json.loads(body)

    def timed(self, query, requests):
        """(median ms, p95 ms, events on the page) of `requests` requests, after one unmeasured one."""
        events = len(self.get(query).get("events", []))
        times = []
        for _ in range(requests):
            started = time.perf_counter()
            self.get(query)
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        return statistics.median(times), times[min(len(times) - 1, round(0.95 * (len(times) - 1)))], events


# --- the store's query, as AuditStore.events(realm:_:before:limit:) builds it ----------------------------------------

def store_sql(query):
    """The SELECT the store runs for an API query (a page of the default 100, so LIMIT 101) and its values."""
    conditions, values = ["realm = ?"], [PROJECT]
    if query.get("localId"):
        conditions.append("local_id = ?"); values.append(query["localId"])
    if query.get("ipAddress"):
        conditions.append("ip_address = ?"); values.append(query["ipAddress"])
    if query.get("type"):
        types = query["type"].split(",")
        conditions.append(f"type IN ({', '.join('?' for _ in types)})"); values += types
    if query.get("startTime"):
        conditions.append("time >= ?"); values.append(milliseconds(query["startTime"]))
    if query.get("endTime"):
        conditions.append("time < ?"); values.append(milliseconds(query["endTime"]))
    if query.get("pageToken"):
        # The page token is the last event's "<time>.<id>": pages run in (time, id) order, newest first.
        time_part, id_part = query["pageToken"].split(".")
        conditions.append("(time, id) < (?, ?)"); values += [int(time_part), int(id_part)]
    return (f"SELECT * FROM audit_events WHERE {' AND '.join(conditions)} ORDER BY time DESC, id DESC LIMIT ?",
            values + [101])


def inlined(sql, values):
    parts = sql.split("?")
    literal = lambda value: str(value) if isinstance(value, int) else "'" + str(value).replace("'", "''") + "'"
    return "".join(part + (literal(values[i]) if i < len(values) else "") for i, part in enumerate(parts))


def rfc3339(ms):
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def milliseconds(text):
    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000)


# --- loading ---------------------------------------------------------------------------------------------------------

def load_sqlite(path, rows):
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA busy_timeout = 10000")
    connection.execute("BEGIN IMMEDIATE")
    connection.executemany(
        f"INSERT INTO audit_events ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)})", rows)
    connection.execute("COMMIT")
    connection.close()


def load_postgres(url, rows):
    """COPY in one transaction (COPY is one statement), then ANALYZE."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow(["\\N" if value is None else value for value in row])
    copy = f"COPY audit_events ({', '.join(COLUMNS)}) FROM STDIN WITH (FORMAT csv, NULL '\\N')"
    subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-c", copy], input=buffer.getvalue(), text=True,
                   check=True)
    psql(url, "ANALYZE audit_events")


def psql(url, sql):
    return subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql], capture_output=True, text=True,
                          check=True).stdout


def with_database(url, name):
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


# --- the run ---------------------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flint", required=True)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--addresses", type=int, default=300)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--database-url", help="a PostgreSQL server's URL: a new database is made on it, then dropped")
    parser.add_argument("--out", help="folder for audit_scale.json (default: the data directory)")
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="flint-audit-scale-")
    out = arguments.out or work
    os.makedirs(out, exist_ok=True)
    database_url = None
    if arguments.database_url:
        name = f"flint_audit_bench_{os.getpid()}"
        psql(arguments.database_url, f"CREATE DATABASE {name}")
        database_url = with_database(arguments.database_url, name)
    backend = "PostgreSQL" if database_url else "SQLite"
    try:
        run(arguments, work, out, database_url, backend)
    finally:
        if database_url:
            psql(arguments.database_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def run(arguments, work, out, database_url, backend):
    server, port = start_server(arguments.flint, work, database_url)
    try:
        post(port, "/v1/accounts:signUp?key=fake", {"returnSecureToken": True})
        Admin(port).get({"pageSize": "1"})
    finally:
        stop_server(server)

    # The rows, and what the queries pick from them.
    rows = list(synthetic_events(arguments.events, arguments.users, arguments.addresses, arguments.days))
    per_user, per_address = {}, {}
    for row in rows:
        per_user[row[3]] = per_user.get(row[3], 0) + 1
        per_address[row[5]] = per_address.get(row[5], 0) + 1
    per_user.pop(None, None)
    ranked_users = sorted(per_user, key=per_user.get, reverse=True)
    busiest, typical = ranked_users[0], ranked_users[len(ranked_users) // 2]
    ranked_addresses = sorted((a for a in per_address if a.startswith("203.")), key=per_address.get, reverse=True)
    address = ranked_addresses[len(ranked_addresses) // 10]
    attacker = "198.51.100.7"
    newest = rows[-1][1]
    week = {"startTime": rfc3339(newest - 60 * DAY_MS), "endTime": rfc3339(newest - 53 * DAY_MS)}

    started = time.time()
    (load_postgres if database_url else load_sqlite)(
        database_url or os.path.join(work, "flint.sqlite"), rows)
    load_seconds = time.time() - started
    total = len(rows)
    # IDs are given in insertion order from 1: the token of a page that ends at event total // 2.
    middle_token = f"{rows[total // 2 - 1][1]}.{total // 2}"
    del rows
    print(f"{backend}: inserted {total:,} events in {load_seconds:.1f} s; busiest user {busiest} "
          f"({per_user[busiest]:,} events), typical {typical} ({per_user[typical]}), address {address} "
          f"({per_address[address]:,}), attacker {attacker} ({per_address[attacker]:,})", flush=True)

    server, port = start_server(arguments.flint, work, database_url)
    results = []
    try:
        admin = Admin(port)

        def token_at(query, depth):
            """The page token `depth` events into `query`'s pages (by walking pages of 1000 there)."""
            token, seen = None, 0
            while seen < depth:
                page = admin.get({**query, "pageSize": str(min(1000, depth - seen)),
                                  **({"pageToken": token} if token else {})})
                token, seen = page.get("nextPageToken"), seen + len(page["events"])
                if not token:
                    break
            return token

        deep_user = token_at({"localId": busiest}, per_user[busiest] // 2)
        shapes = [
            ("project, first page", {}),
            (f"project, {total // 2:,} deep (pageToken)", {"pageToken": middle_token}),
            ("timeline, busiest user, first page", {"localId": busiest}),
            (f"timeline, busiest user, {per_user[busiest] // 2:,} deep (pageToken)",
             {"localId": busiest, "pageToken": deep_user}),
            ("timeline, typical user, first page", {"localId": typical}),
            ("type=signInFailed", {"type": "signInFailed"}),
            ("ipAddress (a home address)", {"ipAddress": address}),
            ("time range (the last day)", {"startTime": rfc3339(newest - DAY_MS), "endTime": rfc3339(newest + 1)}),
            ("time range (a week, 60 days ago)", week),
            ("type=signInFailed + attacker's ipAddress + that week", {"type": "signInFailed", "ipAddress": attacker, **week}),
            ("type=signInFailed + home ipAddress + that week", {"type": "signInFailed", "ipAddress": address, **week}),
            ("type=passwordChanged + home ipAddress + that week", {"type": "passwordChanged", "ipAddress": address, **week}),
            ("timeline, busiest user + type=signIn + that week", {"localId": busiest, "type": "signIn", **week}),
        ]
        for label, query in shapes:
            median, p95, events = admin.timed(query, arguments.requests)
            results.append({"shape": label, "query": query, "median_ms": round(median, 2), "p95_ms": round(p95, 2),
                            "events": events})
            print(json.dumps(results[-1]), flush=True)
    finally:
        stop_server(server)

    for result in results:
        sql, values = store_sql(result["query"])
        if database_url:
            plan = psql(database_url, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + inlined(sql, values))
            plan = [line for line in plan.splitlines() if line.strip()]
        else:
            connection = sqlite3.connect(f"file:{os.path.join(work, 'flint.sqlite')}?mode=ro", uri=True)
            plan = [row[3] for row in connection.execute("EXPLAIN QUERY PLAN " + sql, values)]
            connection.close()
        result["plan"] = plan

    print(f"\n{backend}, {total:,} events, {arguments.requests} requests each (ms, whole HTTP answer)")
    print(f"{'query':<58} {'median':>8} {'p95':>8} {'events':>7}")
    for result in results:
        print(f"{result['shape']:<58} {result['median_ms']:>8.2f} {result['p95_ms']:>8.2f} {result['events']:>7}")
    print("\nplans:")
    for result in results:
        print(f"  {result['shape']}:")
        for line in result["plan"]:
            print(f"      {line}")
    with open(os.path.join(out, f"audit_scale-{backend.lower()}.json"), "w") as file:
        json.dump({"backend": backend, "events": total, "load_s": round(load_seconds, 1), "results": results}, file,
                  indent=1)
    print(f"\nwrote {out}/audit_scale-{backend.lower()}.json; data directory {work} (delete it when done)")


if __name__ == "__main__":
    main()
