#!/usr/bin/env python3
"""WebAuthn registration and assertion inputs for Flint's relying-party tests (WebAuthnVerifierTests), made with
python-fido2 and cryptography: an implementation independent of Flint's. The valid ones are checked with fido2's
own verifiers before they are printed, so a failure in Flint is Flint's.

Prints one JSON document on stdout:
  {"rpId", "origin", "registrations": [case...], "assertions": [case...]}
Every case has "name", "expect" ("ok" or the name of the WebAuthnError case Flint must throw), "challenge",
"clientDataJSON" and "requireUV"; a registration has "attestationObject" and, when valid, "credential" (what Flint
must return); an assertion has "authenticatorData", "signature", "credential" (as stored) and, when valid,
"newSignCount". An "unsupportedAlgorithm" case also has "algorithm". Binary values are base64url without padding.
Keys are fresh on every run; the cases are fixed.
"""

import datetime
import json
import struct
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID
from fido2 import cbor, cose
from fido2.attestation import NoneAttestation, PackedAttestation
from fido2.utils import sha256, websafe_encode
from fido2.webauthn import (
    AttestationObject,
    AttestedCredentialData,
    AuthenticatorData,
    CollectedClientData,
)

RP_ID = "example.com"
ORIGIN = "https://example.com"
RP_HASH = sha256(RP_ID.encode())
FLAG = AuthenticatorData.FLAG
UP, UV, BE, BS, AT, ED = FLAG.UP, FLAG.UV, FLAG.BE, FLAG.BS, FLAG.AT, FLAG.ED
AAGUID = bytes(range(0x10, 0x20))
OID_AAGUID = x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")
REGISTRATION_CHALLENGE = bytes(range(32))
ASSERTION_CHALLENGE = bytes(range(100, 132))


def b64(data: bytes) -> str:
    return websafe_encode(bytes(data))


class Key:
    """A credential or attestation key of one COSE algorithm: its fido2 COSE form, and signing with cryptography."""

    def __init__(self, algorithm: str):
        self.algorithm = algorithm
        if algorithm == "ES256":
            self.private = ec.generate_private_key(ec.SECP256R1())
            self.cose = cose.ES256.from_cryptography_key(self.private.public_key())
        elif algorithm == "RS256":
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            self.cose = cose.RS256.from_cryptography_key(self.private.public_key())
        elif algorithm == "EdDSA":
            self.private = ed25519.Ed25519PrivateKey.generate()
            self.cose = cose.EdDSA.from_cryptography_key(self.private.public_key())
        elif algorithm == "RS1":  # SHA-1: must be refused
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            self.cose = cose.RS1.from_cryptography_key(self.private.public_key())
        elif algorithm == "RS256-1024":  # too short: must be refused
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=1024)
            self.cose = cose.RS256.from_cryptography_key(self.private.public_key())
        else:
            raise ValueError(algorithm)
        self.cose_bytes = cbor.encode(self.cose)

    def sign(self, data: bytes) -> bytes:
        if isinstance(self.private, ec.EllipticCurvePrivateKey):
            return self.private.sign(data, ec.ECDSA(hashes.SHA256()))  # DER, as WebAuthn sends it
        if isinstance(self.private, rsa.RSAPrivateKey):
            digest = hashes.SHA1() if self.algorithm == "RS1" else hashes.SHA256()
            return self.private.sign(data, padding.PKCS1v15(), digest)
        return self.private.sign(data)


def attestation_certificate(key: Key, *, ca=False, aaguid=AAGUID, ou="Authenticator Attestation") -> bytes:
    """A self-made packed attestation certificate (WebAuthn §8.2.1), DER."""
    names = [x509.NameAttribute(NameOID.COUNTRY_NAME, "SE"), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Flint Tests")]
    if ou is not None:
        names.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou))
    names.append(x509.NameAttribute(NameOID.COMMON_NAME, "Flint Test Authenticator"))
    subject = x509.Name(names)
    now = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.private.public_key())
        .serial_number(4711)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if aaguid is not None:
        # An OCTET STRING holding the 16 bytes, inside the extension's own OCTET STRING.
        builder = builder.add_extension(x509.UnrecognizedExtension(OID_AAGUID, b"\x04\x10" + aaguid), critical=False)
    return builder.sign(key.private, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


def client_data(kind: str, challenge: bytes, origin: str = ORIGIN, **extra) -> bytes:
    return bytes(CollectedClientData.create(type=kind, challenge=challenge, origin=origin, **extra))


def raw_auth_data(flags: int, counter: int, rest: bytes = b"", rp_hash: bytes = RP_HASH) -> bytes:
    """Authenticator data put together by hand, for the hostile cases fido2's own constructor would refuse."""
    return rp_hash + struct.pack(">BI", flags, counter) + rest


registrations = []
assertions = []


def add_registration(name, expect, client, attestation_object, *, credential=None, require_uv=True, **more):
    registrations.append({
        "name": name, "expect": expect, "challenge": b64(REGISTRATION_CHALLENGE), "clientDataJSON": b64(client),
        "attestationObject": b64(attestation_object), "requireUV": require_uv, "credential": credential, **more,
    })


def registration(key: Key, fmt="none", *, flags=UP | UV | AT, counter=0, extensions=None, credential_id=None,
                 attestation_key: Key | None = None):
    """A valid registration, checked with fido2: (clientDataJSON, attestationObject, the expected credential)."""
    credential_id = credential_id or sha256(key.cose_bytes)[:20]
    client = client_data("webauthn.create", REGISTRATION_CHALLENGE)
    attested = AttestedCredentialData.create(AAGUID, credential_id, key.cose)
    auth_data = AuthenticatorData.create(RP_HASH, flags, counter, attested, extensions)
    statement = {}
    if fmt == "packed":
        signer = attestation_key or key
        statement = {"alg": signer.cose.ALGORITHM, "sig": signer.sign(auth_data + sha256(client))}
        if attestation_key:
            statement["x5c"] = [attestation_certificate(attestation_key)]
        PackedAttestation().verify(statement, auth_data, sha256(client))
    else:
        NoneAttestation().verify(statement, auth_data, sha256(client))
    attestation_object = bytes(AttestationObject.create(fmt, auth_data, statement))
    expected = {
        "credentialId": b64(credential_id), "publicKey": b64(key.cose_bytes), "algorithm": key.cose.ALGORITHM,
        "signCount": counter, "aaguid": b64(AAGUID), "attestationFormat": fmt,
        "backupEligible": bool(flags & BE), "backedUp": bool(flags & BS),
    }
    return client, attestation_object, expected


def packed_object(auth_data: bytes, client: bytes, signer: Key, **statement_extra) -> bytes:
    statement = {"alg": signer.cose.ALGORITHM, "sig": signer.sign(auth_data + sha256(client)), **statement_extra}
    return cbor.encode({"fmt": "packed", "authData": auth_data, "attStmt": statement})


def none_object(auth_data: bytes, statement=None) -> bytes:
    return cbor.encode({"fmt": "none", "authData": auth_data, "attStmt": statement or {}})


def attested_bytes(key: Key, credential_id: bytes = b"credential-0001", aaguid: bytes = AAGUID) -> bytes:
    return aaguid + struct.pack(">H", len(credential_id)) + credential_id + key.cose_bytes


def cbor_header(major: int, value: int) -> bytes:
    """A CBOR initial byte and argument in the 8-byte form, whatever the value (for declared lengths that lie)."""
    return bytes([major << 5 | 27]) + struct.pack(">Q", value)


es256, rs256, eddsa = Key("ES256"), Key("RS256"), Key("EdDSA")
other = Key("ES256")
attestation_key = Key("ES256")
CREATE = client_data("webauthn.create", REGISTRATION_CHALLENGE)

# --- Registrations: valid -------------------------------------------------------------------------------------------

for key in (es256, rs256, eddsa):
    for fmt in ("none", "packed"):
        client, obj, expected = registration(key, fmt)
        add_registration(f"{fmt}-{key.algorithm}", "ok", client, obj, credential=expected)
client, obj, expected = registration(es256, "packed", attestation_key=attestation_key)
add_registration("packed-x5c-ES256", "ok", client, obj, credential=expected)
client, obj, expected = registration(rs256, "packed", attestation_key=Key("RS256"))
add_registration("packed-x5c-RS256", "ok", client, obj, credential=expected)
client, obj, expected = registration(
    eddsa, "none", flags=UP | UV | AT | BE | BS | ED, counter=7, extensions={"credProtect": 2, "hmac-secret": True})
add_registration("extensions-backup-flags-counter", "ok", client, obj, credential=expected)
client, obj, expected = registration(es256, "none", flags=UP | AT)
add_registration("uv-off-not-required", "ok", client, obj, credential=expected, require_uv=False)
client, obj, expected = registration(es256, "none", credential_id=bytes(1023))
add_registration("credential-id-1023-bytes", "ok", client, obj, credential=expected)

# --- Registrations: hostile -----------------------------------------------------------------------------------------

good_auth = raw_auth_data(UP | UV | AT, 0, attested_bytes(es256))
add_registration("wrong-origin", "originNotAllowed", client_data("webauthn.create", REGISTRATION_CHALLENGE,
                 origin="https://evil.example.com"), none_object(good_auth))
add_registration("origin-with-port", "originNotAllowed", client_data("webauthn.create", REGISTRATION_CHALLENGE,
                 origin="https://example.com:8443"), none_object(good_auth))
add_registration("wrong-type", "wrongCeremonyType", client_data("webauthn.get", REGISTRATION_CHALLENGE),
                 none_object(good_auth))
add_registration("wrong-challenge", "challengeMismatch", client_data("webauthn.create", bytes(32)),
                 none_object(good_auth))
add_registration("challenge-prefix", "challengeMismatch", client_data("webauthn.create", REGISTRATION_CHALLENGE[:31]),
                 none_object(good_auth))
add_registration("cross-origin", "crossOriginNotAllowed", client_data("webauthn.create", REGISTRATION_CHALLENGE,
                 cross_origin=True), none_object(good_auth))
add_registration("token-binding-present", "tokenBindingNotSupported", client_data(
    "webauthn.create", REGISTRATION_CHALLENGE, tokenBinding={"status": "present", "id": "AAAA"}), none_object(good_auth))
add_registration("wrong-rp-id-hash", "relyingPartyMismatch", CREATE, none_object(
    raw_auth_data(UP | UV | AT, 0, attested_bytes(es256), rp_hash=sha256(b"evil.com"))))
add_registration("user-not-present", "userNotPresent", CREATE,
                 none_object(raw_auth_data(UV | AT, 0, attested_bytes(es256))))
add_registration("user-not-verified", "userNotVerified", CREATE,
                 none_object(raw_auth_data(UP | AT, 0, attested_bytes(es256))))
add_registration("no-attested-credential", "missingAttestedCredential", CREATE, none_object(raw_auth_data(UP | UV, 0)))
add_registration("none-with-statement", "attestationInvalid", CREATE, none_object(good_auth, {"sig": b"\x00" * 8}))
add_registration("packed-alg-mismatch", "attestationInvalid", CREATE, cbor.encode({
    "fmt": "packed", "authData": good_auth, "attStmt": {"alg": -257, "sig": es256.sign(good_auth + sha256(CREATE))}}))
add_registration("packed-signature-by-other-key", "attestationInvalid", CREATE, packed_object(good_auth, CREATE, other))
add_registration("packed-signature-over-other-client-data", "attestationInvalid", CREATE, cbor.encode({
    "fmt": "packed", "authData": good_auth,
    "attStmt": {"alg": -7, "sig": es256.sign(good_auth + sha256(client_data("webauthn.create", bytes(32))))}}))
add_registration("packed-ecdaa", "attestationInvalid", CREATE, packed_object(good_auth, CREATE, es256, ecdaaKeyId=b"k"))
add_registration("packed-x5c-ca-certificate", "attestationInvalid", CREATE, packed_object(
    good_auth, CREATE, attestation_key, x5c=[attestation_certificate(attestation_key, ca=True)]))
add_registration("packed-x5c-aaguid-mismatch", "attestationInvalid", CREATE, packed_object(
    good_auth, CREATE, attestation_key, x5c=[attestation_certificate(attestation_key, aaguid=bytes(16))]))
add_registration("packed-x5c-no-ou", "attestationInvalid", CREATE, packed_object(
    good_auth, CREATE, attestation_key, x5c=[attestation_certificate(attestation_key, ou=None)]))
add_registration("packed-x5c-signed-by-credential-key", "attestationInvalid", CREATE, packed_object(
    good_auth, CREATE, es256, x5c=[attestation_certificate(attestation_key)]))
add_registration("packed-x5c-not-a-certificate", "attestationInvalid", CREATE, packed_object(
    good_auth, CREATE, attestation_key, x5c=[b"\x30\x03\x02\x01\x01"]))
add_registration("packed-statement-rs1", "unsupportedAlgorithm", CREATE, cbor.encode({
    "fmt": "packed", "authData": good_auth, "attStmt": {"alg": -65535, "sig": b"\x00" * 256}}), algorithm=-65535)
add_registration("format-fido-u2f", "unsupportedAttestationFormat", CREATE, cbor.encode(
    {"fmt": "fido-u2f", "authData": good_auth, "attStmt": {"sig": b"\x00", "x5c": [b"\x00"]}}))
add_registration("format-tpm", "unsupportedAttestationFormat", CREATE,
                 cbor.encode({"fmt": "tpm", "authData": good_auth, "attStmt": {}}))
rs1 = Key("RS1")
add_registration("credential-rs1-sha1", "unsupportedAlgorithm", CREATE, packed_object(
    raw_auth_data(UP | UV | AT, 0, attested_bytes(rs1)), CREATE, rs1), algorithm=-65535)
es384 = {1: 2, 3: -35, -1: 2, -2: bytes(48), -3: bytes(48)}
add_registration("credential-es384", "unsupportedAlgorithm", CREATE, none_object(raw_auth_data(
    UP | UV | AT, 0, AAGUID + struct.pack(">H", 4) + b"cred" + cbor.encode(es384))), algorithm=-35)
add_registration("credential-rsa-1024", "keyRejected", CREATE,
                 none_object(raw_auth_data(UP | UV | AT, 0, attested_bytes(Key("RS256-1024")))))


def with_key(cose_key: dict) -> bytes:
    return none_object(raw_auth_data(UP | UV | AT, 0, AAGUID + struct.pack(">H", 4) + b"cred" + cbor.encode(cose_key)))


es256_map = dict(es256.cose)
add_registration("cose-no-alg", "malformed", CREATE, with_key({k: v for k, v in es256_map.items() if k != 3}))
add_registration("cose-x-31-bytes", "malformed", CREATE, with_key({**es256_map, -2: es256_map[-2][1:]}))
add_registration("cose-point-not-on-curve", "keyRejected", CREATE, with_key({**es256_map, -3: bytes(32)}))
add_registration("cose-es256-with-okp-type", "malformed", CREATE, with_key({**es256_map, 1: 1}))
add_registration("cose-eddsa-curve-x448", "malformed", CREATE, with_key({**dict(eddsa.cose), -1: 7}))
add_registration("cose-not-a-map", "malformed", CREATE, none_object(raw_auth_data(
    UP | UV | AT, 0, AAGUID + struct.pack(">H", 4) + b"cred" + cbor.encode([1, 2, 3]))))
add_registration("credential-id-1024-bytes", "malformed", CREATE, none_object(
    raw_auth_data(UP | UV | AT, 0, attested_bytes(es256, credential_id=bytes(1024)))))
add_registration("credential-id-longer-than-data", "malformed", CREATE, none_object(
    raw_auth_data(UP | UV | AT, 0, AAGUID + struct.pack(">H", 500) + b"short")))
add_registration("auth-data-trailing-bytes", "malformed", CREATE, none_object(good_auth + b"\x00"))
add_registration("auth-data-extension-flag-without-extensions", "malformed", CREATE,
                 none_object(raw_auth_data(UP | UV | AT | ED, 0, attested_bytes(es256))))
add_registration("auth-data-extensions-not-a-map", "malformed", CREATE, none_object(
    raw_auth_data(UP | UV | AT | ED, 0, attested_bytes(es256) + cbor.encode([1]))))
add_registration("auth-data-truncated", "malformed", CREATE, none_object(good_auth[:30]))
add_registration("auth-data-cose-key-truncated", "malformed", CREATE, none_object(good_auth[:-5]))
add_registration("backed-up-not-eligible", "malformed", CREATE,
                 none_object(raw_auth_data(UP | UV | AT | BS, 0, attested_bytes(es256))))
add_registration("attestation-object-trailing-bytes", "malformed", CREATE, none_object(good_auth) + b"\x00")
add_registration("attestation-object-extra-member", "malformed", CREATE,
                 cbor.encode({"fmt": "none", "authData": good_auth, "attStmt": {}, "extra": 1}))
add_registration("attestation-object-auth-data-text", "malformed", CREATE,
                 cbor.encode({"fmt": "none", "authData": "text", "attStmt": {}}))
add_registration("attestation-object-not-a-map", "malformed", CREATE, cbor.encode(["none", good_auth, {}]))
add_registration("cbor-empty", "malformed", CREATE, b"")
add_registration("cbor-truncated", "malformed", CREATE, none_object(good_auth)[:40])
# Indefinite-length map: 0xBF ... 0xFF.
add_registration("cbor-indefinite-map", "malformed", CREATE,
                 b"\xbf" + cbor.encode("fmt") + cbor.encode("none") + cbor.encode("authData") + cbor.encode(good_auth)
                 + cbor.encode("attStmt") + b"\xa0\xff")
add_registration("cbor-indefinite-bytes", "malformed", CREATE,
                 b"\xa3" + cbor.encode("fmt") + cbor.encode("none") + cbor.encode("authData") + b"\x5f"
                 + cbor.encode(good_auth) + b"\xff" + cbor.encode("attStmt") + b"\xa0")
nested = []
for _ in range(40):
    nested = [nested]
add_registration("cbor-deep-nesting", "malformed", CREATE,
                 cbor.encode({"fmt": "none", "authData": good_auth, "attStmt": {"deep": nested}}))
add_registration("cbor-huge-byte-string-length", "malformed", CREATE,
                 b"\xa3" + cbor.encode("fmt") + cbor.encode("none") + cbor.encode("authData")
                 + cbor_header(2, 2**64 - 1) + good_auth + cbor.encode("attStmt") + b"\xa0")
add_registration("cbor-huge-array-count", "malformed", CREATE,
                 b"\xa3" + cbor.encode("fmt") + cbor.encode("none") + cbor.encode("authData") + cbor.encode(good_auth)
                 + cbor.encode("attStmt") + b"\xa1" + cbor.encode("x") + cbor_header(4, 2**32))
add_registration("cbor-huge-map-count", "malformed", CREATE, cbor_header(5, 2**63) + b"\x00" * 16)
add_registration("cbor-tag", "malformed", CREATE, b"\xd8\x18" + none_object(good_auth))
add_registration("cbor-float-in-extensions", "malformed", CREATE, none_object(raw_auth_data(
    UP | UV | AT | ED, 0, attested_bytes(es256) + b"\xa1" + cbor.encode("x") + b"\xf9\x3c\x00")))
add_registration("cbor-undefined", "malformed", CREATE,
                 cbor.encode({"fmt": "none", "authData": good_auth}).replace(b"\xa2", b"\xa3", 1)
                 + cbor.encode("attStmt") + b"\xf7")
add_registration("cbor-duplicate-key", "malformed", CREATE,
                 b"\xa4" + cbor.encode("fmt") + cbor.encode("none") + cbor.encode("authData") + cbor.encode(good_auth)
                 + cbor.encode("attStmt") + b"\xa0" + cbor.encode("fmt") + cbor.encode("packed"))
add_registration("cbor-text-not-utf8", "malformed", CREATE,
                 b"\xa3" + cbor.encode("fmt") + b"\x64\xff\xfe\xfd\xfc" + cbor.encode("authData") + cbor.encode(good_auth)
                 + cbor.encode("attStmt") + b"\xa0")
add_registration("cbor-bytes-map-key", "malformed", CREATE,
                 b"\xa1" + cbor.encode(b"fmt") + cbor.encode("none"))
add_registration("cbor-integer-beyond-int64", "malformed", CREATE,
                 b"\xa1" + cbor.encode("fmt") + cbor_header(0, 2**64 - 1))
add_registration("cbor-larger-than-64-kib", "malformed", CREATE,
                 cbor.encode({"fmt": "none", "authData": good_auth, "attStmt": {"pad": bytes(70000)}}))
add_registration("json-not-json", "malformed", b"{not json", none_object(good_auth))
add_registration("json-array", "malformed", b'["webauthn.create"]', none_object(good_auth))
add_registration("json-empty", "malformed", b"", none_object(good_auth))
add_registration("json-no-challenge", "malformed",
                 json.dumps({"type": "webauthn.create", "origin": ORIGIN}).encode(), none_object(good_auth))
add_registration("json-challenge-number", "malformed",
                 json.dumps({"type": "webauthn.create", "challenge": 5, "origin": ORIGIN}).encode(), none_object(good_auth))
add_registration("json-challenge-padded", "malformed", json.dumps(
    {"type": "webauthn.create", "challenge": b64(REGISTRATION_CHALLENGE) + "=", "origin": ORIGIN}).encode(),
    none_object(good_auth))
add_registration("json-cross-origin-string", "malformed", json.dumps({
    "type": "webauthn.create", "challenge": b64(REGISTRATION_CHALLENGE), "origin": ORIGIN, "crossOrigin": "true"}).encode(),
    none_object(good_auth))
add_registration("json-not-utf8", "malformed", b'{"type":"webauthn.create\xff","challenge":"","origin":""}',
                 none_object(good_auth))
add_registration("json-deep-nesting", "malformed", b'{"type":"webauthn.create","x":' + b"[" * 100000 + b"]" * 100000
                 + b"}", none_object(good_auth))


# --- Assertions -----------------------------------------------------------------------------------------------------

GET = client_data("webauthn.get", ASSERTION_CHALLENGE)


def stored(key: Key, sign_count: int, algorithm=None) -> dict:
    return {"credentialId": b64(b"credential-0001"), "publicKey": b64(key.cose_bytes),
            "algorithm": algorithm or key.cose.ALGORITHM, "signCount": sign_count}


def add_assertion(name, expect, key: Key, *, stored_count=0, counter=0, flags=UP | UV, client=GET, auth_data=None,
                  signature=None, signer=None, require_uv=True, credential=None, **more):
    auth_data = auth_data if auth_data is not None else raw_auth_data(flags, counter)
    signature = signature if signature is not None else (signer or key).sign(auth_data + sha256(client))
    if expect == "ok":
        key.cose.verify(auth_data + sha256(client), signature)  # fido2 agrees
        more["newSignCount"] = counter
    assertions.append({
        "name": name, "expect": expect, "challenge": b64(ASSERTION_CHALLENGE), "clientDataJSON": b64(client),
        "authenticatorData": b64(auth_data), "signature": b64(signature), "requireUV": require_uv,
        "credential": credential or stored(key, stored_count), **more,
    })


add_assertion("ES256-no-counter", "ok", es256)
add_assertion("RS256-counter-moves-on", "ok", rs256, stored_count=5, counter=6)
add_assertion("EdDSA-first-count", "ok", eddsa, counter=1)
add_assertion("ES256-counter-jumps", "ok", es256, stored_count=1, counter=0xFFFFFFFF)
add_assertion("extensions-and-backup", "ok", es256, counter=3, auth_data=bytes(AuthenticatorData.create(
    RP_HASH, UP | UV | BE | BS | ED, 3, extensions={"credProtect": 2})))
add_assertion("uv-off-not-required", "ok", eddsa, flags=UP, require_uv=False)
add_assertion("fido2-made-auth-data", "ok", rs256, counter=9,
              auth_data=bytes(AuthenticatorData.create(RP_HASH, UP | UV, 9)))

add_assertion("wrong-origin", "originNotAllowed", es256,
              client=client_data("webauthn.get", ASSERTION_CHALLENGE, origin="http://example.com"))
add_assertion("wrong-type", "wrongCeremonyType", es256, client=client_data("webauthn.create", ASSERTION_CHALLENGE))
add_assertion("wrong-challenge", "challengeMismatch", es256,
              client=client_data("webauthn.get", REGISTRATION_CHALLENGE))
add_assertion("cross-origin", "crossOriginNotAllowed", es256,
              client=client_data("webauthn.get", ASSERTION_CHALLENGE, cross_origin=True, topOrigin="https://evil.com"))
add_assertion("wrong-rp-id-hash", "relyingPartyMismatch", es256,
              auth_data=raw_auth_data(UP | UV, 1, rp_hash=sha256(b"evil.com")))
add_assertion("rp-id-hash-of-subdomain", "relyingPartyMismatch", es256,
              auth_data=raw_auth_data(UP | UV, 1, rp_hash=sha256(b"login.example.com")))
add_assertion("user-not-present", "userNotPresent", es256, flags=UV)
add_assertion("user-not-verified", "userNotVerified", es256, flags=UP)
good = raw_auth_data(UP | UV, 0)
flipped = bytearray(es256.sign(good + sha256(GET)))
flipped[-1] ^= 0x01
add_assertion("bad-signature", "signatureInvalid", es256, signature=bytes(flipped))
add_assertion("signature-by-other-key", "signatureInvalid", es256, signer=other)
add_assertion("signature-over-client-data-not-its-hash", "signatureInvalid", es256, signature=es256.sign(good + GET))
raw = decode_dss_signature(es256.sign(good + sha256(GET)))
add_assertion("es256-signature-not-der", "signatureInvalid", es256,
              signature=raw[0].to_bytes(32, "big") + raw[1].to_bytes(32, "big"))
add_assertion("rs256-signature-truncated", "signatureInvalid", rs256,
              signature=rs256.sign(good + sha256(GET))[:-1])
add_assertion("eddsa-signature-by-other-key", "signatureInvalid", eddsa, signer=Key("EdDSA"))
add_assertion("signature-over-other-auth-data", "signatureInvalid", es256, auth_data=good,
              signature=es256.sign(raw_auth_data(UP | UV, 1) + sha256(GET)))
add_assertion("counter-goes-back", "signCountWentBack", es256, stored_count=10, counter=5)
add_assertion("counter-stays", "signCountWentBack", es256, stored_count=7, counter=7)
add_assertion("counter-resets-to-zero", "signCountWentBack", eddsa, stored_count=5, counter=0)
add_assertion("attested-credential-on-assertion", "malformed", es256,
              auth_data=raw_auth_data(UP | UV | AT, 1, attested_bytes(es256)))
add_assertion("trailing-bytes", "malformed", es256, auth_data=good + b"\x00")
add_assertion("truncated-auth-data", "malformed", es256, auth_data=good[:36])
add_assertion("extension-flag-without-extensions", "malformed", es256, flags=UP | UV | ED)
add_assertion("backed-up-not-eligible", "malformed", es256, flags=UP | UV | BS)
add_assertion("json-not-json", "malformed", es256, client=b"not json at all")
add_assertion("json-type-missing", "malformed", es256,
              client=json.dumps({"challenge": b64(ASSERTION_CHALLENGE), "origin": ORIGIN}).encode())
add_assertion("stored-credential-rs1", "unsupportedAlgorithm", rs1, credential=stored(rs1, 0), algorithm=-65535)
add_assertion("stored-algorithm-not-the-keys", "malformed", es256, credential=stored(es256, 0, algorithm=-8))
add_assertion("stored-key-not-cbor", "malformed", es256,
              credential={**stored(es256, 0), "publicKey": b64(b"\xbf\xff")})

json.dump({"rpId": RP_ID, "origin": ORIGIN, "registrations": registrations, "assertions": assertions}, sys.stdout)
