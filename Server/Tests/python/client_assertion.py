#!/usr/bin/env python3
"""RFC 7523 client assertions (`private_key_jwt`) made with PyJWT and `cryptography`, independently of Flint, for
OAuthClientAssertionTests.

    client_assertion.py CLIENT_ID OTHER_CLIENT_ID ISSUER NOW

makes a fresh RSA key and a fresh EC P-256 key, and prints one JSON object: `jwks`, the JWK Set publishing both (every
member a string), and `assertions`, a name -> JWT map, each made for CLIENT_ID at the instant NOW (epoch seconds) for
the provider whose issuer is ISSUER. The "valid_*" ones are genuine; every other one must be refused, as its name says.
"""
import base64
import hashlib
import hmac
import json
import sys
import uuid

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def segment(value) -> str:
    return b64url(json.dumps(value, separators=(",", ":")).encode())


def integer(value: int, length: int) -> str:
    return b64url(value.to_bytes(length, "big"))


def main() -> None:
    client_id, other_client_id, issuer, now = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    token_endpoint = issuer + "/token"

    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    rsa_numbers = rsa_key.public_key().public_numbers()
    ec_numbers = ec_key.public_key().public_numbers()
    jwks = {"keys": [
        {"kty": "RSA", "kid": "rsa-1", "use": "sig", "alg": "RS256",
         "n": integer(rsa_numbers.n, (rsa_numbers.n.bit_length() + 7) // 8), "e": integer(rsa_numbers.e, 3)},
        {"kty": "EC", "kid": "ec-1", "use": "sig", "alg": "ES256", "crv": "P-256",
         "x": integer(ec_numbers.x, 32), "y": integer(ec_numbers.y, 32)},
    ]}

    def claims(**changes):
        base = {"iss": client_id, "sub": client_id, "aud": token_endpoint, "iat": now, "exp": now + 120,
                "jti": str(uuid.uuid4())}
        base.update(changes)
        return {name: value for name, value in base.items() if value is not None}

    def rs256(payload, kid="rsa-1", key=rsa_key):
        return jwt.encode(payload, key, algorithm="RS256", headers={"kid": kid})

    def es256(payload, kid="ec-1"):
        return jwt.encode(payload, ec_key, algorithm="ES256", headers={"kid": kid})

    replayed = claims()
    # HS256 keyed with the published RSA key's PEM: the classic algorithm confusion. PyJWT refuses to make it (it
    # will not use an asymmetric key as an HMAC secret), so it is made by hand.
    public_pem = rsa_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    confusion_input = segment({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}) + "." + segment(claims())
    confusion = confusion_input + "." + b64url(hmac.new(public_pem, confusion_input.encode(), hashlib.sha256).digest())

    assertions = {
        "valid_rs256": rs256(replayed),
        # The same jti again, in a newly signed assertion: a replay all the same.
        "replayed_jti": rs256(dict(replayed, iat=now + 1)),
        "valid_es256_issuer_audience": es256(claims(aud=issuer)),
        "valid_es256_revocation": es256(claims(aud=[issuer + "/revoke", "https://elsewhere.example/"])),
        "valid_rs256_introspection": rs256(claims(aud=issuer + "/introspect")),
        "wrong_audience": rs256(claims(aud="https://elsewhere.example/token")),
        "expired": rs256(claims(iat=now - 600, exp=now - 10)),
        "expires_too_late": rs256(claims(exp=now + 7200)),
        "issued_in_future": rs256(claims(iat=now + 1200, exp=now + 1800)),
        "issuer_not_subject": rs256(claims(sub="someone-else")),
        "no_jti": rs256(claims(jti=None)),
        "alg_none": segment({"alg": "none", "typ": "JWT"}) + "." + segment(claims()) + ".",
        "hs256_public_key_secret": confusion,
        "unknown_kid": rs256(claims(), kid="not-published", key=stranger),
        "stranger_under_known_kid": rs256(claims(), key=stranger),
        "es256_under_rsa_kid": es256(claims(), kid="rsa-1"),
        "for_secret_client": rs256(claims(iss=other_client_id, sub=other_client_id)),
    }
    print(json.dumps({"jwks": jwks, "assertions": assertions}))


if __name__ == "__main__":
    main()
