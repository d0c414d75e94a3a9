"""The official firebase-admin Python SDK against `flint serve --emulator`.

Run by FlintServerTests.PythonClientTests with FIREBASE_AUTH_EMULATOR_HOST and FLINT_PROJECT set.
Exits non-zero (with a traceback) on the first failed check.
"""
import base64
import datetime
import hashlib
import hmac
import json
import os
import urllib.error
import urllib.parse
import urllib.request

import bcrypt
import firebase_admin
from firebase_admin import auth

import saml_provider_checks

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
# The sign-in is on the record as firebase-admin reads it: a sign-in is also the last refresh.
metadata = auth.get_user(created.uid).user_metadata
assert metadata.last_sign_in_timestamp and metadata.last_refresh_timestamp, vars(metadata)
assert metadata.last_refresh_timestamp == metadata.last_sign_in_timestamp, vars(metadata)

# Claims set later reach a refreshed ID token.
auth.set_custom_user_claims(created.uid, {"role": "admin", "level": 2})
refreshed = secure_token(signed_in["refreshToken"])
assert auth.verify_id_token(refreshed["id_token"])["level"] == 2, refreshed

# Session cookies: made from an ID token, verified by the Admin SDK, carrying the user's claims.
cookie = auth.create_session_cookie(refreshed["id_token"], expires_in=datetime.timedelta(days=1))
session = auth.verify_session_cookie(cookie)
assert session["uid"] == created.uid and session["level"] == 2, session
try:
    auth.create_session_cookie(refreshed["id_token"], expires_in=datetime.timedelta(days=15))
    raise AssertionError("a 15-day session cookie was made")
except ValueError:
    pass  # the SDK itself refuses durations outside 5 minutes to 14 days

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

# A link domain the project does not own: firebase-admin-python's integration test (test_auth_error_parse) compares
# the whole message, the server's sentence after the SDK's own.
try:
    auth.generate_sign_in_with_email_link("ada@example.com", auth.ActionCodeSettings(
        url="http://localhost/finish", handle_code_in_app=True, link_domain="cool.link"))
    raise AssertionError("an unowned link domain was accepted")
except auth.InvalidHostingLinkDomainError as error:
    assert str(error) == (
        "The provided hosting link domain is not configured in Firebase Hosting or is not owned by the current project "
        "(INVALID_HOSTING_LINK_DOMAIN). The provided hosting link domain is not configured in Firebase Hosting or is "
        "not owned by the current project. This cannot be a default hosting domain (web.app or firebaseapp.com)."
    ), str(error)

# Custom tokens (unsigned in emulator mode) exchanged for ID tokens that carry their claims.
custom = auth.create_custom_token("custom-uid-1", {"premium": True}).decode()
exchanged = rest("signInWithCustomToken", {"token": custom, "returnSecureToken": True})
custom_claims = auth.verify_id_token(exchanged["idToken"])
assert custom_claims["uid"] == "custom-uid-1" and custom_claims["premium"] is True, custom_claims
assert custom_claims["firebase"]["sign_in_provider"] == "custom"

# Import users with Firebase-scrypt hashes (the published firebase/scrypt test vector) and with HMAC-SHA256;
# they sign in with their old passwords, and keep doing so once re-hashed.
scrypt = auth.UserImportHash.scrypt(
    key=base64.b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
    rounds=8, memory_cost=14, salt_separator=base64.b64decode("Bw=="))
imported = auth.import_users([auth.ImportUserRecord(
    uid="imported-1", email="imported@example.com", display_name="Imported",
    password_hash=base64.b64decode("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="),
    password_salt=base64.b64decode("42xEC+ixf3L2lw=="))], hash_alg=scrypt)
assert imported.success_count == 1 and imported.failure_count == 0, [e.reason for e in imported.errors]
for _ in range(2):
    again = rest("signInWithPassword", {"email": "imported@example.com", "password": "user1password", "returnSecureToken": True})
    assert again["localId"] == "imported-1", again
hmac_key = b"import-key"
salt = b"pepper-salt"
imported = auth.import_users([auth.ImportUserRecord(
    uid="imported-2", email="hmac@example.com",
    password_hash=hmac.new(hmac_key, salt + b"old password", hashlib.sha256).digest(), password_salt=salt)],
    hash_alg=auth.UserImportHash.hmac_sha256(key=hmac_key))
assert imported.success_count == 1, [e.reason for e in imported.errors]
assert rest("signInWithPassword", {"email": "hmac@example.com", "password": "old password"})["localId"] == "imported-2"
try:
    rest("signInWithPassword", {"email": "hmac@example.com", "password": "not it"})
    raise AssertionError("wrong password accepted")
except urllib.error.HTTPError as error:
    assert json.load(error)["error"]["message"] == "INVALID_PASSWORD"
# BCRYPT: the hash string carries its salt and cost; PHP's $2y$ strings work too.
bcrypt_hash = bcrypt.hashpw(b"bcrypt password", bcrypt.gensalt(rounds=6))
php_hash = b"$2y$" + bcrypt.hashpw(b"php password", bcrypt.gensalt(rounds=5))[4:]
imported = auth.import_users([
    auth.ImportUserRecord(uid="imported-4", email="bcrypt@example.com", password_hash=bcrypt_hash),
    auth.ImportUserRecord(uid="imported-5", email="php@example.com", password_hash=php_hash),
], hash_alg=auth.UserImportHash.bcrypt())
assert imported.success_count == 2, [e.reason for e in imported.errors]
for email, password, uid in [("bcrypt@example.com", "bcrypt password", "imported-4"), ("php@example.com", "php password", "imported-5")]:
    for _ in range(2):
        assert rest("signInWithPassword", {"email": email, "password": password})["localId"] == uid
try:
    rest("signInWithPassword", {"email": "php@example.com", "password": "bcrypt password"})
    raise AssertionError("wrong bcrypt password accepted")
except urllib.error.HTTPError as error:
    assert json.load(error)["error"]["message"] == "INVALID_PASSWORD"
duplicate = auth.import_users([auth.ImportUserRecord(uid="imported-3", email="imported@example.com")])
assert duplicate.failure_count == 1 and duplicate.errors[0].index == 0

# Bulk delete: enabled users are skipped unless forced.
deleted = auth.delete_users(["imported-1", "imported-2", "imported-4", "imported-5"])
assert deleted.success_count == 4, [e.reason for e in deleted.errors]

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

# OpenID Connect provider configs, through the Admin SDK's provider-config API.
oidc = auth.create_oidc_provider_config("oidc.okta", client_id="okta-client", issuer="https://example.okta.com",
                                        display_name="Okta", enabled=True)
assert oidc.provider_id == "oidc.okta" and oidc.issuer == "https://example.okta.com", oidc
assert oidc.id_token_response_type and not oidc.code_response_type
assert auth.get_oidc_provider_config("oidc.okta").display_name == "Okta"
updated = auth.update_oidc_provider_config("oidc.okta", display_name="Okta SSO", client_secret="s3cret",
                                           code_response_type=True)
assert updated.display_name == "Okta SSO" and updated.code_response_type and updated.client_id == "okta-client"
assert [config.provider_id for config in auth.list_oidc_provider_configs().iterate_all()] == ["oidc.okta"]
auth.delete_oidc_provider_config("oidc.okta")
try:
    auth.get_oidc_provider_config("oidc.okta")
    raise AssertionError("deleted provider config still found")
except auth.ConfigurationNotFoundError:
    pass

# SAML provider configs: firebase-admin-python's own integration cases (integration/test_auth.py).
saml_provider_checks.check_saml_provider_configs(auth)
print("firebase-admin checks passed")
