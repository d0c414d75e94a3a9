#!/usr/bin/env python3
"""How fast does Flint import users? Imports `--users` users with Firebase scrypt password hashes (hashAlgorithm SCRYPT
with signer key, salt separator, rounds and memory cost, as firebase-admin's importUsers sends them) through
`accounts:batchCreate`, 1,000 a call from `--connections` concurrent connections, with a few deliberately bad entries
among them; then the same through `flint users import` of a file (`--cli-users` of them; 0 skips it).

Usage:
  Benchmarks/import.py --flint .build-release/release/flint [--users 1000000] [--connections 4]
                       [--database-url postgres://…] [--cli-users 200000]

The server runs in emulator mode (the admin import needs no service account) on a fresh data directory, or on the
PostgreSQL database given, which must hold no users of the projects `demo-flint` (the API import) and `import-cli`
(the command's, run on the same data once the server has stopped). The bad entries are a taken local id, a taken email (of an earlier call and of an earlier entry of
the same call), an invalid email, a taken phone number and a taken provider account: the script checks each one's
error (index and message) and that all other users, and only they, are there afterwards; one imported user (the
firebase/scrypt test vector) signs in with its password. Printed: users/s (wall clock, all calls), the server's CPU
per user (user plus system time from /proc/PID/stat over the import), its peak RSS (VmHWM), and for the command the
same for its process.
"""

import argparse
import base64
import http.client
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from scale import HOST, PROJECT, cpu_seconds, post, start_server, stop_servers

BATCH = 1000
CLI_PROJECT = "import-cli"
# The published firebase/scrypt test vector: this hash is the password "user1password" with these parameters.
SCRYPT = {"hashAlgorithm": "SCRYPT", "signerKey": "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
          "saltSeparator": "Bw==", "rounds": 8, "memoryCost": 14}
VECTOR = {"localId": "vector", "email": "vector@import.test", "emailVerified": True, "phoneNumber": "+15555550100",
          "passwordHash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==",
          "salt": "42xEC+ixf3L2lw==", "providerUserInfo": [{"providerId": "google.com", "rawId": "g-vector"}]}
TAKEN_ID = "localId belongs to an existing account - can not overwrite."
TAKEN_EMAIL = "email exists in other account in database"
TAKEN_RAW_ID = "raw id exists in other account in database"
# (entry, message) pairs, each placed in a later call than the first (which holds the users they collide with).
BAD_ENTRIES = [
    ({"localId": "u0", "email": "again-u0@import.test"}, TAKEN_ID),
    ({"localId": "bad-email-taken", "email": "u1@import.test"}, TAKEN_EMAIL),
    ({"localId": "bad-email-invalid", "email": "not an email"}, "email is invalid"),
    ({"localId": "bad-phone-taken", "phoneNumber": VECTOR["phoneNumber"]}, "PHONE_NUMBER_EXISTS"),
    ({"localId": "bad-raw-id-taken", "providerUserInfo": [{"providerId": "google.com", "rawId": "g-vector"}]}, TAKEN_RAW_ID),
]


def entries(count):
    """The import's entries: `count` good users, the test vector, two new users with one email (the second is
    refused) and u0, u1, … (each with its own random 64-byte hash and 12-byte salt: only the vector's is a real one,
    which is all an import can check), with the bad entries spread among them after the first call's. Returns the
    entries and the errors expected, {position: message}."""
    blob = os.urandom(8192)
    good = [VECTOR, {"localId": "twin-1", "email": "twin@import.test"}, {"localId": "twin-2", "email": "twin@import.test"}]
    good += [{"localId": f"u{i}", "email": f"u{i}@import.test", "emailVerified": True, "displayName": f"User {i}",
              "createdAt": "1700000000000", "passwordHash": base64.b64encode(blob[i % 8000:i % 8000 + 64]).decode(),
              "salt": base64.b64encode(blob[i % 7000 + 100:i % 7000 + 112]).decode()} for i in range(count - 2)]
    stream, expected = good[:BATCH], {2: TAKEN_EMAIL}
    step = (count - BATCH) // len(BAD_ENTRIES)
    for k, (entry, message) in enumerate(BAD_ENTRIES):
        stream += good[BATCH + k * step:BATCH + (k + 1) * step]
        expected[len(stream)] = message
        stream.append(entry)
    stream += good[BATCH + len(BAD_ENTRIES) * step:]
    return stream, expected


def import_calls(port, bodies, connections):
    """Sends the bodies, the first alone (later calls collide with its users), the rest from `connections`
    connections at once; returns each call's answer."""
    path = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchCreate"
    headers = {"Content-Type": "application/json", "Authorization": "Bearer owner"}

    def send(chunk):
        connection = http.client.HTTPConnection(HOST, port, timeout=600)
        answers = []
        for body in chunk:
            connection.request("POST", path, body, headers)
            response = connection.getresponse()
            answer = response.read()
            if response.status != 200:
                sys.exit(f"batchCreate answered {response.status}: {answer[:300]!r}")
            answers.append(json.loads(answer))
        connection.close()
        return answers

    first = send(bodies[:1])
    rest = bodies[1:]
    with ThreadPoolExecutor(connections) as pool:
        parts = list(pool.map(send, [rest[index::connections] for index in range(connections)]))
    answers = first + [None] * len(rest)
    for index, part in enumerate(parts):
        answers[1 + index::connections] = part
    return answers


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def api_import(arguments, work):
    stream, expected = entries(arguments.users)
    calls = [stream[start:start + BATCH] for start in range(0, len(stream), BATCH)]
    bodies = [json.dumps({**SCRYPT, "users": call}).encode() for call in calls]
    server, port = start_server(arguments.flint, work, arguments.database_url)
    try:
        cpu_before = cpu_seconds(server.pid)
        started = time.time()
        answers = import_calls(port, bodies, arguments.connections)
        seconds = time.time() - started
        cpu = cpu_seconds(server.pid) - cpu_before
        peak = peak_rss_mb(server.pid)
        errors = {call * BATCH + failure["index"]: failure["message"]
                  for call, answer in enumerate(answers) for failure in answer.get("error", [])}
        if errors != expected:
            sys.exit(f"errors differ: expected {expected}, got {dict(list(errors.items())[:20])}")
        count = post(port, f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:query",
                     {"returnUserInfo": False}, {"Authorization": "Bearer owner"})["recordsCount"]
        if int(count) != arguments.users:
            sys.exit(f"{count} users after the import, not {arguments.users}")
        signed_in = post(port, "/v1/accounts:signInWithPassword?key=fake",
                         {"email": VECTOR["email"], "password": "user1password", "returnSecureToken": True})
        if signed_in.get("localId") != VECTOR["localId"]:
            sys.exit(f"the imported scrypt hash does not sign in: {signed_in}")
    finally:
        stop_servers([server])
    print(f"accounts:batchCreate  {arguments.users:,} users in {seconds:.1f} s: {arguments.users / seconds:,.0f} users/s, "
          f"server CPU {cpu / arguments.users * 1e6:.1f} µs/user, peak RSS {peak:.0f} MB, "
          f"{len(expected)} bad entries reported as expected, {count} users counted")


def cli_import(arguments, work):
    """`flint users import` of a file in the export format, with the hash flags, on the server's data (another
    project): each bad entry is reported."""
    stream, expected = entries(arguments.cli_users)
    file = os.path.join(work, "users.json")
    with open(file, "w") as output:
        json.dump({"users": stream}, output)
    command = [arguments.flint, "users", "import", file, "--project", CLI_PROJECT, "--data-dir", work,
               "--hash-algo", "SCRYPT", "--hash-key", SCRYPT["signerKey"], "--salt-separator", SCRYPT["saltSeparator"],
               "--rounds", str(SCRYPT["rounds"]), "--mem-cost", str(SCRYPT["memoryCost"])]
    if arguments.database_url:
        command += ["--database-url", arguments.database_url]
    log = open(os.path.join(work, "cli.log"), "w+")
    started = time.time()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)
    # Its peak RSS from /proc while it runs: rusage's would count the fork of this script it began as.
    peak = 0.0
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        try:
            peak = max(peak, peak_rss_mb(process.pid))
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    seconds = time.time() - started
    log.seek(0)
    stderr = log.read()
    # The command reports each entry it could not import and then exits 1.
    reported = [f"{stream[position]['localId']}: {message}" for position, message in expected.items()]
    missing = [line for line in reported if line not in stderr]
    if os.waitstatus_to_exitcode(status) != 1 or missing or f"{len(expected)} of {len(stream)} users were not imported" not in stderr:
        sys.exit(f"flint users import: exit {os.waitstatus_to_exitcode(status)}, missing {missing}: {stderr[-1000:]}")
    print(f"flint users import    {len(stream):,} entries in {seconds:.1f} s: {len(stream) / seconds:,.0f} users/s, "
          f"CPU {(usage.ru_utime + usage.ru_stime) / len(stream) * 1e6:.1f} µs/user, peak RSS {peak:.0f} MB, "
          f"{len(expected)} bad entries reported as expected")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flint", required=True)
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--database-url")
    parser.add_argument("--cli-users", type=int, default=200_000)
    arguments = parser.parse_args()
    if arguments.users < 2 * BATCH or (arguments.cli_users and arguments.cli_users < 2 * BATCH):
        sys.exit(f"import at least {2 * BATCH} users")
    work = tempfile.mkdtemp(prefix="flint-import-")
    api_import(arguments, work)
    if arguments.cli_users:
        cli_import(arguments, work)
    print(f"(data folder {work} kept for inspection; delete it when done)")


if __name__ == "__main__":
    main()
