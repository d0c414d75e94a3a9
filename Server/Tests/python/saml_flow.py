"""The IdP's half of a SAML sign-in, for the SP-flow tests: reads Flint's AuthnRequest (HTTP-Redirect binding) as an
IdP would — inflates it with zlib, checks the redirect binding's RSA-SHA256 signature with the SP certificate using
`cryptography` — and answers it with a response that saml_idp.py builds and signxml signs. Nothing here runs Flint's code.

Commands (one JSON argument, one JSON object printed):
  keypair  {"cn"}                                  -> {"cert_pem", "key_pem", "cert_der_b64"}
  answer   {"idp": {cert_pem, key_pem}, "entity_id", "now", "sp_cert_der_b64"?, "cases": [{"auth_uri", ...overrides}]}
           -> {"answers": [{"request": {...}, "relay_state", "saml_response"}]}
           Each case's other keys override build_response's arguments (e.g. "audience", "sign", "name_id").
  unsolicited {"idp", "entity_id", "now", "acs", "audience", "cases": [{...overrides}]} -> {"answers": [{"saml_response"}]}
  serve    (used by saml_browser.py through `IdP`)
"""

import base64
import datetime
import json
import sys
import threading
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

import saml_idp

PROTOCOL = "urn:oasis:names:tc:SAML:2.0:protocol"
ASSERTION = "urn:oasis:names:tc:SAML:2.0:assertion"
RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"


def keypair(cn):
    key_pem, cert_pem = saml_idp.make_keypair(cn)
    der = x509.load_pem_x509_certificate(cert_pem.encode()).public_bytes(serialization.Encoding.DER)
    return {"cert_pem": cert_pem, "key_pem": key_pem, "cert_der_b64": base64.b64encode(der).decode()}


def read_request(auth_uri, sp_cert_der_b64=None):
    """The AuthnRequest an SP-initiated sign-in sends, checked as an IdP checks it."""
    url = urllib.parse.urlsplit(auth_uri)
    raw_query = url.query
    fields = dict(urllib.parse.parse_qsl(raw_query, keep_blank_values=True))
    xml = zlib.decompress(base64.b64decode(fields["SAMLRequest"]), -15)
    root = ElementTree.fromstring(xml)
    assert root.tag == f"{{{PROTOCOL}}}AuthnRequest", root.tag
    issuer = root.find(f"{{{ASSERTION}}}Issuer")
    request = {
        "id": root.get("ID"), "acs": root.get("AssertionConsumerServiceURL"), "destination": root.get("Destination"),
        "issuer": issuer.text if issuer is not None else None, "binding": root.get("ProtocolBinding"),
        "sso_url": f"{url.scheme}://{url.netloc}{url.path}", "signed": "Signature" in fields,
    }
    if "Signature" in fields:
        assert fields.get("SigAlg") == RSA_SHA256, fields.get("SigAlg")
        # The signed text is the query as sent: SAMLRequest, RelayState, SigAlg in that order, as they were encoded.
        parts = {part.split("=", 1)[0]: part for part in raw_query.split("&")}
        signed = "&".join(parts[name] for name in ("SAMLRequest", "RelayState", "SigAlg") if name in parts)
        if sp_cert_der_b64:
            certificate = x509.load_der_x509_certificate(base64.b64decode(sp_cert_der_b64))
            certificate.public_key().verify(base64.b64decode(fields["Signature"]), signed.encode(),
                                            padding.PKCS1v15(), hashes.SHA256())
            request["signature_verified"] = True
    return request, fields.get("RelayState")


def instant(epoch):
    return datetime.datetime.fromtimestamp(epoch, tz=datetime.timezone.utc)


def response(idp, entity_id, now, defaults, overrides):
    """saml_idp.build_response with times around `now` (the server's clock) and the case's overrides."""
    arguments = dict(defaults)
    arguments.update({
        "issuer": entity_id, "key": idp["key_pem"], "cert": idp["cert_pem"],
        "not_before": instant(now - 60), "not_on_or_after": instant(now + 300),
    })
    for name in ("not_before", "not_on_or_after"):
        if name in overrides:
            overrides[name] = instant(now + overrides[name])
    if "other_key" in overrides:
        other = keypair("someone else")
        overrides.pop("other_key")
        arguments.update({"key": other["key_pem"], "cert": other["cert_pem"]})
    certificate = overrides.get("encrypt_to_cert")
    if certificate and not certificate.startswith("-----"):
        # The admin API shows the SP certificate as base64 DER, as Identity Platform does.
        body = "\n".join(certificate[i:i + 64] for i in range(0, len(certificate), 64))
        overrides["encrypt_to_cert"] = f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n"
    mutate = overrides.pop("mutate", None)
    arguments.update(overrides)
    xml = saml_idp.build_response(**arguments)
    if mutate == "comment_in_name_id":
        # The 2018 attack: a comment after the signing leaves exclusive C14N's output, so the signature, as it was.
        name_id = arguments["name_id"].encode()
        cut = name_id.index(b".", name_id.index(b"@"))
        assert xml.count(name_id + b"<") == 1, "the NameID appears once"
        xml = xml.replace(name_id + b"<", name_id[:cut] + b"<!---->" + name_id[cut:] + b"<")
    elif mutate:
        raise ValueError(f"unknown mutation {mutate}")
    return base64.b64encode(xml).decode()


def answer(spec):
    answers = []
    for case in spec["cases"]:
        case = dict(case)
        request, relay_state = read_request(case.pop("auth_uri"), spec.get("sp_cert_der_b64"))
        defaults = {"name_id": "ada@example.com", "audience": request["issuer"], "destination": request["acs"],
                    "recipient": request["acs"], "in_response_to": request["id"], "sign": "assertion"}
        answers.append({"request": request, "relay_state": relay_state,
                        "saml_response": response(spec["idp"], spec["entity_id"], spec["now"], defaults, case)})
    return {"answers": answers}


def unsolicited(spec):
    defaults = {"name_id": "ada@example.com", "audience": spec["audience"], "destination": spec["acs"],
                "recipient": spec["acs"], "in_response_to": None, "sign": "assertion"}
    return {"answers": [{"saml_response": response(spec["idp"], spec["entity_id"], spec["now"], defaults, dict(case))}
                        for case in spec["cases"]]}


class IdP:
    """A running test IdP on 127.0.0.1: `GET /sso` reads the AuthnRequest and answers with the HTTP-POST binding's
    self-submitting form to the request's ACS URL; `GET /app` is the app's page (served on `localhost`), which reads the
    link the handler returns in the fragment and finishes the sign-in with `signInWithIdp`."""

    def __init__(self, idp, entity_id, user, app_page):
        self.requests = []
        self.keys = idp
        self.entity_id = entity_id
        # The SP certificate the requests' signatures are checked with, once the provider is configured.
        self.sp_cert_der_b64 = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_):
                pass

            def do_GET(self):
                path = urllib.parse.urlsplit(self.path).path
                if path == "/sso":
                    request, relay_state = read_request(f"http://idp{self.path}", owner.sp_cert_der_b64)
                    owner.requests.append(request)
                    now = datetime.datetime.now(datetime.timezone.utc).timestamp()
                    encoded = response(idp, entity_id, now, {
                        "audience": request["issuer"], "destination": request["acs"], "recipient": request["acs"],
                        "in_response_to": request["id"], "sign": "assertion"}, dict(user))
                    page = ("<!doctype html><html><body onload='document.forms[0].submit()'>"
                            f"<form method='post' action='{request['acs']}'>"
                            f"<input type='hidden' name='SAMLResponse' value='{encoded}'>"
                            f"<input type='hidden' name='RelayState' value='{relay_state}'>"
                            "</form></body></html>")
                    self.reply(page)
                elif path == "/app":
                    self.reply(app_page)
                else:
                    self.send_error(404)

            def reply(self, page):
                body = page.encode()
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def configure(self, base, authorization, project, provider, sp_entity, timeout):
        """Configures `provider` in `project` for this IdP through Flint's admin API at `base` (signed requests, the
        callback Flint's hosted handler), and checks requests with the SP certificate the answer shows; returns it."""
        body = {
            "displayName": "Acme", "enabled": True,
            "idpConfig": {"idpEntityId": self.entity_id, "ssoUrl": f"http://127.0.0.1:{self.port}/sso", "signRequest": True,
                          "idpCertificates": [{"x509Certificate": self.keys["cert_pem"]}]},
            "spConfig": {"spEntityId": sp_entity, "callbackUri": base + "/__/auth/handler"},
        }
        request = urllib.request.Request(
            f"{base}/v2/projects/{project}/inboundSamlConfigs?inboundSamlConfigId={provider}", method="POST",
            data=json.dumps(body).encode(), headers={"content-type": "application/json", "authorization": authorization})
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            config = json.load(reply)
        self.sp_cert_der_b64 = "".join(
            line for line in config["spConfig"]["spCertificates"][0]["x509Certificate"].splitlines()
            if not line.startswith("-----"))
        return config

    def close(self):
        self.server.shutdown()


def main():
    command, spec = sys.argv[1], json.loads(sys.argv[2])
    result = {"keypair": lambda: keypair(spec["cn"]), "answer": lambda: answer(spec),
              "unsolicited": lambda: unsolicited(spec)}[command]()
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
