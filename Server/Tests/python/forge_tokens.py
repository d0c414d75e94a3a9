#!/usr/bin/env python3
"""Forged and genuine Firebase ID tokens, made with Python's `cryptography` (independently of Flint), for FlintAdmin's
token verification tests.

    forge_tokens.py PROJECT NOW

prints one JSON object: the published keys as Google's X.509 map (`certificates`) and as a JWK Set (`jwks`), and
`tokens`, a name -> token map. Every token is made for PROJECT at the instant NOW (epoch seconds); "valid" and
"valid-in-tenant" are genuine, every other one must be refused, as its name says.
"""
import base64
import datetime
import json
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

ISSUER_PREFIX = "https://securetoken.google.com/"
SESSION_ISSUER_PREFIX = "https://session.firebase.google.com/"
CUSTOM_TOKEN_AUDIENCE = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def segment(value) -> str:
    return b64url(json.dumps(value, separators=(",", ":")).encode())


def rs256(key, header, claims) -> str:
    signing_input = segment(header) + "." + segment(claims)
    signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return signing_input + "." + b64url(signature)


def certificate(key, now) -> str:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "securetoken.forged.test")])
    start = datetime.datetime.fromtimestamp(now - 86400, datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(start)
            .not_valid_after(start + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def jwk(key, kid) -> dict:
    numbers = key.public_key().public_numbers()
    length = lambda n: n.to_bytes((n.bit_length() + 7) // 8, "big")
    return {"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
            "n": b64url(length(numbers.n)), "e": b64url(length(numbers.e))}


def main():
    project, now = sys.argv[1], int(sys.argv[2])
    published = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    kid, small_kid = "forged-key-1", "forged-small-key"
    header = {"alg": "RS256", "kid": kid, "typ": "JWT"}

    def claims(**changes):
        base = {"iss": ISSUER_PREFIX + project, "aud": project, "sub": "user-1", "user_id": "user-1",
                "iat": now - 100, "exp": now + 3500, "auth_time": now - 200, "email": "ada@example.com",
                "firebase": {"sign_in_provider": "password", "identities": {"email": ["ada@example.com"]}}}
        for name, value in changes.items():
            if value is None:
                base.pop(name, None)
            else:
                base[name] = value
        return base

    tenant_claims = claims()
    tenant_claims["firebase"] = dict(tenant_claims["firebase"], tenant="tenant-1")
    valid = rs256(published, header, claims())
    head, _, signature = valid.split(".")
    public_pem = published.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo)
    hs256_input = segment({"alg": "HS256", "kid": kid, "typ": "JWT"}) + "." + segment(claims())
    mac = hmac.HMAC(public_pem, hashes.SHA256())
    mac.update(hs256_input.encode())

    tokens = {
        "valid": valid,
        "valid-in-tenant": rs256(published, header, tenant_claims),
        "signed-by-another-key": rs256(stranger, header, claims()),
        "unknown-kid": rs256(published, dict(header, kid="no-such-key"), claims()),
        "no-kid": rs256(published, {"alg": "RS256", "typ": "JWT"}, claims()),
        "custom-token": rs256(published, {"alg": "RS256", "typ": "JWT"},
                              claims(aud=CUSTOM_TOKEN_AUDIENCE, iss="admin@forged.test", sub="admin@forged.test")),
        "alg-none": segment({"alg": "none", "kid": kid, "typ": "JWT"}) + "." + segment(claims()) + ".",
        "hs256-with-the-public-key": hs256_input + "." + b64url(mac.finalize()),
        "rs256-key-under-1024-bits": rs256(small, dict(header, kid=small_kid), claims()),
        "payload-changed-after-signing": head + "." + segment(claims(sub="admin", user_id="admin")) + "." + signature,
        "wrong-audience": rs256(published, header, claims(aud="another-project")),
        "wrong-issuer": rs256(published, header, claims(iss=ISSUER_PREFIX + "another-project")),
        "session-cookie-issuer": rs256(published, header, claims(iss=SESSION_ISSUER_PREFIX + project)),
        "no-subject": rs256(published, header, claims(sub=None)),
        "empty-subject": rs256(published, header, claims(sub="")),
        "subject-of-129-characters": rs256(published, header, claims(sub="u" * 129)),
        "numeric-subject": rs256(published, header, claims(sub=7)),
        "expired": rs256(published, header, claims(iat=now - 3700, exp=now - 100, auth_time=now - 3700)),
        "expired-a-second-ago": rs256(published, header, claims(iat=now - 3601, exp=now - 1)),
        "issued-in-the-future": rs256(published, header, claims(iat=now + 100, exp=now + 3700)),
        "signed-in-in-the-future": rs256(published, header, claims(auth_time=now + 100)),
        "no-auth-time": rs256(published, header, claims(auth_time=None)),
        "no-expiry": rs256(published, header, claims(exp=None)),
        "string-expiry": rs256(published, header, claims(exp=str(now + 3500))),
    }
    print(json.dumps({
        "certificates": {kid: certificate(published, now), small_kid: certificate(small, now)},
        "jwks": {"keys": [jwk(published, kid), jwk(small, small_kid)]},
        "tokens": tokens,
    }))


if __name__ == "__main__":
    main()
