"""What the Python checks of Flint's OAuth and OpenID provider share (oauth_authlib_check.py, oauth_authlib_device.py,
oauth_authlib_browser.py, mcp_flow.py): a failed check (CheckFailed), a check script's run under a time limit (run),
the admin API's session and a confidential client made through it, and, with Authlib and joserfc, the discovery
document, the JWKS it names and a JWT verified against them. Every HTTP call is bounded by TIMEOUT.
"""
import base64
import json
import os
import signal
import sys
import traceback

import google.auth.transport.requests
import requests
from authlib.oauth2.claims import JWTClaims
from authlib.oidc.discovery import OpenIDProviderMetadata
from google.oauth2 import service_account
from joserfc import jwt
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

# Each request's bound. Generous: the whole suite shares two cores, and a sign-in's scrypt waits for the hashing
# threads; the test's own limit still bounds the run.
TIMEOUT = 60


class CheckFailed(Exception):
    pass


def check(condition, message, detail=None):
    if not condition:
        raise CheckFailed(message + (f": {detail!r}" if detail is not None else ""))


def ok(message):
    print(f"ok - {message}", flush=True)


def run(main, seconds, passed):
    """Runs a check script's main(): past `seconds`, on a failed check or on an exception it prints `FAILED…` and
    exits 1; else it prints `passed`."""

    def timed_out(*_):
        print(f"FAILED: the script ran over {seconds} seconds", flush=True)
        os._exit(1)

    signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(seconds)
    try:
        main()
    except CheckFailed as failure:
        print(f"FAILED: {failure}", flush=True)
        sys.exit(1)
    except Exception:
        print("FAILED with an exception:", flush=True)
        traceback.print_exc(file=sys.stdout)
        sys.exit(1)
    print(passed, flush=True)


def header_of(token):
    """A JWT's protected header, read without verifying anything."""
    segment = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


def admin_session(key_file):
    """The admin API's session, with an access token google-auth gets from the key file's token_uri (Flint's)."""
    credentials = service_account.Credentials.from_service_account_file(
        key_file, scopes=["https://www.googleapis.com/auth/identitytoolkit"])
    return google.auth.transport.requests.AuthorizedSession(credentials)


def create_client(admin, base, project, display_name, redirect_uri):
    """A confidential client of the project with one redirect URI, made through the admin API: its resource, which
    has a client ID and secret."""
    response = admin.post(f"{base}/v2/projects/{project}/oauthClients", timeout=TIMEOUT, json={
        "displayName": display_name, "type": "CONFIDENTIAL", "redirectUris": [redirect_uri]})
    check(response.status_code == 200, "the admin API did not create the client", (response.status_code, response.text))
    created = response.json()
    check(created.get("clientId") and created.get("clientSecret"), "the created client has no ID or secret", created)
    return created


def discover(issuer):
    """The issuer's OpenID Connect discovery document, validated by Authlib's OpenIDProviderMetadata, naming `issuer`."""
    response = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=TIMEOUT)
    check(response.status_code == 200, "no discovery document", (response.status_code, response.text))
    metadata = OpenIDProviderMetadata(response.json())
    metadata.validate()
    check(metadata["issuer"] == issuer, "the discovery document names another issuer", metadata["issuer"])
    return metadata


def keys_of(metadata):
    """(the key set at the metadata's jwks_uri, a registry of the ID tokens' signing algorithms it names): what
    jwt.decode verifies a token with."""
    response = requests.get(metadata["jwks_uri"], timeout=TIMEOUT)
    check(response.status_code == 200, "no JWKS", (response.status_code, response.text))
    return KeySet.import_key_set(response.json()), JWSRegistry(algorithms=metadata["id_token_signing_alg_values_supported"])


def verify_jwt(token, keys, **claims):
    """The token decoded with joserfc (its signature checked against `keys`, keys_of's) and its claims validated with
    Authlib's JWTClaims (exp and nbf, where present): each claim named is essential, and equal to its value unless
    that is None."""
    key_set, registry = keys
    decoded = jwt.decode(token, key_set, registry=registry)
    JWTClaims(decoded.claims, decoded.header, {
        name: {"essential": True} if value is None else {"essential": True, "value": value}
        for name, value in claims.items()}).validate()
    return decoded
