#!/usr/bin/env python3
"""Does Flint stay flat as its user count grows? Loads users in bulk and measures lookup, refresh and a password-free
sign-in (custom token) at each size, with wrk on 127.0.0.1, then prints one table and writes an SVG of p50 latency
against the user count.

Usage:
  Benchmarks/scale.py --flint .build-release/release/flint [--sizes 1000,100000,1000000]
                      [--database-url postgres://…] [--seconds 5] [--connections 32] [--out DIR]

The server runs in emulator mode (so the admin import needs no service account and custom tokens need no key), on
a fresh data directory, or on the PostgreSQL database given (which should be empty: users are added to it). Users
are imported through `accounts:batchCreate`, 1,000 a call, not one request each. At each size:
  lookup   accounts:lookup with one user's ID token (the signature check is cached after the first call);
  refresh  securetoken with one user's refresh token (one RS256 signature each);
  sign-in  signInWithCustomToken for a random imported user each request (a primary-key read, a session written
           and an ID token signed: the password-free sign-in).
CPU µs is the server's user plus system CPU time (/proc/PID/stat) over a run divided by the requests wrk completed
in it: what one operation costs the server, whatever the machine's load. RSS is the server's after each size's runs. Everything stops by itself; wrk runs `--seconds` per scenario.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

HOST = "127.0.0.1"
PROJECT = "demo-flint"
BATCH = 1000


def post(port, path, body, headers=None):
    request = urllib.request.Request(
        f"http://{HOST}:{port}{path}", data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


def start_server(flint, data_dir, database_url):
    command = [flint, "serve", "--emulator", "--host", HOST, "--port", "0", "--data-dir", data_dir,
               "--management-port", "0"]
    if database_url:
        command += ["--database-url", database_url]
    log = open(os.path.join(data_dir, "server.log"), "w")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                               env={**os.environ, "FLINT_SIGNUPS_PER_IP_PER_HOUR": "1000000000"})
    deadline = time.time() + 60
    while time.time() < deadline:
        if process.poll() is not None:
            sys.exit("flint serve exited: " + open(log.name).read()[-2000:])
        match = re.search(r"Flint is listening on http://127\.0\.0\.1:(\d+)", open(log.name).read())
        if match:
            return process, int(match.group(1))
        time.sleep(0.1)
    process.kill()
    sys.exit("flint serve did not report its port within 60 s")


def stop_servers(servers):
    """SIGTERM to every server, then waits for each (up to 30 s; then it is killed)."""
    for server in servers:
        server.send_signal(signal.SIGTERM)
    for server in servers:
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def import_users(port, first, last):
    """Imports users u<first> … u<last - 1> in batches."""
    for start in range(first, last, BATCH):
        users = [{"localId": f"u{i}", "email": f"u{i}@scale.test", "displayName": f"User {i}"}
                 for i in range(start, min(start + BATCH, last))]
        answer = post(port, f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchCreate",
                      {"users": users}, {"Authorization": "Bearer owner"})
        if answer.get("error"):
            sys.exit(f"import failed at {start}: {str(answer['error'])[:300]}")


def wrk(port, path, lua, seconds, connections):
    """Runs wrk with a Lua script; returns (requests per second, p50 ms, p99 ms, non-200 count, requests)."""
    output = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", lua, f"http://{HOST}:{port}{path}"],
        capture_output=True, text=True, timeout=seconds + 60).stdout

    def milliseconds(label):
        match = re.search(rf"^\s+{label}%\s+([\d.]+)(us|ms|s)\s*$", output, re.M)
        if not match:
            return float("nan")
        value, unit = float(match.group(1)), match.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    bad = re.search(r"FLINT_NON200 (\d+)", output)
    requests = re.search(r"^\s+(\d+) requests in", output, re.M)
    return (float(rate.group(1)) if rate else 0.0, milliseconds("50"), milliseconds("99"),
            int(bad.group(1)) if bad else -1, int(requests.group(1)) if requests else 0)


LUA_COUNT = """
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) non200 = 0 end
function response(status, headers, body) if status ~= 200 then non200 = non200 + 1 end end
function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + (t:get("non200") or 0) end
  io.write(string.format("FLINT_NON200 %d\\n", total))
end
"""


def lua_file(directory, name, body, request_function=""):
    path = os.path.join(directory, name + ".lua")
    with open(path, "w") as file:
        file.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
        file.write("wrk.body = " + json.dumps(json.dumps(body)) + "\n")
        file.write(LUA_COUNT + request_function)
    return path


def cpu_seconds(pid):
    """User plus system CPU time of a process so far (0 once it is gone); the other benchmarks share it."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (FileNotFoundError, ProcessLookupError):
        return 0.0


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def svg(rows, path):
    """p50 latency (ms) of each scenario against the user count (log scale), as a small SVG line chart."""
    width, height, left, bottom = 640, 320, 60, 40
    sizes = [row["users"] for row in rows]
    scenarios = ["lookup", "refresh", "sign-in"]
    colours = {"lookup": "#0969da", "refresh": "#1a7f37", "sign-in": "#cf222e"}
    top = max(max(row[s]["p50"] for s in scenarios) for row in rows) * 1.2 or 1
    import math
    low, high = math.log10(min(sizes)), math.log10(max(sizes)) if max(sizes) > min(sizes) else math.log10(min(sizes)) + 1

    def x(users):
        return left + (math.log10(users) - low) / (high - low) * (width - left - 70)

    def y(value):
        return height - bottom - value / top * (height - bottom - 20)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - 20}" y2="{height - bottom}" stroke="#888"/>',
             f'<line x1="{left}" y1="20" x2="{left}" y2="{height - bottom}" stroke="#888"/>',
             f'<text x="{left - 6}" y="24" text-anchor="end">{top:.1f} ms</text>',
             f'<text x="{left - 6}" y="{height - bottom}" text-anchor="end">0</text>']
    for users in sizes:
        parts.append(f'<text x="{x(users):.1f}" y="{height - bottom + 16}" text-anchor="middle">{users:,} users</text>')
    for index, scenario in enumerate(scenarios):
        points = " ".join(f"{x(row['users']):.1f},{y(row[scenario]['p50']):.1f}" for row in rows)
        parts.append(f'<polyline fill="none" stroke="{colours[scenario]}" stroke-width="2" points="{points}"/>')
        parts.append(f'<text x="{width - 150}" y="{30 + 14 * index}" fill="{colours[scenario]}">{scenario} p50</text>')
    parts.append("</svg>")
    with open(path, "w") as file:
        file.write("\n".join(parts) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flint", required=True)
    parser.add_argument("--sizes", default="1000,100000,1000000")
    parser.add_argument("--database-url")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--out", help="folder for the SVG and the JSON results (default: a temporary one)")
    arguments = parser.parse_args()
    sizes = sorted(int(size) for size in arguments.sizes.split(","))
    if not shutil.which("wrk"):
        sys.exit("wrk is required (Debian: apt-get install wrk)")
    work = tempfile.mkdtemp(prefix="flint-scale-")
    out = arguments.out or work
    os.makedirs(out, exist_ok=True)
    server, port = start_server(arguments.flint, work, arguments.database_url)
    rows = []
    try:
        user = post(port, "/v1/accounts:signUp?key=fake", {"returnSecureToken": True})
        lookup = lua_file(work, "lookup", {"idToken": user["idToken"]})
        refresh = lua_file(work, "refresh", {"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
        loaded = 0
        for size in sizes:
            started = time.time()
            import_users(port, loaded, size)
            import_seconds = time.time() - started
            sign_in = lua_file(work, f"sign-in-{size}", {}, """
math.randomseed(os.time())
function request()
  local uid = "u" .. math.random(0, %d)
  return wrk.format(nil, nil, nil, '{"token":"{\\\\"uid\\\\":\\\\"' .. uid .. '\\\\"}","returnSecureToken":true}')
end
""" % (size - 1))
            row = {"users": size, "import_s": round(import_seconds, 1),
                   "import_per_s": round((size - loaded) / import_seconds) if import_seconds > 0 else None}
            for name, path, lua in [("lookup", "/v1/accounts:lookup?key=fake", lookup),
                                    ("refresh", "/securetoken.googleapis.com/v1/token?key=fake", refresh),
                                    ("sign-in", "/v1/accounts:signInWithCustomToken?key=fake", sign_in)]:
                cpu_before = cpu_seconds(server.pid)
                rate, p50, p99, bad, requests = wrk(port, path, lua, arguments.seconds, arguments.connections)
                cpu_us = (cpu_seconds(server.pid) - cpu_before) / requests * 1e6 if requests else float("nan")
                row[name] = {"rps": round(rate), "p50": p50, "p99": p99, "cpu_us": round(cpu_us), "non200": bad}
            row["rss_mb"] = round(rss_mb(server.pid), 1)
            rows.append(row)
            loaded = size
            print(json.dumps(row), flush=True)
    finally:
        stop_servers([server])
    print()
    print(f"{'users':>10}  {'import/s':>9}  " + "  ".join(f"{s + ' req/s':>15} {'p50 ms':>7} {'p99 ms':>7} {'CPU µs':>7}"
                                                        for s in ["lookup", "refresh", "sign-in"]) + f"  {'RSS MB':>7}")
    for row in rows:
        print(f"{row['users']:>10,}  {row['import_per_s'] or 0:>9,}  " + "  ".join(
            f"{row[s]['rps']:>15,} {row[s]['p50']:>7.2f} {row[s]['p99']:>7.2f} {row[s]['cpu_us']:>7}"
            for s in ["lookup", "refresh", "sign-in"]) + f"  {row['rss_mb']:>7.1f}")
    bad = [(row["users"], s) for row in rows for s in ["lookup", "refresh", "sign-in"] if row[s]["non200"] != 0]
    if bad:
        print("answers other than 200 in:", bad)
    with open(os.path.join(out, "scale.json"), "w") as file:
        json.dump(rows, file, indent=1)
    svg(rows, os.path.join(out, "scale-p50.svg"))
    print(f"\nwrote {out}/scale.json and {out}/scale-p50.svg")
    if not arguments.out:
        print(f"(data folder {work} kept for inspection; delete it when done)")


if __name__ == "__main__":
    main()
