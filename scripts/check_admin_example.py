#!/usr/bin/env python3
"""Runs Examples/AdminServer (a Hummingbird API on FlintAdmin) against a live production `flint serve` and checks what
an app team would: a FlintAuth user's ID token opens `GET /me`; an admin (a custom claim set with the `flint` CLI,
itself on FlintAdmin) creates a user through the API; revoking that user's tokens and disabling them shuts them out
(`checkRevoked`); forged and missing tokens get 401.

    check_admin_example.py FLINT_BINARY ADMIN_SERVER_BINARY

Everything listens on 127.0.0.1, ports picked free, and stops within the time limits below.
"""
import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

DEADLINE = 60  # seconds any one process may take to start


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def call(method, url, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        text = error.read().decode()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, text


def start(arguments, **options):
    """A process whose output lines are read into a queue by a thread of their own, so waiting for one can time out."""
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **options)
    process.lines = queue.Queue()

    def read():
        for line in process.stdout:
            process.lines.put(line)
        process.lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return process


def wait_for_line(process, text):
    """The first line of the process's output that holds `text`, within DEADLINE seconds."""
    deadline = time.monotonic() + DEADLINE
    while True:
        try:
            line = process.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise SystemExit(f"{process.args[0]} did not say {text!r} within {DEADLINE} s")
        if line is None:
            raise SystemExit(f"{process.args[0]} exited before saying {text!r}")
        if text in line:
            return line


def expect(condition, what):
    if not condition:
        raise SystemExit("FAILED: " + what)
    print("ok:", what)


def main():
    flint, example = sys.argv[1], sys.argv[2]
    data = tempfile.mkdtemp(prefix="flint-admin-example-")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    common = ["--data-dir", data, "--public-url", url]
    processes = []
    try:
        server = start([flint, "serve", *common, "--port", str(port), "--management-port", "0"])
        processes.append(server)
        wait_for_line(server, "Flint is listening")
        api_key = wait_for_line(server, "API key").split(":", 1)[1].split()[0]
        key_file = os.path.join(data, "admin-key.json")
        subprocess.run([flint, "service-accounts", "create", *common, key_file], check=True, timeout=DEADLINE)

        app = start([example], env=dict(os.environ, FLINT_SERVER_URL=url, FLINT_KEY_FILE=key_file, PORT="0"))
        processes.append(app)
        app_url = "http://127.0.0.1:" + wait_for_line(app, "AdminServer is listening on port").split()[-1]

        def sign_up(email, password):
            status, body = call("POST", f"{url}/v1/accounts:signUp?key={api_key}",
                                {"email": email, "password": password, "returnSecureToken": True})
            expect(status == 200, f"{email} signs up with Flint ({status} {'' if status == 200 else body})")
            return body["localId"], body["idToken"]

        def sign_in(email, password):
            return call("POST", f"{url}/v1/accounts:signInWithPassword?key={api_key}",
                        {"email": email, "password": password, "returnSecureToken": True})

        admin_uid, _ = sign_up("admin@example.com", "admin password")
        subprocess.run([flint, "users", "set-claims", "--server", url, "--key-file", key_file, admin_uid, '{"role":"admin"}'],
                       check=True, timeout=DEADLINE, stdout=subprocess.DEVNULL)
        admin_token = sign_in("admin@example.com", "admin password")[1]["idToken"]

        status, me = call("GET", f"{app_url}/me", token=admin_token)
        expect(status == 200 and me["uid"] == admin_uid and me["role"] == "admin" and me["signInProvider"] == "password",
               f"GET /me answers the admin's token ({status} {me})")
        expect(call("GET", f"{app_url}/me")[0] == 401, "GET /me without a token is 401")
        forged = admin_token.rsplit(".", 1)[0] + ".c2lnbmF0dXJl"
        expect(call("GET", f"{app_url}/me", token=forged)[0] == 401, "a token with a forged signature is 401")

        status, created = call("POST", f"{app_url}/admin/users", {"email": "bob@example.com", "password": "bob password"},
                               token=admin_token)
        expect(status == 200 and created.get("uid"), f"the admin creates bob through the API ({status} {created})")
        bob_token = sign_in("bob@example.com", "bob password")[1]["idToken"]
        expect(call("GET", f"{app_url}/me", token=bob_token)[0] == 200, "bob's token opens GET /me")
        expect(call("POST", f"{app_url}/admin/users", {"email": "eve@example.com", "password": "eve password"},
                    token=bob_token)[0] == 403, "bob is no admin: 403")

        # Tokens carry whole seconds: a revocation in the second the token was issued would not reach it.
        time.sleep(1.1)
        expect(call("POST", f"{app_url}/admin/users/{created['uid']}/revoke", token=admin_token)[0] == 204,
               "the admin signs bob out everywhere")
        status, body = call("GET", f"{app_url}/me", token=bob_token)
        expect(status == 401 and "id-token-revoked" in json.dumps(body), f"bob's old token is revoked ({status} {body})")
        bob_token = sign_in("bob@example.com", "bob password")[1]["idToken"]
        expect(call("GET", f"{app_url}/me", token=bob_token)[0] == 200, "bob signs in again and is let in")

        subprocess.run([flint, "users", "disable", "--server", url, "--key-file", key_file, created["uid"]],
                       check=True, timeout=DEADLINE, stdout=subprocess.DEVNULL)
        status, body = call("GET", f"{app_url}/me", token=bob_token)
        expect(status == 401 and "user-disabled" in json.dumps(body), f"a disabled user's token is refused ({status} {body})")
        expect(call("DELETE", f"{app_url}/admin/users/{created['uid']}", token=admin_token)[0] == 204, "the admin deletes bob")
        print("Examples/AdminServer verifies FlintAuth tokens with checkRevoked and manages users.")
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    main()
