#!/usr/bin/python3
"""The load and the measurements of scripts/failover.sh (which starts etcd and the two Patroni nodes, and stops
everything): waits for a primary with a synchronous standby, starts two `flint serve` nodes on the multi-host URL,
runs sign-ups and refreshes against both, kills the primary hard, and reports per node the window of failed requests
(5xx, timeouts, refused connections) and when requests succeeded again; then checks that every acknowledged
(HTTP 200) sign-up's user is in the new primary and every acknowledged refresh token still refreshes.

Standard library only. Arguments: the work folder. Environment: FLINT_BIN, PG_BIN."""

import base64
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

HOST = "127.0.0.1"
NODES = {"node1": (25432, 28008), "node2": (25433, 28009)}
THREADS_PER_FLINT = 4
BEFORE_KILL = 4            # seconds of load before the kill
AFTER_RECOVERY = 3         # seconds of load once both Flint nodes succeed again
MAX_AFTER_KILL = 40        # the load stops this long after the kill, recovered or not
MAX_REQUESTS = 200_000     # and after this many requests in all
RECOVERY_LIMIT = 15        # seconds: service must be back this soon after the kill
REQUEST_TIMEOUT = 5


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def patroni(api_port, path="/cluster"):
    with urllib.request.urlopen(f"http://{HOST}:{api_port}{path}", timeout=2) as answer:
        return json.loads(answer.read())


def cluster():
    """Patroni's view of the members (from either node's API), or None."""
    for _, api_port in NODES.values():
        try:
            return patroni(api_port)["members"]
        except (OSError, ValueError, KeyError):
            continue
    return None


def wait_for(condition, what, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    sys.exit(f"FAILED: {what} within {seconds} s")


def roles():
    members = cluster() or []
    return {m["name"]: m["role"] for m in members if m.get("state") in ("running", "streaming")}


def psql(port, sql, database="postgres"):
    command = [os.path.join(os.environ["PG_BIN"], "psql"), "-h", HOST, "-p", str(port), "-U", "postgres", "-d", database,
               "-tAc", sql]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def start_flint(work, index, url):
    data_dir = os.path.join(work, f"flint{index}")
    os.makedirs(data_dir)
    log_file = open(os.path.join(data_dir, "server.log"), "w")
    process = subprocess.Popen(
        [os.environ["FLINT_BIN"], "serve", "--emulator", "--host", HOST, "--port", "0", "--data-dir", data_dir,
         "--management-port", "0", "--database-url", url],
        stdout=log_file, stderr=subprocess.STDOUT, env={**os.environ, "FLINT_SIGNUPS_PER_IP_PER_HOUR": "1000000000"})
    with open(os.path.join(work, f"flint{index}.pid"), "w") as pid_file:
        pid_file.write(str(process.pid))
    deadline = time.time() + 60
    while time.time() < deadline:
        if process.poll() is not None:
            sys.exit("flint serve exited: " + open(log_file.name).read()[-2000:])
        match = re.search(r"Flint is listening on http://127\.0\.0\.1:(\d+)", open(log_file.name).read())
        if match:
            return process, int(match.group(1))
        time.sleep(0.1)
    sys.exit("flint serve did not report its port within 60 s")


def post(port, path, body):
    """(status, answer or None); status 0 for a timeout or a refused connection."""
    request = urllib.request.Request(f"http://{HOST}:{port}{path}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, None
    except OSError:
        return 0, None


class Load:
    """Sign-ups and refreshes on one Flint node, from several threads; records every request's outcome."""

    def __init__(self, name, port):
        self.name, self.port = name, port
        self.lock = threading.Lock()
        self.results = []        # (start, end, kind, status)
        self.signed_up = []      # uids of acknowledged sign-ups
        self.tokens = {}         # uid -> its newest acknowledged refresh token
        self.stop = threading.Event()

    def record(self, start, kind, status):
        with self.lock:
            self.results.append((start, time.time(), kind, status))

    def run(self):
        token = None
        uid = None
        while not self.stop.is_set():
            start = time.time()
            if token is None:
                status, answer = post(self.port, "/v1/accounts:signUp?key=fake", {"returnSecureToken": True})
                self.record(start, "signUp", status)
                if status == 200:
                    uid, token = answer["localId"], answer["refreshToken"]
                    with self.lock:
                        self.signed_up.append(uid)
                        self.tokens[uid] = token
            else:
                status, answer = post(self.port, "/securetoken.googleapis.com/v1/token?key=fake",
                                      {"grant_type": "refresh_token", "refresh_token": token})
                self.record(start, "refresh", status)
                if status == 200:
                    token = answer["refresh_token"]
                    with self.lock:
                        self.tokens[uid] = token
                    # A new user after a few refreshes: sign-ups and refreshes both keep coming.
                    if len(self.results) % 4 == 0:
                        token = None
            if status != 200:
                time.sleep(0.05)   # a failing node is retried, not hammered

    def failures(self, since):
        return [r for r in self.results if r[0] >= since - REQUEST_TIMEOUT and r[3] != 200 and r[1] >= since]

    def recovered_at(self, since):
        """When the first success came that no failure followed (None if none)."""
        with self.lock:
            results = sorted(self.results, key=lambda r: r[1])
        last_failure = max((r[1] for r in results if r[3] != 200 and r[1] >= since), default=None)
        if last_failure is None:
            return since
        after = [r[1] for r in results if r[3] == 200 and r[0] >= last_failure]
        return min(after) if after else None


def main():
    work = sys.argv[1]
    log("waiting for a primary with a synchronous standby")
    wait_for(lambda: sorted(roles().values()) == ["leader", "sync_standby"], "a leader and a sync standby", 90)
    leader = next(name for name, role in roles().items() if role == "leader")
    leader_port = NODES[leader][0]
    psql(leader_port, "CREATE ROLE flint LOGIN PASSWORD 'flint'")
    psql(leader_port, "CREATE DATABASE flint OWNER flint")
    log(f"primary {leader} (:{leader_port}); synchronous_standby_names = {psql(leader_port, 'SHOW synchronous_standby_names')!r}")

    url = (f"postgres://flint:flint@{HOST}:{NODES['node1'][0]},{HOST}:{NODES['node2'][0]}/flint"
           "?target_session_attrs=read-write&sslmode=disable&pool_size=8")
    os.environ["FLINT_MASTER_KEY"] = base64.b64encode(secrets.token_bytes(32)).decode()
    flints = []
    try:
        for index in (1, 2):
            flints.append(start_flint(work, index, url))
        log(f"flint nodes on ports {[port for _, port in flints]}, database {url}")
        loads = [Load(f"flint{index + 1}", port) for index, (_, port) in enumerate(flints)]
        threads = [threading.Thread(target=load.run, daemon=True) for load in loads for _ in range(THREADS_PER_FLINT)]
        for thread in threads:
            thread.start()
        time.sleep(BEFORE_KILL)

        patroni_pid = int(open(os.path.join(work, leader, "patroni.pid")).read())
        postmaster_pid = int(open(os.path.join(work, leader, "data", "postmaster.pid")).readline())
        backends = subprocess.run(["pgrep", "-P", str(postmaster_pid)], capture_output=True, text=True).stdout.split()
        killed_at = time.time()
        for pid in [patroni_pid, postmaster_pid] + [int(b) for b in backends]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        log(f"killed the primary {leader}: Patroni {patroni_pid}, postmaster {postmaster_pid} and {len(backends)} children (SIGKILL)")

        def total():
            return sum(len(load.results) for load in loads)

        while time.time() - killed_at < MAX_AFTER_KILL and total() < MAX_REQUESTS:
            back = [load.recovered_at(killed_at) for load in loads]
            if all(b is not None for b in back) and time.time() - max(back) >= AFTER_RECOVERY:
                break
            time.sleep(0.2)
        for load in loads:
            load.stop.set()
        for thread in threads:
            thread.join(timeout=REQUEST_TIMEOUT + 2)

        # The dead primary's member key outlives it until its TTL: only another node counts as the new leader.
        new_leader = wait_for(lambda: next((n for n, r in roles().items() if r == "leader" and n != leader), None),
                              "a new leader", 30)
        log(f"new primary: {new_leader}; Patroni: {roles()}")

        worst = 0.0
        for load in loads:
            failures = load.failures(killed_at)
            back = load.recovered_at(killed_at)
            statuses = {}
            for failure in failures:
                statuses[failure[3] or "timeout/refused"] = statuses.get(failure[3] or "timeout/refused", 0) + 1
            if failures:
                window = max(f[1] for f in failures) - min(f[0] for f in failures)
                print(f"{load.name}: {len(load.results)} requests, {len(failures)} failed after the kill {statuses}; "
                      f"errors for {window:.1f} s", flush=True)
            else:
                print(f"{load.name}: {len(load.results)} requests, none failed after the kill", flush=True)
            recovery = (back - killed_at) if back is not None else float("inf")
            worst = max(worst, recovery)
            print(f"{load.name}: service back {recovery:.1f} s after the kill", flush=True)

        acknowledged = [uid for load in loads for uid in load.signed_up]
        stored = set(psql(NODES[new_leader][0], "SELECT local_id FROM users", database="flint").split())
        lost_users = [uid for uid in acknowledged if uid not in stored]
        port = flints[0][1]
        tokens = [token for load in loads for token in load.tokens.values()]
        lost_tokens = 0
        for token in tokens:
            status, _ = post(port, "/securetoken.googleapis.com/v1/token?key=fake",
                             {"grant_type": "refresh_token", "refresh_token": token})
            lost_tokens += status != 200
        print(f"acknowledged sign-ups: {len(acknowledged)}, missing on the new primary: {len(lost_users)}")
        print(f"newest acknowledged refresh token of each user: {len(tokens)}, refused after the failover: {lost_tokens}")
        lost = len(lost_users) + lost_tokens
        print(f"acknowledged writes lost: {lost}")
        print(f"outage window: {worst:.1f} s (service back on every node; limit {RECOVERY_LIMIT} s)")
        if lost or worst > RECOVERY_LIMIT:
            print("FAILED")
            sys.exit(1)
        print("PASSED")
    finally:
        for process, _ in flints:
            process.send_signal(signal.SIGTERM)
        for process, _ in flints:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    main()
