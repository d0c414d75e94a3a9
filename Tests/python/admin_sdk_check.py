"""The official firebase-admin Python SDK against `flint serve --emulator`.

Run by FlintServerTests.PythonClientTests with FIREBASE_AUTH_EMULATOR_HOST and FLINT_PROJECT set.
Exits non-zero (with a traceback) on the first failed check.
"""
import json
import os
import urllib.error
import urllib.parse
import urllib.request

import firebase_admin
from firebase_admin import auth

project = os.environ["FLINT_PROJECT"]
host = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
app = firebase_admin.initialize_app(options={"projectId": project})


def rest(name, body):
    request = urllib.request.Request(
        f"http://{host}/identitytoolkit.googleapis.com/v1/accounts:{name}?key=fake-api-key",
        data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def secure_token(refresh_token):
    body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": refresh_token}).encode()
    request = urllib.request.Request(f"http://{host}/securetoken.googleapis.com/v1/token?key=fake-api-key", data=body,
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


# Create, get (by uid, email, phone), list.
created = auth.create_user(email="Ada@Example.com", password="secret123", display_name="Ada",
                           phone_number="+15555550100", email_verified=True)
assert created.email == "ada@example.com", created.email
assert auth.get_user(created.uid).display_name == "Ada"
assert auth.get_user_by_email("ada@example.com").uid == created.uid
assert auth.get_user_by_phone_number("+15555550100").uid == created.uid
fixed = auth.create_user(uid="fixed-uid-1", email="bob@example.com")
listed = sorted(user.uid for user in auth.list_users(max_results=1).iterate_all())
assert listed == sorted([created.uid, fixed.uid]), listed

# Update: profile, disabled, custom claims.
updated = auth.update_user(created.uid, display_name="Ada L.", disabled=True)
assert updated.display_name == "Ada L." and updated.disabled
auth.update_user(created.uid, disabled=False)
auth.set_custom_user_claims(created.uid, {"role": "admin"})
assert auth.get_user(created.uid).custom_claims == {"role": "admin"}

# A real sign-in's ID token verifies with the Admin SDK and carries the claims.
signed_in = rest("signInWithPassword", {"email": "ada@example.com", "password": "secret123", "returnSecureToken": True})
decoded = auth.verify_id_token(signed_in["idToken"])
assert decoded["uid"] == created.uid and decoded["role"] == "admin", decoded
assert decoded["firebase"]["sign_in_provider"] == "password"
assert auth.verify_id_token(signed_in["idToken"], check_revoked=True)["uid"] == created.uid

# Claims set later reach a refreshed ID token.
auth.set_custom_user_claims(created.uid, {"role": "admin", "level": 2})
refreshed = secure_token(signed_in["refreshToken"])
assert auth.verify_id_token(refreshed["id_token"])["level"] == 2, refreshed

# Revoking refresh tokens: the old refresh token stops working and check_revoked refuses the old ID token.
# (The SDK sets validSince from its own clock; the test runs the server's clock seconds behind it.)
auth.revoke_refresh_tokens(created.uid)
try:
    secure_token(signed_in["refreshToken"])
    raise AssertionError("revoked refresh token still works")
except urllib.error.HTTPError as error:
    assert json.load(error)["error"]["message"] == "TOKEN_EXPIRED"
try:
    auth.verify_id_token(refreshed["id_token"], check_revoked=True)
    raise AssertionError("revoked ID token accepted")
except auth.RevokedIdTokenError:
    pass

# Email sign-in links generated without sending.
link = auth.generate_sign_in_with_email_link(
    "ada@example.com", auth.ActionCodeSettings(url="http://localhost/finish", handle_code_in_app=True))
assert "mode=signIn" in link and "oobCode=" in link, link

# Custom tokens (unsigned in emulator mode) exchanged for ID tokens that carry their claims.
custom = auth.create_custom_token("custom-uid-1", {"premium": True}).decode()
exchanged = rest("signInWithCustomToken", {"token": custom, "returnSecureToken": True})
custom_claims = auth.verify_id_token(exchanged["idToken"])
assert custom_claims["uid"] == "custom-uid-1" and custom_claims["premium"] is True, custom_claims
assert custom_claims["firebase"]["sign_in_provider"] == "custom"

# Delete.
auth.delete_user(fixed.uid)
try:
    auth.get_user(fixed.uid)
    raise AssertionError("deleted user still found")
except auth.UserNotFoundError:
    pass
try:
    auth.create_user(email="ada@example.com")
    raise AssertionError("duplicate email accepted")
except auth.EmailAlreadyExistsError:
    pass
print("firebase-admin checks passed")
