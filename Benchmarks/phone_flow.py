#!/usr/bin/env python3
"""Phone sign-in as an emulator user runs it: send a code, read it from the emulator's code listing, sign in.
Prints sign-ins per second, the flow's p50/p99, and the server's CPU per sign-in (which does not depend on this
client's own speed).

Usage:
  Benchmarks/phone_flow.py --flint .build-release/release/flint [--seconds 10] [--connections 64] [--processes 2]
  Benchmarks/phone_flow.py --url http://127.0.0.1:9099 --pid PID      # a server that is already running

Each connection is one keep-alive HTTP/1.1 connection that repeats the three requests with a new phone number each
time (+1 555 then run, process, connection and a 3-digit count), so every sign-in creates a user as a first sign-in
does, until a connection's count passes 999 (or a run against the same server repeats) and numbers sign in again. The server runs in emulator mode on a fresh data
directory (or `--database-url`). Everything targets 127.0.0.1 and stops after `--seconds`.
"""

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale import HOST, PROJECT, cpu_seconds, start_server, stop_servers  # noqa: E402


class Connection:
    """A minimal keep-alive HTTP/1.1 client: enough for JSON requests with Content-Length answers."""

    def __init__(self, port):
        self.port = port

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port)

    async def call(self, method, path, body=None):
        payload = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(payload)}\r\n\r\n").encode()
        self.writer.write(head + payload)
        header = await self.reader.readuntil(b"\r\n\r\n")
        status = int(header.split(b" ", 2)[1])
        length = 0
        for line in header.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        data = await self.reader.readexactly(length)
        if status != 200:
            raise RuntimeError(f"{method} {path}: {status} {data[:200]!r}")
        return json.loads(data)


async def worker(port, prefix, deadline, latencies):
    connection = Connection(port)
    await connection.open()
    count = 0
    while time.monotonic() < deadline:
        phone = f"+1555{prefix}{count % 1000:03d}"
        started = time.monotonic()
        sent = await connection.call("POST", "/v1/accounts:sendVerificationCode?key=fake", {"phoneNumber": phone})
        listing = await connection.call("GET", f"/emulator/v1/projects/{PROJECT}/verificationCodes")
        code = next(entry["code"] for entry in listing["verificationCodes"] if entry["sessionInfo"] == sent["sessionInfo"])
        signed_in = await connection.call("POST", "/v1/accounts:signInWithPhoneNumber?key=fake",
                                          {"sessionInfo": sent["sessionInfo"], "code": code})
        if not signed_in.get("idToken"):
            raise RuntimeError("no idToken in " + json.dumps(signed_in)[:200])
        latencies.append(time.monotonic() - started)
        count += 1
    connection.writer.close()


def run_process(port, connections, prefix, seconds, queue):
    async def main():
        deadline = time.monotonic() + seconds
        latencies = []
        await asyncio.gather(*(worker(port, f"{prefix}{index:02d}", deadline, latencies)
                               for index in range(connections)))
        return latencies
    started = time.process_time()
    latencies = asyncio.run(main())
    queue.put((latencies, time.process_time() - started))


def measure(port, pid, seconds, connections, processes, run):
    """Runs the flow for `seconds` from `processes` client processes; returns the figures."""
    queue = multiprocessing.Queue()
    per_process = max(1, connections // processes)
    cpu_before = cpu_seconds(pid)
    started = time.monotonic()
    workers = [multiprocessing.Process(target=run_process, args=(
        port, per_process, f"{run}{index}", seconds, queue)) for index in range(processes)]
    for process in workers:
        process.start()
    results = [queue.get(timeout=seconds + 120) for _ in workers]
    for process in workers:
        process.join()
    elapsed = time.monotonic() - started
    server_cpu = cpu_seconds(pid) - cpu_before
    latencies = sorted(latency for result, _ in results for latency in result)
    client_cpu = sum(cpu for _, cpu in results)
    count = len(latencies)

    def percentile(p):
        return latencies[min(count - 1, int(p / 100 * count))] * 1000 if count else float("nan")
    return {"sign_ins": count, "per_second": round(count / elapsed, 1), "p50_ms": round(percentile(50), 2),
            "p99_ms": round(percentile(99), 2), "server_cpu_ms_per_sign_in": round(server_cpu / count * 1000, 3),
            "server_cores": round(server_cpu / elapsed, 2), "client_cores": round(client_cpu / elapsed, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flint", help="the flint binary to start (emulator mode, fresh data directory)")
    parser.add_argument("--url", help="a running server instead, e.g. http://127.0.0.1:9099 (needs --pid)")
    parser.add_argument("--pid", type=int, help="the running server's process id, for its CPU time")
    parser.add_argument("--database-url")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--processes", type=int, default=2)
    arguments = parser.parse_args()
    server = None
    if arguments.url:
        if not arguments.pid:
            sys.exit("--url needs --pid")
        port, pid = int(arguments.url.rsplit(":", 1)[1].strip("/")), arguments.pid
    elif arguments.flint:
        work = tempfile.mkdtemp(prefix="flint-phone-")
        server, port = start_server(arguments.flint, work, arguments.database_url)
        pid = server.pid
    else:
        sys.exit("give --flint or --url and --pid")
    try:
        if not (1 <= arguments.processes <= 9 and arguments.connections <= 99 * arguments.processes):
            sys.exit("at most 9 processes of 99 connections each")
        measure(port, pid, arguments.warmup, arguments.connections, arguments.processes, 0)
        figures = measure(port, pid, arguments.seconds, arguments.connections, arguments.processes, 1)
        print(json.dumps(figures))
        print(f"phone sign-in: {figures['per_second']:,.0f}/s  p50 {figures['p50_ms']:.2f} ms  p99 {figures['p99_ms']:.2f} ms  "
              f"server {figures['server_cpu_ms_per_sign_in']:.3f} ms CPU a sign-in ({figures['server_cores']:.2f} cores), "
              f"client {figures['client_cores']:.2f} cores")
    finally:
        if server:
            stop_servers([server])


if __name__ == "__main__":
    main()
