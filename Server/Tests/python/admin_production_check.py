"""Production-mode admin credentials, with Google's own client libraries from PyPI.

Run by FlintServerTests.PythonClientTests with FLINT_URL, FLINT_API_KEY, FLINT_PROJECT and FLINT_KEY_FILE
(a service-account key file `flint` made). Exits non-zero (with a traceback) on the first failed check.
"""
import json
import os
import time
import urllib.error
import urllib.request

import firebase_admin
import google.auth.transport.requests
import jwt
from firebase_admin import auth, credentials
from google.oauth2 import service_account

base = os.environ["FLINT_URL"]
api_key = os.environ["FLINT_API_KEY"]
project = os.environ["FLINT_PROJECT"]
key_file = os.environ["FLINT_KEY_FILE"]
with open(key_file) as handle:
    key = json.load(handle)
lookup_url = f"{base}/v1/projects/{project}/accounts:lookup"


def post(url, body, headers=None):
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


# The Admin SDK mints a custom token with the key file; the client exchanges it; its claims ride along.
app = firebase_admin.initialize_app(credentials.Certificate(key_file), options={"projectId": project})
custom = auth.create_custom_token("custom-uid-1", {"premium": True}, app=app).decode()
status, signed_in = post(f"{base}/v1/accounts:signInWithCustomToken?key={api_key}",
                         {"token": custom, "returnSecureToken": True})
assert status == 200, signed_in
claims = jwt.decode(signed_in["idToken"], options={"verify_signature": False})
assert claims["sub"] == "custom-uid-1" and claims["premium"] is True, claims
assert claims["firebase"]["sign_in_provider"] == "custom", claims

# An API key alone reaches nothing admin-level.
status, body = post(f"{lookup_url}?key={api_key}", {"localId": ["custom-uid-1"]})
assert status in (401, 403), (status, body)

# google-auth exchanges a JWT signed with the key at the key file's token_uri, then calls with the access token.
scoped = service_account.Credentials.from_service_account_file(
    key_file, scopes=["https://www.googleapis.com/auth/identitytoolkit"])
session = google.auth.transport.requests.AuthorizedSession(scoped)
response = session.post(lookup_url, json={"localId": ["custom-uid-1"]})
assert response.status_code == 200, response.text
assert response.json()["users"][0]["localId"] == "custom-uid-1", response.text

# A self-signed JWT (no exchange) works too; one signed with another key does not.
# Issued a minute ago: the server's test clock stands still while the suite runs, so on a loaded machine it can be
# behind this script's by more than the allowed skew.
now = int(time.time()) - 60
assertion = {"iss": key["client_email"], "sub": key["client_email"], "aud": "https://identitytoolkit.googleapis.com/",
             "iat": now, "exp": now + 600}
self_signed = jwt.encode(assertion, key["private_key"], algorithm="RS256", headers={"kid": key["private_key_id"]})
status, body = post(lookup_url, {"localId": ["custom-uid-1"]}, {"Authorization": f"Bearer {self_signed}"})
assert status == 200, body
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402
other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
forged = jwt.encode(assertion, other, algorithm="RS256", headers={"kid": key["private_key_id"]})
status, body = post(lookup_url, {"localId": ["custom-uid-1"]}, {"Authorization": f"Bearer {forged}"})
assert status == 401, (status, body)
print("production admin checks passed")
