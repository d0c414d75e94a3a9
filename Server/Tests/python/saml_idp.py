#!/usr/bin/env python3
"""A SAML 2.0 identity provider for Flint's tests, independent of Flint's code: responses are built with lxml,
signed with signxml (enveloped, exclusive C14N) and encrypted with cryptography (XML-Enc written here: AES-GCM or
AES-CBC data, RSA-OAEP key transport). Used as a library (build_response, make_keypair) and from the command line:

  python3 saml_idp.py response '<JSON of build_response keyword arguments>'
      Prints the response's base64. Keys and certificates are PEM strings ("key", "cert", "encrypt_to_cert"); times
      ("not_before", "not_on_or_after", "authn_instant") are xs:dateTime strings.
  python3 saml_idp.py vectors OUTDIR
      Writes OUTDIR/<name>.json for each case of SAMLResponseReaderTests: {"name", "xml" (base64), "certificates"
      (the trusted ones, base64 DER or PEM), "spKey" (PEM or null), "expect" ("accept" or the SAMLError case Flint
      must throw), "fields" (when accepted: what Flint must read; times as seconds since 1970)}.
      Keys are fresh on every run; the cases are fixed.
"""

import base64
import copy
import datetime
import json
import os
import sys
import uuid

from cryptography import x509
from cryptography.hazmat.primitives import hashes, padding as symmetric_padding, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.x509.oid import NameOID
from lxml import etree
from signxml import CanonicalizationMethod, XMLSigner, XMLVerifier

SAMLP = "urn:oasis:names:tc:SAML:2.0:protocol"
SAML = "urn:oasis:names:tc:SAML:2.0:assertion"
DS = "http://www.w3.org/2000/09/xmldsig#"
XENC = "http://www.w3.org/2001/04/xmlenc#"
NSMAP = {"samlp": SAMLP, "saml": SAML}
EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"
SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success"
BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer"

DATA_ALGORITHMS = {
    "aes256-gcm": "http://www.w3.org/2009/xmlenc11#aes256-gcm",
    "aes128-gcm": "http://www.w3.org/2009/xmlenc11#aes128-gcm",
    "aes128-cbc": XENC + "aes128-cbc",
    "aes256-cbc": XENC + "aes256-cbc",
}
KEY_TRANSPORTS = {"rsa-oaep": XENC + "rsa-oaep-mgf1p", "rsa-1_5": XENC + "rsa-1_5"}


# Keys and certificates

def make_keypair(cn: str, kind: str = "rsa") -> tuple[str, str]:
    """A fresh key ("rsa": 2048 bits, or "ec": P-256) and a self-signed certificate for it: (key PEM PKCS#8, cert PEM)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048) if kind == "rsa" \
        else ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=365)).sign(key, hashes.SHA256()))
    return key_pem(key), cert_pem(cert)


def key_pem(key) -> str:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def cert_pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def cert_base64_der(pem: str) -> str:
    """The certificate as Firebase's inboundSamlConfigs carry it: base64 DER, no armour."""
    return base64.b64encode(x509.load_pem_x509_certificate(pem.encode()).public_bytes(serialization.Encoding.DER)).decode()


# Building, signing, encrypting

def xml_time(value) -> str:
    """An xs:dateTime in UTC: a datetime, or a string kept as it is."""
    if isinstance(value, str):
        return value
    return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_id() -> str:
    return "_" + uuid.uuid4().hex


def element(parent, namespace: str, name: str, text: str | None = None, **attributes):
    made = etree.SubElement(parent, f"{{{namespace}}}{name}", {k: v for k, v in attributes.items() if v is not None})
    if text is not None:
        made.text = text
    return made


class _SHA1Signer(XMLSigner):
    """signxml refuses SHA-1 unless told otherwise: the refusal vectors need it."""

    def check_deprecated_methods(self):
        pass


def sign(root, reference_id: str, key: str, cert: str, digest: str = "sha256", algorithm: str | None = None,
         c14n=CanonicalizationMethod.EXCLUSIVE_XML_CANONICALIZATION_1_0):
    """`root` with an enveloped signature of it (exclusive C14N) placed after its Issuer, as SAML's schema has it."""
    algorithm = algorithm or ("ecdsa-sha256" if _is_ec(key) else "rsa-sha256")
    signer_class = _SHA1Signer if "sha1" in (algorithm + digest) else XMLSigner
    signer = signer_class(signature_algorithm=algorithm, digest_algorithm=digest,
                          c14n_algorithm=c14n)
    signer.namespaces = {"ds": DS}
    issuer = root.find(f"{{{SAML}}}Issuer")
    placeholder = etree.Element(f"{{{DS}}}Signature", Id="placeholder", nsmap={"ds": DS})
    if issuer is not None:
        issuer.addnext(placeholder)
    else:
        root.insert(0, placeholder)
    signed = signer.sign(root, key=key, cert=cert, reference_uri=reference_id, id_attribute="ID")
    return signed


def _is_ec(key: str) -> bool:
    return isinstance(serialization.load_pem_private_key(key.encode(), None), ec.EllipticCurvePrivateKey)


def build_assertion(*, issuer, name_id, audience, recipient, in_response_to=None, not_before, not_on_or_after,
                    attributes=None, assertion_id=None, name_id_format=EMAIL_FORMAT, authn_instant=None,
                    session_index="_session-1"):
    assertion_id = assertion_id or new_id()
    assertion = etree.Element(f"{{{SAML}}}Assertion", {"ID": assertion_id, "Version": "2.0",
                                                       "IssueInstant": xml_time(not_before)}, nsmap={"saml": SAML})
    element(assertion, SAML, "Issuer", issuer)
    subject = element(assertion, SAML, "Subject")
    element(subject, SAML, "NameID", name_id, Format=name_id_format)
    confirmation = element(subject, SAML, "SubjectConfirmation", Method=BEARER)
    element(confirmation, SAML, "SubjectConfirmationData", Recipient=recipient, InResponseTo=in_response_to,
            NotOnOrAfter=xml_time(not_on_or_after))
    conditions = element(assertion, SAML, "Conditions", NotBefore=xml_time(not_before),
                         NotOnOrAfter=xml_time(not_on_or_after))
    element(element(conditions, SAML, "AudienceRestriction"), SAML, "Audience", audience)
    statement = element(assertion, SAML, "AuthnStatement", AuthnInstant=xml_time(authn_instant or not_before),
                        SessionIndex=session_index)
    element(element(statement, SAML, "AuthnContext"), SAML, "AuthnContextClassRef",
            "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport")
    if attributes:
        attribute_statement = element(assertion, SAML, "AttributeStatement")
        for name, values in attributes.items():
            attribute = element(attribute_statement, SAML, "Attribute", Name=name)
            for value in values if isinstance(values, list) else [values]:
                element(attribute, SAML, "AttributeValue", value)
    return assertion


def encrypt_element(node, cert: str, data_algorithm: str = "aes256-gcm", key_transport: str = "rsa-oaep"):
    """XML-Enc of `node` (Type Element) for the holder of `cert`: an xenc:EncryptedData whose ds:KeyInfo carries the
    xenc:EncryptedKey. Written here with cryptography, not with any XML security library."""
    plaintext = etree.tostring(node)
    key_size = 16 if "128" in data_algorithm else 32
    session_key = os.urandom(key_size)
    if data_algorithm.endswith("gcm"):
        iv = os.urandom(12)
        cipher_value = iv + AESGCM(session_key).encrypt(iv, plaintext, None)  # ciphertext then the 16-byte tag
    else:
        iv = os.urandom(16)
        padder = symmetric_padding.PKCS7(128).padder()
        padded = padder.update(plaintext) + padder.finalize()
        encryptor = Cipher(algorithms.AES(session_key), modes.CBC(iv)).encryptor()
        cipher_value = iv + encryptor.update(padded) + encryptor.finalize()
    public_key = x509.load_pem_x509_certificate(cert.encode()).public_key()
    if key_transport == "rsa-oaep":
        encrypted_key = public_key.encrypt(session_key, padding.OAEP(mgf=padding.MGF1(hashes.SHA1()),
                                                                     algorithm=hashes.SHA1(), label=None))
    else:
        encrypted_key = public_key.encrypt(session_key, padding.PKCS1v15())

    data = etree.Element(f"{{{XENC}}}EncryptedData", Type=XENC + "Element", nsmap={"xenc": XENC, "ds": DS})
    element(data, XENC, "EncryptionMethod", Algorithm=DATA_ALGORITHMS[data_algorithm])
    key_info = element(data, DS, "KeyInfo")
    encrypted = element(key_info, XENC, "EncryptedKey")
    method = element(encrypted, XENC, "EncryptionMethod", Algorithm=KEY_TRANSPORTS[key_transport])
    if key_transport == "rsa-oaep":
        element(method, DS, "DigestMethod", Algorithm=DS + "sha1")
    element(element(encrypted, XENC, "CipherData"), XENC, "CipherValue", base64.b64encode(encrypted_key).decode())
    element(element(data, XENC, "CipherData"), XENC, "CipherValue", base64.b64encode(cipher_value).decode())
    return data


def build_response(*, issuer, name_id, audience, destination, recipient, in_response_to=None, not_before,
                   not_on_or_after, attributes=None, sign="assertion", key=None, cert=None, digest="sha256",
                   algorithm=None, response_id=None, assertion_id=None, encrypt_to_cert=None,
                   name_id_format=EMAIL_FORMAT, data_algorithm="aes256-gcm", key_transport="rsa-oaep",
                   authn_instant=None, status=SUCCESS) -> bytes:
    """A samlp:Response with one assertion, signed as `sign` says ("assertion", "response", "both" or None) with
    `key` (its `cert` goes in KeyInfo, as IdPs do), the assertion encrypted to `encrypt_to_cert` if given (after its
    own signature, before the Response's)."""
    response_id = response_id or new_id()
    assertion = build_assertion(issuer=issuer, name_id=name_id, audience=audience, recipient=recipient,
                                in_response_to=in_response_to, not_before=not_before, not_on_or_after=not_on_or_after,
                                attributes=attributes, assertion_id=assertion_id, name_id_format=name_id_format,
                                authn_instant=authn_instant)
    if sign in ("assertion", "both"):
        assertion = sign_element(assertion, assertion.get("ID"), key, cert, digest, algorithm)
    response = etree.Element(f"{{{SAMLP}}}Response", {
        "ID": response_id, "Version": "2.0", "IssueInstant": xml_time(not_before), "Destination": destination,
        **({"InResponseTo": in_response_to} if in_response_to else {})}, nsmap=NSMAP)
    element(response, SAML, "Issuer", issuer)
    element(element(response, SAMLP, "Status"), SAMLP, "StatusCode", Value=status)
    if encrypt_to_cert:
        wrapper = element(response, SAML, "EncryptedAssertion")
        wrapper.append(encrypt_element(assertion, encrypt_to_cert, data_algorithm, key_transport))
    else:
        response.append(assertion)
    if sign in ("response", "both"):
        response = sign_element(response, response_id, key, cert, digest, algorithm)
    return etree.tostring(response, xml_declaration=True, encoding="UTF-8")


def sign_element(root, reference_id, key, cert, digest="sha256", algorithm=None, c14n=None):
    signed = sign(root, reference_id, key, cert, digest, algorithm,
                  c14n or CanonicalizationMethod.EXCLUSIVE_XML_CANONICALIZATION_1_0)
    if "sha1" not in (digest + (algorithm or "")):
        # signxml's own verifier agrees before Flint is asked (the refusal cases are altered afterwards).
        XMLVerifier().verify(copy.deepcopy(signed), x509_cert=cert, id_attribute="ID",
                             expect_references=1, ignore_ambiguous_key_info=True)
    return signed


# Vectors for SAMLResponseReaderTests

NOW = datetime.datetime(2026, 3, 4, 5, 6, 7, tzinfo=datetime.timezone.utc)
LATER = NOW + datetime.timedelta(minutes=5)
BASE = dict(issuer="https://idp.example.com/metadata", name_id="ada@example.com", audience="https://flint.example.com/sp",
            destination="https://flint.example.com/__/auth/handler",
            recipient="https://flint.example.com/__/auth/handler", in_response_to="_request-1",
            not_before=NOW, not_on_or_after=LATER, attributes={"email": "ada@example.com"})


def _epoch(value) -> float:
    return value.timestamp()


def expected_fields(xml: bytes, *, response_signed: bool, assertion_signed: bool, encrypted=False, **overrides):
    """What Flint must read from `xml`, taken from the plain XML with lxml (the encrypted case from its arguments)."""
    kwargs = {**BASE, **overrides}
    root = etree.fromstring(xml)
    assertion = root.find(f"{{{SAML}}}Assertion")
    return {
        "responseID": root.get("ID"), "issuer": kwargs["issuer"], "destination": kwargs["destination"],
        "inResponseTo": kwargs["in_response_to"], "statusCode": SUCCESS, "isResponseSigned": response_signed,
        "assertion": {
            "id": assertion.get("ID") if assertion is not None else kwargs["assertion_id"],
            "issuer": kwargs["issuer"], "isSigned": assertion_signed, "wasEncrypted": encrypted,
            "nameID": kwargs["name_id"], "nameIDFormat": EMAIL_FORMAT,
            "subjectConfirmations": [{"method": BEARER, "recipient": kwargs["recipient"], "notBefore": None,
                                      "notOnOrAfter": _epoch(kwargs["not_on_or_after"]),
                                      "inResponseTo": kwargs["in_response_to"]}],
            "notBefore": _epoch(kwargs["not_before"]), "notOnOrAfter": _epoch(kwargs["not_on_or_after"]),
            "audienceRestrictions": [[kwargs["audience"]]],
            "authnInstant": kwargs.get("authn_instant_epoch", _epoch(kwargs["not_before"])),
            "sessionIndex": "_session-1",
            "attributes": {name: values if isinstance(values, list) else [values]
                           for name, values in kwargs["attributes"].items()},
        },
    }


class Vectors:
    def __init__(self):
        self.cases = []
        self.key, self.cert = make_keypair("idp.example.com")
        self.attacker_key, self.attacker_cert = make_keypair("attacker.example.com")
        self.ec_key, self.ec_cert = make_keypair("idp-ec.example.com", "ec")
        self.sp_key, self.sp_cert = make_keypair("flint.example.com")
        self.other_sp_key, _ = make_keypair("other-sp.example.com")

    def add(self, name, xml: bytes, expect, fields=None, certificates=None, sp_key=None):
        self.cases.append({"name": name, "xml": base64.b64encode(xml).decode(),
                           "certificates": certificates or [cert_base64_der(self.cert)], "spKey": sp_key,
                           "expect": expect, "fields": fields})

    def response(self, **overrides) -> bytes:
        return build_response(**{**BASE, "key": self.key, "cert": self.cert, **overrides})

    def tree(self, **overrides):
        return etree.fromstring(self.response(**overrides))

    def accepted(self, name, sign, authn_instant_epoch=None, **overrides):
        xml = self.response(sign=sign, **overrides)
        fields = expected_fields(xml, response_signed=sign in ("response", "both"),
                                 assertion_signed=sign in ("assertion", "both"),
                                 **overrides, **({"authn_instant_epoch": authn_instant_epoch} if authn_instant_epoch else {}))
        self.add(name, xml, "accept", fields)
        return xml


def serialize(root) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def find(root, namespace, name):
    return root.find(f".//{{{namespace}}}{name}")


def make_vectors() -> list[dict]:
    v = Vectors()
    attributes = {"email": "ada@example.com", "groups": ["admins", "staff", "ops"], "displayName": "Ada Lovelace"}

    # Accepted.
    v.accepted("assertion-signed", "assertion")
    v.accepted("response-signed", "response")
    v.accepted("both-signed", "both")
    v.accepted("rsa-sha512", "assertion", algorithm="rsa-sha512", digest="sha512")
    v.accepted("rsa-sha384-response", "response", algorithm="rsa-sha384", digest="sha384")
    v.accepted("multi-valued-attributes", "assertion", attributes=attributes,
               authn_instant="2026-03-04T05:06:07.250Z", authn_instant_epoch=_epoch(NOW) + 0.25)
    xml = v.response(sign="assertion", key=v.ec_key, cert=v.ec_cert, algorithm="ecdsa-sha256")
    v.add("ecdsa-p256", xml, "accept", expected_fields(xml, response_signed=False, assertion_signed=True),
          certificates=[cert_base64_der(v.ec_cert)])
    xml = v.response(sign="assertion")
    v.add("second-of-two-certificates", xml, "accept",
          expected_fields(xml, response_signed=False, assertion_signed=True),
          certificates=[cert_base64_der(v.attacker_cert), v.cert])  # base64 DER, then PEM
    # Exclusive C14N with comments (the comments then signed too).
    response = v.tree(sign=None)
    assertion = response.find(f"{{{SAML}}}Assertion")
    response.replace(assertion, sign_element(assertion, assertion.get("ID"), v.key, v.cert,
                                             c14n=CanonicalizationMethod.EXCLUSIVE_XML_CANONICALIZATION_1_0_WITH_COMMENTS))
    xml = serialize(response)
    v.add("exclusive-c14n-with-comments", xml, "accept",
          expected_fields(xml, response_signed=False, assertion_signed=True))
    # The 2018 comment truncation: the IdP signed user@victim.com.evil.com; a comment inserted in the NameID keeps
    # the signature valid (C14N drops comments) and must not cut what is read.
    xml = v.response(sign="assertion", name_id="user@victim.com.evil.com")
    v.add("comment-in-nameid", xml.replace(b"user@victim.com.evil.com", b"user@victim.com<!---->.evil.com"), "accept",
          expected_fields(xml, response_signed=False, assertion_signed=True, name_id="user@victim.com.evil.com"))
    xml = v.response(sign="assertion", name_id="ada@example.com")
    v.add("cdata-in-nameid", xml.replace(b">ada@example.com</saml:NameID>", b">ada@<![CDATA[example]]>.com</saml:NameID>"),
          "accept", expected_fields(xml, response_signed=False, assertion_signed=True))

    # Encrypted assertions.
    for name, sign, data_algorithm in [("encrypted-gcm-assertion-signed", "assertion", "aes256-gcm"),
                                       ("encrypted-cbc-response-signed", "response", "aes128-cbc"),
                                       ("encrypted-aes128-gcm-both-signed", "both", "aes128-gcm"),
                                       ("encrypted-aes256-cbc-assertion-signed", "assertion", "aes256-cbc")]:
        assertion_id = new_id()
        xml = v.response(sign=sign, encrypt_to_cert=v.sp_cert, data_algorithm=data_algorithm, assertion_id=assertion_id)
        v.add(name, xml, "accept", expected_fields(
            xml, response_signed=sign != "assertion", assertion_signed=sign != "response", encrypted=True,
            assertion_id=assertion_id), sp_key=v.sp_key)
    xml = v.response(sign="assertion", encrypt_to_cert=v.sp_cert)
    v.add("encrypted-no-sp-key", xml, "decryptionKeyUnusable")
    v.add("encrypted-wrong-sp-key", xml, "decryptionFailed", sp_key=v.other_sp_key)
    xml = v.response(sign="assertion", encrypt_to_cert=v.sp_cert, key_transport="rsa-1_5")
    v.add("encrypted-rsa-1_5-key-transport", xml, "weakAlgorithm", sp_key=v.sp_key)
    xml = v.response(sign=None, encrypt_to_cert=v.sp_cert)
    v.add("encrypted-unsigned", xml, "unsigned", sp_key=v.sp_key)

    # Signatures that do not verify, or with refused algorithms.
    v.add("unsigned", v.response(sign=None), "unsigned")
    v.add("other-key", v.response(sign="assertion", key=v.attacker_key, cert=v.attacker_cert), "badSignature")
    # The attacker's own certificate in KeyInfo, matching its signature: still not a configured certificate.
    v.add("attacker-cert-in-keyinfo", v.response(sign="both", key=v.attacker_key, cert=v.attacker_cert), "badSignature")
    v.add("rsa-sha1", v.response(sign="assertion", algorithm="rsa-sha1"), "weakAlgorithm")
    v.add("sha1-digest", v.response(sign="assertion", digest="sha1"), "weakAlgorithm")
    v.add("response-sha1", v.response(sign="response", algorithm="rsa-sha1", digest="sha1"), "weakAlgorithm")
    xml = v.response(sign="assertion")
    v.add("nameid-altered", xml.replace(b">ada@example.com</saml:NameID>", b">eve@example.com</saml:NameID>"),
          "badSignature")
    # Both signed; the Response is altered after signing (its own signature fails, the assertion's holds).
    xml = v.response(sign="both")
    v.add("response-signature-fails-assertion-fine", xml.replace(
        b'Destination="https://flint.example.com/__/auth/handler"', b'Destination="https://evil.example.com/acs"'),
        "badSignature")
    v.add("ecdsa-signature-with-rsa-certificate",
          v.response(sign="assertion", key=v.ec_key, cert=v.ec_cert, algorithm="ecdsa-sha256"), "badSignature")

    # Signature wrapping (Somorovsky et al., "On Breaking SAML", 2012): XSW1–XSW8.
    evil = dict(name_id="eve@evil.example", attributes={"email": "eve@evil.example"})

    def evil_assertion():
        return build_assertion(**{k: v2 for k, v2 in {**BASE, **evil}.items()
                                  if k not in ("destination",)})

    # XSW1: a signed Response; an evil Response takes its place, the original (whole) moved into the Signature.
    original = v.tree(sign="response")
    wrapper = copy.deepcopy(original)
    wrapper.set("ID", new_id())
    wrapper.replace(wrapper.find(f"{{{SAML}}}Assertion"), evil_assertion())
    signature = wrapper.find(f"{{{DS}}}Signature")
    signature.append(original)
    v.add("XSW1", serialize(wrapper), "wrappedOrAmbiguous")
    # XSW2: the same, the original placed before the Signature instead of in it.
    original = v.tree(sign="response")
    wrapper = copy.deepcopy(original)
    wrapper.set("ID", new_id())
    wrapper.replace(wrapper.find(f"{{{SAML}}}Assertion"), evil_assertion())
    wrapper.find(f"{{{DS}}}Signature").addprevious(original)
    v.add("XSW2", serialize(wrapper), "wrappedOrAmbiguous")
    # XSW3: a signed Assertion; an evil Assertion inserted before it.
    response = v.tree(sign="assertion")
    response.find(f"{{{SAML}}}Assertion").addprevious(evil_assertion())
    v.add("XSW3", serialize(response), "wrappedOrAmbiguous")
    # XSW4: the evil Assertion in the original's place, the signed original inside it.
    response = v.tree(sign="assertion")
    original = response.find(f"{{{SAML}}}Assertion")
    outer = evil_assertion()
    response.replace(original, outer)
    outer.append(original)
    v.add("XSW4", serialize(response), "wrappedOrAmbiguous")
    # XSW5: the evil Assertion carries the original's Signature; the original, its Signature removed, appended.
    response = v.tree(sign="assertion")
    original = response.find(f"{{{SAML}}}Assertion")
    outer = evil_assertion()
    outer.set("ID", original.get("ID"))
    signature = original.find(f"{{{DS}}}Signature")
    outer.find(f"{{{SAML}}}Issuer").addnext(signature)
    response.replace(original, outer)
    response.append(original)
    v.add("XSW5", serialize(response), "wrappedOrAmbiguous")
    # XSW6: the evil Assertion carries the original's Signature, which holds the original Assertion.
    response = v.tree(sign="assertion")
    original = response.find(f"{{{SAML}}}Assertion")
    outer = evil_assertion()
    outer.set("ID", new_id())
    signature = copy.deepcopy(original.find(f"{{{DS}}}Signature"))
    outer.find(f"{{{SAML}}}Issuer").addnext(signature)
    response.replace(original, outer)
    signature.append(original)
    v.add("XSW6", serialize(response), "wrappedOrAmbiguous")
    # XSW7: the signed original inside an Extensions element, the evil Assertion as the Response's.
    response = v.tree(sign="assertion")
    original = response.find(f"{{{SAML}}}Assertion")
    extensions = etree.Element(f"{{{SAMLP}}}Extensions")
    response.replace(original, evil_assertion())
    response.find(f"{{{SAML}}}Issuer").addnext(extensions)
    extensions.append(original)
    v.add("XSW7", serialize(response), "wrappedOrAmbiguous")
    # XSW8: the evil Assertion carries the original's Signature, with the original (unsigned) in a ds:Object.
    response = v.tree(sign="assertion")
    original = response.find(f"{{{SAML}}}Assertion")
    outer = evil_assertion()
    outer.set("ID", original.get("ID"))
    signature = original.find(f"{{{DS}}}Signature")
    original.remove(signature)
    outer.find(f"{{{SAML}}}Issuer").addnext(signature)
    response.replace(original, outer)
    element(signature, DS, "Object").append(original)
    v.add("XSW8", serialize(response), "wrappedOrAmbiguous")
    # An unsigned assertion in an unsigned Response, next to a signed one (first, then last), or instead of it.
    for name, place in [("unsigned-assertion-before-signed", "before"), ("unsigned-assertion-after-signed", "after")]:
        response = v.tree(sign="assertion")
        signed = response.find(f"{{{SAML}}}Assertion")
        (signed.addprevious if place == "before" else signed.addnext)(evil_assertion())
        v.add(name, serialize(response), "wrappedOrAmbiguous")
    response = v.tree(sign="assertion")
    response.replace(response.find(f"{{{SAML}}}Assertion"), evil_assertion())
    v.add("unsigned-assertion-instead-of-signed", serialize(response), "unsigned")

    # IDs and references.
    response = v.tree(sign="assertion")
    assertion_id = response.find(f"{{{SAML}}}Assertion").get("ID")
    extensions = etree.Element(f"{{{SAMLP}}}Extensions")
    response.find(f"{{{SAML}}}Issuer").addnext(extensions)
    etree.SubElement(extensions, "{urn:example:evil}Decoy", ID=assertion_id).text = "eve@evil.example"
    v.add("duplicate-id-in-extensions", serialize(response), "wrappedOrAmbiguous")
    response = v.tree(sign="assertion")
    assertion_id = response.find(f"{{{SAML}}}Assertion").get("ID")
    extensions = etree.Element(f"{{{SAMLP}}}Extensions")
    response.find(f"{{{SAML}}}Issuer").addnext(extensions)
    etree.SubElement(extensions, "{urn:example:evil}Decoy",
                     {"{http://www.w3.org/XML/1998/namespace}id": assertion_id})
    v.add("duplicate-xml-id", serialize(response), "wrappedOrAmbiguous")
    shared = new_id()
    v.add("response-and-assertion-share-id", v.response(sign="assertion", response_id=shared, assertion_id=shared),
          "wrappedOrAmbiguous")
    # The Response's signature (covering everything) moved into the Assertion: the enveloped transform still removes
    # it, so xmlsec alone would verify it; its Reference is not to its parent.
    response = v.tree(sign="response")
    signature = response.find(f"{{{DS}}}Signature")
    response.find(f"{{{SAML}}}Assertion/{{{SAML}}}Issuer").addnext(signature)
    v.add("reference-to-other-element", serialize(response), "wrappedOrAmbiguous")
    response = v.tree(sign="assertion")
    signature = find(response, DS, "Signature")
    signature.addnext(copy.deepcopy(signature))
    v.add("two-signatures-in-assertion", serialize(response), "wrappedOrAmbiguous")
    response = v.tree(sign="response")
    find(response, DS, "Reference").set("URI", "")
    v.add("reference-to-whole-document", serialize(response), "wrappedOrAmbiguous")
    # A signature deep inside the assertion (in an attribute value), where no signature belongs.
    response = v.tree(sign="response")
    signature = copy.deepcopy(response.find(f"{{{DS}}}Signature"))
    find(response, SAML, "AttributeValue").append(signature)
    v.add("signature-in-attribute-value", serialize(response), "wrappedOrAmbiguous")

    # Not XML, or XML Flint refuses to read.
    xml = v.response(sign="assertion")
    xxe = xml.replace(b"<?xml version='1.0' encoding='UTF-8'?>",
                      b"<?xml version='1.0' encoding='UTF-8'?>\n"
                      b'<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>').replace(
        b">ada@example.com</saml:NameID>", b">&xxe;</saml:NameID>")
    v.add("xxe-external-entity", xxe, "doctypeRefused")
    laughs = "".join(f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
    billion = xml.replace(b"<?xml version='1.0' encoding='UTF-8'?>",
                          ("<?xml version='1.0' encoding='UTF-8'?>\n<!DOCTYPE r [<!ENTITY lol0 \"lol\">"
                           + laughs + "]>").encode()).replace(b">ada@example.com</saml:NameID>",
                                                             b">&lol9;</saml:NameID>")
    v.add("billion-laughs", billion, "doctypeRefused")
    v.add("external-dtd", xml.replace(b"<?xml version='1.0' encoding='UTF-8'?>",
                                      b"<?xml version='1.0' encoding='UTF-8'?>\n"
                                      b'<!DOCTYPE Response SYSTEM "http://evil.example/x.dtd">'), "doctypeRefused")
    v.add("garbage", os.urandom(512), "malformed")
    v.add("not-xml", b"SAMLResponse=hello", "malformed")
    v.add("truncated", xml[: len(xml) // 2], "malformed")
    v.add("empty", b"", "malformed")
    v.add("not-a-response", b'<samlp:AuthnRequest xmlns:samlp="' + SAMLP.encode() + b'" ID="_x"/>', "notAResponse")
    v.add("response-in-wrong-namespace", xml.replace(SAMLP.encode(), b"urn:example:not-saml"), "notAResponse")
    v.add("too-large", v.response(sign="assertion", attributes={"blob": "x" * (300 * 1024)}), "tooLarge")
    return v.cases


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "response":
        kwargs = json.loads(sys.argv[2])
        print(base64.b64encode(build_response(**kwargs)).decode())
    elif len(sys.argv) == 3 and sys.argv[1] == "vectors":
        os.makedirs(sys.argv[2], exist_ok=True)
        for case in make_vectors():
            with open(os.path.join(sys.argv[2], case["name"] + ".json"), "w") as file:
                json.dump(case, file)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
