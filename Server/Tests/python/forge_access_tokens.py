#!/usr/bin/env python3
"""Forged and genuine OAuth access tokens (RFC 9068) of a Flint project's OpenID provider, made with Python's
`cryptography` (independently of Flint), for FlintAdmin's `verifyAccessToken` tests.

    forge_access_tokens.py SERVER_URL PROJECT TENANT NOW

prints one JSON object: the published keys as a JWK Set (`jwks`) and `tokens`, a name -> token map. Every token is
made for PROJECT's issuer (SERVER_URL/PROJECT) and its default audience (the issuer's /userinfo) at the instant NOW
(epoch seconds), with the scopes "openid email notes:read". The names starting with "valid" are genuine
("valid-in-tenant" is TENANT's: issuer SERVER_URL/PROJECT/tenants/TENANT); every other one must be refused, as its
name says.
"""
import json
import sys

from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from forge_tokens import ISSUER_PREFIX, b64url, jwk, rs256, segment


def main():
    server, project, tenant, now = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], int(sys.argv[4])
    issuer = server + "/" + project
    tenant_issuer = issuer + "/tenants/" + tenant
    published = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    kid = "forged-key-1"
    header = {"alg": "RS256", "kid": kid, "typ": "at+jwt"}

    def claims(**changes):
        base = {"iss": issuer, "aud": issuer + "/userinfo", "sub": "user-1", "client_id": "client-1",
                "scope": "openid email notes:read", "iat": now - 100, "exp": now + 3500, "auth_time": now - 200,
                "jti": "family-1.abc", "acr": "urn:flint:acr:1fa", "amr": ["pwd"]}
        for name, value in changes.items():
            if value is None:
                base.pop(name, None)
            else:
                base[name] = value
        return base

    valid = rs256(published, header, claims())
    head, _, signature = valid.split(".")
    public_pem = published.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo)
    hs256_input = segment(dict(header, alg="HS256")) + "." + segment(claims())
    mac = hmac.HMAC(public_pem, hashes.SHA256())
    mac.update(hs256_input.encode())
    firebase_claims = {"iss": ISSUER_PREFIX + project, "aud": project, "sub": "user-1", "user_id": "user-1",
                       "iat": now - 100, "exp": now + 3500, "auth_time": now - 200,
                       "firebase": {"sign_in_provider": "password"}}

    tokens = {
        "valid": valid,
        "valid-typ-application-at+jwt": rs256(published, dict(header, typ="application/at+jwt"), claims()),
        "valid-typ-in-capitals": rs256(published, dict(header, typ="AT+JWT"), claims()),
        "valid-audience-array": rs256(published, header, claims(aud=["https://other.example/api", issuer + "/userinfo"])),
        "valid-not-before-now": rs256(published, header, claims(nbf=now)),
        "valid-in-tenant": rs256(published, header, claims(iss=tenant_issuer, aud=tenant_issuer + "/userinfo",
                                                           tenant=tenant)),
        # The same claims as an ID token's header says (typ JWT), or none.
        "typ-jwt": rs256(published, dict(header, typ="JWT"), claims()),
        "no-typ": rs256(published, {"alg": "RS256", "kid": kid}, claims()),
        "firebase-id-token": rs256(published, dict(header, typ="JWT"), firebase_claims),
        "firebase-claims-typed-at+jwt": rs256(published, header, firebase_claims),
        "wrong-audience": rs256(published, header, claims(aud="https://other.example/api")),
        "audience-array-without-resource": rs256(published, header, claims(aud=["https://other.example/api"])),
        "numeric-audience": rs256(published, header, claims(aud=7)),
        "no-audience": rs256(published, header, claims(aud=None)),
        "wrong-issuer": rs256(published, header, claims(iss=server + "/another-project")),
        "tenant-issuer": rs256(published, header, claims(iss=tenant_issuer)),
        "signed-by-another-key": rs256(stranger, header, claims()),
        "unknown-kid": rs256(published, dict(header, kid="no-such-key"), claims()),
        "no-kid": rs256(published, {"alg": "RS256", "typ": "at+jwt"}, claims()),
        "alg-none": segment({"alg": "none", "kid": kid, "typ": "at+jwt"}) + "." + segment(claims()) + ".",
        "hs256-with-the-public-key": hs256_input + "." + b64url(mac.finalize()),
        "payload-changed-after-signing": head + "." + segment(claims(scope="openid email notes:read notes:write"))
                                         + "." + signature,
        "no-subject": rs256(published, header, claims(sub=None)),
        "no-client-id": rs256(published, header, claims(client_id=None)),
        "numeric-scope": rs256(published, header, claims(scope=7)),
        "expired": rs256(published, header, claims(iat=now - 3700, exp=now - 100)),
        "expired-a-second-ago": rs256(published, header, claims(iat=now - 3601, exp=now - 1)),
        "issued-in-the-future": rs256(published, header, claims(iat=now + 100, exp=now + 3700)),
        "not-yet-valid": rs256(published, header, claims(nbf=now + 100)),
        "no-expiry": rs256(published, header, claims(exp=None)),
        "no-issued-at": rs256(published, header, claims(iat=None)),
    }
    print(json.dumps({"jwks": {"keys": [jwk(published, kid)]}, "tokens": tokens}))


if __name__ == "__main__":
    main()
