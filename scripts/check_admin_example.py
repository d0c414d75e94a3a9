#!/usr/bin/env python3
"""Runs Examples/AdminServer (a Hummingbird API on FlintAdmin) against a live production `flint serve` and checks what
an app team would: a FlintAuth user's ID token opens `GET /me`; an admin (a custom claim set with the `flint` CLI,
itself on FlintAdmin) creates a user through the API; revoking that user's tokens and disabling them shuts them out
(`checkRevoked`); forged and missing tokens get 401.

    check_admin_example.py FLINT_BINARY ADMIN_SERVER_BINARY

Everything listens on 127.0.0.1, ports picked free, and stops within example_check.py's time limits.
"""
import json
import os
import subprocess
import sys
import time

from example_check import DEADLINE, Flint, expect, wait_for_line
from example_check import call as call_with_headers


def call(method, url, body=None, token=None):
    """(status, body) of one request: example_check.call without the headers."""
    status, _, answer = call_with_headers(method, url, body, token=token)
    return status, answer


def main():
    binary, example = sys.argv[1], sys.argv[2]
    flint = Flint(binary, "flint-admin-example-")
    url, api_key, key_file = flint.url, flint.api_key, flint.key_file
    try:
        app = flint.start([example], env=dict(os.environ, FLINT_SERVER_URL=url, FLINT_KEY_FILE=key_file, PORT="0"))
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
        subprocess.run([binary, "users", "set-claims", "--server", url, "--key-file", key_file, admin_uid, '{"role":"admin"}'],
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

        subprocess.run([binary, "users", "disable", "--server", url, "--key-file", key_file, created["uid"]],
                       check=True, timeout=DEADLINE, stdout=subprocess.DEVNULL)
        status, body = call("GET", f"{app_url}/me", token=bob_token)
        expect(status == 401 and "user-disabled" in json.dumps(body), f"a disabled user's token is refused ({status} {body})")
        expect(call("DELETE", f"{app_url}/admin/users/{created['uid']}", token=admin_token)[0] == 204, "the admin deletes bob")
        print("Examples/AdminServer verifies FlintAuth tokens with checkRevoked and manages users.")
    finally:
        flint.stop()


if __name__ == "__main__":
    main()
