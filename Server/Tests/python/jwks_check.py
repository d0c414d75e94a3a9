"""A stock JWT library (PyJWT) verifies a Flint ID token against the server's JWKS and discovery document.

Run by FlintServerTests.PythonClientTests with FLINT_URL, FLINT_API_KEY and FLINT_PROJECT set
(a production-mode server).
"""
import json
import os
import urllib.request

import jwt

base = os.environ["FLINT_URL"]
key = os.environ["FLINT_API_KEY"]
project = os.environ["FLINT_PROJECT"]

request = urllib.request.Request(
    f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp?key={key}",
    data=json.dumps({"returnSecureToken": True}).encode(), headers={"Content-Type": "application/json"})
with urllib.request.urlopen(request) as response:
    id_token = json.load(response)["idToken"]

with urllib.request.urlopen(f"{base}/{project}/.well-known/openid-configuration") as response:
    discovery = json.load(response)
signing_key = jwt.PyJWKClient(discovery["jwks_uri"]).get_signing_key_from_jwt(id_token)
claims = jwt.decode(id_token, signing_key.key, algorithms=["RS256"], audience=project, issuer=discovery["issuer"])
assert claims["firebase"]["sign_in_provider"] == "anonymous", claims

# A token whose payload was changed fails verification.
header, payload, signature = id_token.split(".")
forged = ".".join([header, payload[:-2] + ("A" if payload[-2] != "A" else "B") + payload[-1], signature])
try:
    jwt.decode(forged, signing_key.key, algorithms=["RS256"], audience=project, issuer=discovery["issuer"])
    raise AssertionError("forged token verified")
except jwt.InvalidTokenError:
    pass
print("PyJWT checks passed")
