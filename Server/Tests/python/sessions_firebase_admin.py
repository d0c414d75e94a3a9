"""The official firebase-admin Python SDK and Flint's sessions (issue 46), against `flint serve --emulator`.

firebase-admin knows nothing of sessions: its `check_revoked` looks at the user's revocation time (`validSince`) and
`disabled` only. The point here is that ending one session of a user (with Flint's admin REST call, which firebase-admin
has no method for) revokes nothing else for it: the user's other session keeps passing `verify_id_token(...,
check_revoked=True)` and refreshing; and that `revoke_refresh_tokens` still ends every session.

Run by FlintAdminTests.SessionsAdminTests with FIREBASE_AUTH_EMULATOR_HOST and FLINT_PROJECT set (the server's clock a
few seconds behind this script's, which dates `revoke_refresh_tokens`). Exits non-zero (with a traceback) on the first
failed check.
"""
import base64
import json
import os
import urllib.error
import urllib.parse
import urllib.request

import firebase_admin
from firebase_admin import auth

project = os.environ["FLINT_PROJECT"]
host = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
firebase_admin.initialize_app(options={"projectId": project})


def call(method, url, body=None, headers=None, form=False):
    """(status, JSON answer) of one request; HTTP errors are answers too."""
    data = None
    if body is not None:
        data = urllib.parse.urlencode(body).encode() if form else json.dumps(body).encode()
    content_type = "application/x-www-form-urlencoded" if form else "application/json"
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": content_type, **(headers or {})})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def sign_in(email, password, device):
    status, body = call("POST", f"http://{host}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword"
                                "?key=fake-api-key",
                        {"email": email, "password": password, "returnSecureToken": True}, {"User-Agent": device})
    assert status == 200, body
    return body


def refresh(refresh_token):
    return call("POST", f"http://{host}/securetoken.googleapis.com/v1/token?key=fake-api-key",
                {"grant_type": "refresh_token", "refresh_token": refresh_token}, form=True)


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def admin_sessions(method, uid, session_id=None):
    """Flint's admin sessions endpoints, with the emulator's `Bearer owner`, as firebase-admin authenticates there."""
    path = f"http://{host}/identitytoolkit.googleapis.com/v2/projects/{project}/accounts/{uid}/sessions"
    return call(method, path + (f"/{session_id}" if session_id else ""), headers={"Authorization": "Bearer owner"})


user = auth.create_user(email="ada@example.com", password="correct horse")
laptop = sign_in("ada@example.com", "correct horse", "Laptop/1.0")
phone = sign_in("ada@example.com", "correct horse", "Phone/2.0")
laptop_sid, phone_sid = claims(laptop["idToken"]).get("sid"), claims(phone["idToken"]).get("sid")
assert laptop_sid and phone_sid and laptop_sid != phone_sid, (laptop_sid, phone_sid)
for signed_in in (laptop, phone):
    assert auth.verify_id_token(signed_in["idToken"], check_revoked=True)["uid"] == user.uid
status, listed = admin_sessions("GET", user.uid)
assert status == 200 and {s["sessionId"] for s in listed["sessions"]} == {laptop_sid, phone_sid}, (status, listed)

# The laptop's session ends: its refresh is refused at once.
status, ended = admin_sessions("DELETE", user.uid, laptop_sid)
assert status == 200, ended
status, body = refresh(laptop["refreshToken"])
assert status == 400 and body["error"]["message"].startswith("TOKEN_EXPIRED"), (status, body)

# firebase-admin's check_revoked still passes the phone's ID token, and the phone refreshes: ending one session revoked
# nothing of the user's. (It passes the laptop's too: firebase-admin cannot see sessions; FlintAdmin's check_revoked
# refuses that one.)
assert auth.verify_id_token(phone["idToken"], check_revoked=True)["uid"] == user.uid
assert auth.verify_id_token(laptop["idToken"], check_revoked=True)["uid"] == user.uid
tokens_valid_after = auth.get_user(user.uid).tokens_valid_after_timestamp
status, refreshed = refresh(phone["refreshToken"])
assert status == 200, refreshed
assert claims(refreshed["id_token"]).get("sid") == phone_sid, claims(refreshed["id_token"])
assert auth.verify_id_token(refreshed["id_token"], check_revoked=True)["uid"] == user.uid
status, listed = admin_sessions("GET", user.uid)
assert status == 200 and [s["sessionId"] for s in listed["sessions"]] == [phone_sid], (status, listed)

# revoke_refresh_tokens still ends them all: both refreshes refused, the phone's ID tokens revoked.
second_laptop = sign_in("ada@example.com", "correct horse", "Laptop/1.0")
auth.revoke_refresh_tokens(user.uid)
assert auth.get_user(user.uid).tokens_valid_after_timestamp > tokens_valid_after
for refresh_token in (phone["refreshToken"], second_laptop["refreshToken"]):
    status, body = refresh(refresh_token)
    assert status == 400, (status, body)
for id_token in (refreshed["id_token"], second_laptop["idToken"]):
    try:
        auth.verify_id_token(id_token, check_revoked=True)
        raise AssertionError("a revoked ID token was accepted")
    except auth.RevokedIdTokenError:
        pass
status, listed = admin_sessions("GET", user.uid)
assert status == 200 and listed["sessions"] == [], (status, listed)
print("firebase-admin sessions checks passed")
