"""Authlib as a relying party of Flint's OpenID provider, through the team's own sign-in page (no browser).

Run by FlintServerTests.OAuthAuthlibTests with FLINT_URL, FLINT_API_KEY, FLINT_PROJECT and FLINT_KEY_FILE (a
service-account key file of the project, whose admin API makes the OAuth client), against a production server whose
project names `https://app.example/signin` as its sign-in page (FLINT_SIGN_IN_PAGE). Every HTTP call is bounded;
prints an "ok" line per check and exits 1 with the reason on the first failed one.
"""
import json
import os
import uuid
from urllib.parse import parse_qs, urlsplit

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session, OAuthError
from authlib.oauth2.rfc7523 import PrivateKeyJWT, private_key_jwt_sign
from authlib.oauth2.rfc8414 import get_well_known_url
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import JoseError

from oauth_checks import (TIMEOUT, CheckFailed, admin_session, check, create_client, discover, header_of, keys_of, ok,
                          run, verify_jwt)

base = os.environ["FLINT_URL"].rstrip("/")
api_key = os.environ["FLINT_API_KEY"]
project = os.environ["FLINT_PROJECT"]
key_file = os.environ["FLINT_KEY_FILE"]
sign_in_page = os.environ.get("FLINT_SIGN_IN_PAGE", "https://app.example/signin")
issuer = f"{base}/{project}"
redirect_uri = "http://127.0.0.1/callback"
scope = "openid email profile offline_access"


def generate_private_key_pem():
    """A fresh RSA key of nobody's, as PEM."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def to_text(value):
    return value.decode() if isinstance(value, bytes) else value


def identity_toolkit(path, body):
    """A Firebase REST call with the project's API key: (status, JSON)."""
    response = requests.post(f"{base}/{path}", params={"key": api_key}, json=body, timeout=TIMEOUT)
    return response.status_code, response.json()


def start_authorization(session, metadata, state=None):
    """The authorization URL with PKCE (S256) and a nonce, the team page's authorization_id, the verifier and nonce."""
    code_verifier = generate_token(48)
    nonce = generate_token(20)
    url, state = session.create_authorization_url(
        metadata["authorization_endpoint"], state=state, code_verifier=code_verifier, nonce=nonce)
    query = parse_qs(urlsplit(url).query)
    check(query.get("code_challenge_method") == ["S256"] and query.get("code_challenge"),
          "Authlib did not send an S256 code challenge", url)
    # Sent as Authlib wrote it: the scope's spaces are `+` (application/x-www-form-urlencoded, RFC 6749 Appendix B).
    response = requests.get(url, allow_redirects=False, timeout=TIMEOUT)
    check(response.status_code == 303, "the authorization endpoint did not redirect with 303",
          (response.status_code, response.text[:300]))
    location = response.headers.get("Location", "")
    target = urlsplit(location)
    check(f"{target.scheme}://{target.netloc}{target.path}" == sign_in_page,
          "the authorization endpoint did not send the browser to the team's page", location)
    authorization_id = parse_qs(target.query).get("authorization_id", [""])[0]
    check(authorization_id, "the team page's address has no authorization_id", location)
    return authorization_id, code_verifier, nonce, state


def main():
    admin = admin_session(key_file)
    created = create_client(admin, base, project, "Authlib", redirect_uri)
    client_id, client_secret = created["clientId"], created["clientSecret"]
    ok(f"admin API created confidential client {client_id}")

    # Discovery: OpenID Connect's document, validated by Authlib; RFC 8414's, path-inserted and appended, the same.
    metadata = discover(issuer)
    check(metadata["jwks_uri"] == f"{base}/.well-known/jwks.json", "unexpected jwks_uri", metadata["jwks_uri"])
    check(metadata["code_challenge_methods_supported"] == ["S256"], "unexpected PKCE methods",
          metadata["code_challenge_methods_supported"])
    for key in ("userinfo_endpoint", "revocation_endpoint", "introspection_endpoint", "end_session_endpoint"):
        check(metadata.get(key, "").startswith(issuer + "/"), f"{key} is not under the issuer", metadata.get(key))
    ok("OpenID discovery document passes Authlib's OpenIDProviderMetadata.validate()")
    for url in (get_well_known_url(issuer, external=True), f"{issuer}/.well-known/oauth-authorization-server"):
        response = requests.get(url, timeout=TIMEOUT)
        check(response.status_code == 200, "no RFC 8414 metadata", (url, response.status_code, response.text))
        check(response.json() == dict(metadata), "RFC 8414 metadata differs from the discovery document", url)
    ok("RFC 8414 metadata (path-inserted and appended) matches")

    keys = keys_of(metadata)
    key_set, registry = keys

    session = OAuth2Session(
        client_id, client_secret, scope=scope, redirect_uri=redirect_uri, code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic", default_timeout=TIMEOUT)

    # A user of the project signs up on the team's page (Firebase REST).
    email = f"authlib-{uuid.uuid4().hex[:10]}@example.com"
    status, signed_up = identity_toolkit("v1/accounts:signUp", {
        "email": email, "password": "authlib-password-1", "returnSecureToken": True})
    check(status == 200 and signed_up.get("idToken"), "signUp failed", (status, signed_up))
    firebase_id_token = signed_up["idToken"]
    ok(f"signed up {email}")

    # A denied request sends the browser back with access_denied.
    authorization_id, _, _, denied_state = start_authorization(session, metadata)
    status, denied = identity_toolkit("v2/oauth/authorizations:deny", {
        "authorizationId": authorization_id, "idToken": firebase_id_token})
    check(status == 200, "deny failed", (status, denied))
    query = parse_qs(urlsplit(denied["redirectUri"]).query)
    check(denied["redirectUri"].startswith(redirect_uri + "?") and query.get("error") == ["access_denied"]
          and query.get("state") == [denied_state], "deny's redirect is not an access_denied answer", denied)
    ok("authorizations:deny answers error=access_denied with the state")

    # The authorization: Authlib's URL, the team's page, its approval.
    authorization_id, code_verifier, nonce, state = start_authorization(session, metadata)
    ok("authorization endpoint sent the browser to the team's page with an authorization_id")
    status, details = identity_toolkit("v2/oauth/authorizations:get", {"authorizationId": authorization_id})
    check(status == 200, "authorizations:get failed", (status, details))
    check(details.get("clientId") == client_id and details.get("clientName") == "Authlib"
          and set(details.get("scopes", [])) == set(scope.split()), "authorizations:get gave other details", details)
    ok("authorizations:get names the client and the scopes")
    status, approved = identity_toolkit("v2/oauth/authorizations:approve", {
        "authorizationId": authorization_id, "idToken": firebase_id_token})
    check(status == 200 and approved.get("redirectUri", "").startswith(redirect_uri + "?"), "approve failed",
          (status, approved))
    callback = approved["redirectUri"]
    query = parse_qs(urlsplit(callback).query)
    check(query.get("iss") == [issuer], "the authorization response's iss (RFC 9207) is not the issuer", callback)
    ok("approve redirected to the client with a code, the state and iss (RFC 9207)")

    # A code answered for one state is refused by Authlib for another (its CSRF check runs).
    try:
        session.fetch_token(metadata["token_endpoint"], authorization_response=callback, code_verifier=code_verifier,
                            state="another-state")
    except Exception as error:  # Authlib's MismatchingStateException
        check("state" in str(error).lower() or type(error).__name__ == "MismatchingStateException",
              "Authlib refused the callback for another reason", repr(error))
    else:
        raise CheckFailed("Authlib accepted a callback with a mismatching state")

    token = session.fetch_token(metadata["token_endpoint"], authorization_response=callback,
                                code_verifier=code_verifier, state=state)
    for key in ("access_token", "id_token", "refresh_token", "expires_in", "scope"):
        check(key in token, f"the token response has no {key}", dict(token))
    check(token["token_type"].lower() == "bearer", "the token type is not Bearer", token["token_type"])
    check(set(token["scope"].split()) == set(scope.split()), "the granted scopes differ", token["scope"])
    access_token, refresh_token = token["access_token"], token["refresh_token"]
    ok("fetch_token exchanged the code with the PKCE verifier (client_secret_basic)")

    # The ID token, verified by Authlib as its own OpenID client does: signature, iss, aud, exp, nonce, azp, at_hash.
    check(header_of(token["id_token"]).get("typ", "JWT") == "JWT", "the ID token is not typed JWT",
          header_of(token["id_token"]))
    decoded = jwt.decode(token["id_token"], key_set, registry=registry)
    options = {"iss": {"essential": True, "value": issuer}, "aud": {"essential": True, "value": client_id}}
    claims = CodeIDToken(decoded.claims, decoded.header, options,
                         {"nonce": nonce, "client_id": client_id, "access_token": access_token})
    claims.validate()
    check(claims.get("email") == email and claims.get("email_verified") is False, "the ID token's email claims differ",
          dict(claims))
    check(claims.get("at_hash"), "the ID token has no at_hash", dict(claims))
    check(isinstance(claims.get("auth_time"), (int, float)), "the ID token has no auth_time", dict(claims))
    check(claims.get("amr") == ["pwd"], "the ID token's amr is not [pwd]", dict(claims))
    check("firebase" not in claims, "the ID token carries Firebase's claim", dict(claims))
    # No provider session is made when the team's page signs the user in (approve has no browser of Flint's),
    # so there is no sid to name.
    check("sid" not in claims, "the team page's ID token names a provider session", dict(claims))
    for wrong in ({"nonce": "another-nonce"}, {"access_token": access_token + "x"}):
        params = {"nonce": nonce, "client_id": client_id, "access_token": access_token, **wrong}
        try:
            CodeIDToken(decoded.claims, decoded.header, options, params).validate()
        except JoseError:
            pass
        else:
            raise CheckFailed(f"Authlib accepted the ID token with {wrong}")
    ok("ID token passes Authlib's CodeIDToken validation (and fails it with another nonce or access token)")

    # The access token: an RFC 9068 at+jwt of the same keys, which Firebase does not take for an ID token.
    check(header_of(access_token).get("typ") == "at+jwt", "the access token is not typed at+jwt", header_of(access_token))
    verify_jwt(access_token, keys, iss=issuer, aud=metadata["userinfo_endpoint"], client_id=client_id, sub=claims["sub"])
    ok("access token is a verified at+jwt for the userinfo endpoint")
    status, body = identity_toolkit("v1/accounts:lookup", {"idToken": access_token})
    check(status == 400 and "INVALID_ID_TOKEN" in json.dumps(body), "Firebase took the access token for an ID token",
          (status, body))
    ok("accounts:lookup refuses the access token (400 INVALID_ID_TOKEN)")

    # Userinfo with the access token (Authlib's session adds it); not with a Firebase ID token.
    response = session.get(metadata["userinfo_endpoint"])
    check(response.status_code == 200, "userinfo failed", (response.status_code, response.text))
    userinfo = response.json()
    check(userinfo.get("sub") == claims["sub"] and userinfo.get("email") == email
          and userinfo.get("email_verified") is False, "userinfo's claims differ", userinfo)
    ok("userinfo answers the user's claims")
    response = requests.get(metadata["userinfo_endpoint"], headers={"Authorization": f"Bearer {firebase_id_token}"},
                            timeout=TIMEOUT)
    check(response.status_code == 401, "userinfo took a Firebase ID token", (response.status_code, response.text))
    ok("userinfo refuses a Firebase ID token (401)")

    # Refresh: a confidential client's refresh token is not rotated (the raw response names none).
    raw_refreshes = []

    def record(resp):
        raw_refreshes.append(resp.json())
        return resp

    session.register_compliance_hook("refresh_token_response", record)
    refreshed = session.refresh_token(metadata["token_endpoint"], refresh_token=refresh_token)
    check(raw_refreshes and "refresh_token" not in raw_refreshes[-1], "a confidential client's refresh token rotated",
          raw_refreshes)
    check(refreshed.get("access_token") and refreshed["access_token"] != access_token,
          "the refresh gave no new access token", dict(refreshed))
    check(refreshed.get("refresh_token") == refresh_token, "Authlib lost the refresh token", dict(refreshed))
    if "id_token" in refreshed:
        decoded = jwt.decode(refreshed["id_token"], key_set, registry=registry)
        CodeIDToken(decoded.claims, decoded.header, options,
                    {"client_id": client_id, "access_token": refreshed["access_token"]}).validate()
        check(decoded.claims["sub"] == claims["sub"], "the refreshed ID token names another user", decoded.claims)
    refreshed_access = refreshed["access_token"]
    ok("refresh_token grant gave a new access token (no rotation for a confidential client)")
    response = session.get(metadata["userinfo_endpoint"])
    check(response.status_code == 200, "userinfo refused the refreshed access token", (response.status_code, response.text))

    # Introspection (client_secret_basic).
    for name, value in (("refresh token", refresh_token), ("access token", refreshed_access)):
        response = session.introspect_token(metadata["introspection_endpoint"], token=value)
        check(response.status_code == 200, f"introspecting the {name} failed", (response.status_code, response.text))
        answer = response.json()
        check(answer.get("active") is True and answer.get("client_id") == client_id and answer.get("sub") == claims["sub"]
              and set(answer.get("scope", "").split()) == set(scope.split()),
              f"introspection of the {name} is not active for the client and user", answer)
    ok("introspection says both tokens are active, for the client and user")

    # Revocation of the refresh token ends its family: refresh, introspection and userinfo all refuse.
    response = session.revoke_token(metadata["revocation_endpoint"], token=refresh_token)
    check(response.status_code == 200, "revocation failed", (response.status_code, response.text))
    ok("revoke_token revoked the refresh token")
    try:
        session.refresh_token(metadata["token_endpoint"], refresh_token=refresh_token)
    except OAuthError as error:
        check(error.error == "invalid_grant", "the revoked refresh token was refused with another error", error.error)
    else:
        raise CheckFailed("the revoked refresh token still refreshes")
    ok("the revoked refresh token gives invalid_grant")
    for name, value in (("refresh token", refresh_token), ("access token", refreshed_access),
                        ("first access token", access_token)):
        response = session.introspect_token(metadata["introspection_endpoint"], token=value)
        check(response.status_code == 200 and response.json() == {"active": False},
              f"introspection of the revoked {name} is not just inactive", (response.status_code, response.text))
    ok("introspection says the family's tokens are inactive")
    for value in (refreshed_access, access_token):
        response = requests.get(metadata["userinfo_endpoint"], headers={"Authorization": f"Bearer {value}"},
                                timeout=TIMEOUT)
        check(response.status_code == 401, "userinfo took a revoked access token", (response.status_code, response.text))
    ok("userinfo refuses the family's access tokens (401)")

    # A second sign-in: its code, presented again, is refused and ends what it gave (RFC 6749 §4.1.2).
    authorization_id, code_verifier, nonce, state = start_authorization(session, metadata)
    status, approved = identity_toolkit("v2/oauth/authorizations:approve", {
        "authorizationId": authorization_id, "idToken": firebase_id_token})
    check(status == 200, "the second approve failed", (status, approved))
    second = session.fetch_token(metadata["token_endpoint"], authorization_response=approved["redirectUri"],
                                 code_verifier=code_verifier, state=state)
    response = session.get(metadata["userinfo_endpoint"])
    check(response.status_code == 200, "userinfo refused the second access token", (response.status_code, response.text))
    try:
        session.fetch_token(metadata["token_endpoint"], authorization_response=approved["redirectUri"],
                            code_verifier=code_verifier, state=state)
    except OAuthError as error:
        check(error.error == "invalid_grant", "a spent code was refused with another error", error.error)
    else:
        raise CheckFailed("a spent code was exchanged again")
    ok("a spent code gives invalid_grant")
    response = requests.get(metadata["userinfo_endpoint"], timeout=TIMEOUT,
                            headers={"Authorization": f"Bearer {second['access_token']}"})
    check(response.status_code == 401, "the spent code's access token still works", (response.status_code, response.text))
    try:
        session.refresh_token(metadata["token_endpoint"], refresh_token=second["refresh_token"])
    except OAuthError as error:
        check(error.error == "invalid_grant", "the spent code's refresh token was refused with another error", error.error)
    else:
        raise CheckFailed("the spent code's refresh token still refreshes")
    ok("presenting a code again revokes the tokens it gave")

    # A wrong client secret is refused at introspection (client authentication is checked).
    intruder = OAuth2Session(client_id, "not-the-secret", token_endpoint_auth_method="client_secret_post",
                             default_timeout=TIMEOUT)
    response = intruder.introspect_token(metadata["introspection_endpoint"], token=refresh_token)
    check(response.status_code == 401 and response.json().get("error") == "invalid_client",
          "introspection took a wrong client secret", (response.status_code, response.text))
    ok("a wrong client secret gives invalid_client")

    # Client credentials (RFC 6749 §4.4): a machine client's token for itself, for a registered resource (RFC 8707).
    resource = "https://jobs.example/api"
    response = admin.post(f"{base}/v2/projects/{project}/oauthResources", timeout=TIMEOUT, json={
        "resource": resource, "displayName": "Jobs", "scopes": ["jobs:run"]})
    check(response.status_code == 200, "the admin API did not register the resource", (response.status_code, response.text))
    response = admin.post(f"{base}/v2/projects/{project}/oauthClients", timeout=TIMEOUT, json={
        "displayName": "Nightly", "type": "CONFIDENTIAL", "grantTypes": ["client_credentials"]})
    check(response.status_code == 200, "the admin API did not create the machine client", (response.status_code, response.text))
    machine_id, machine_secret = response.json()["clientId"], response.json()["clientSecret"]
    check("client_credentials" in metadata["grant_types_supported"], "the metadata does not name client_credentials",
          metadata["grant_types_supported"])
    machine = OAuth2Session(machine_id, machine_secret, scope="jobs:run", default_timeout=TIMEOUT)
    issued = machine.fetch_token(metadata["token_endpoint"], grant_type="client_credentials", resource=resource)
    check("refresh_token" not in issued and "id_token" not in issued, "a client's own token came with more", issued)
    decoded = verify_jwt(issued["access_token"], keys, iss=issuer, aud=resource, sub=machine_id, client_id=machine_id)
    check(decoded.header.get("typ") == "at+jwt" and decoded.claims.get("scope") == "jobs:run",
          "the client's token is not an RFC 9068 token for jobs:run", (decoded.header, decoded.claims))
    response = machine.get(metadata["userinfo_endpoint"])
    check(response.status_code == 401, "userinfo took a client's own token", (response.status_code, response.text))
    ok("fetch_token(grant_type=client_credentials, resource=…) gives a token whose sub is the client, refused at userinfo")

    # A service account (`flint service-accounts create`'s key file) as a client-credentials client with
    # private_key_jwt (RFC 7523): Authlib signs the assertion with the file's private key, kid its private_key_id.
    with open(key_file) as handle:
        account = json.load(handle)
    job = OAuth2Session(account["client_email"], account["private_key"], scope="jobs:run", default_timeout=TIMEOUT,
                        token_endpoint_auth_method=PrivateKeyJWT(metadata["token_endpoint"], alg="RS256",
                                                                 headers={"kid": account["private_key_id"]}))
    issued = job.fetch_token(metadata["token_endpoint"], grant_type="client_credentials", resource=resource)
    verify_jwt(issued["access_token"], keys, iss=issuer, aud=resource, sub=account["client_email"])
    check("refresh_token" not in issued, "a service account's token came with a refresh token", issued)
    # Signed with another key, the assertion is refused; the account may not use a user's grant.
    forged = OAuth2Session(account["client_email"], generate_private_key_pem(), default_timeout=TIMEOUT,
                           token_endpoint_auth_method=PrivateKeyJWT(metadata["token_endpoint"], alg="RS256",
                                                                    headers={"kid": account["private_key_id"]}))
    try:
        forged.fetch_token(metadata["token_endpoint"], grant_type="client_credentials", resource=resource)
        check(False, "an assertion signed by another key was taken")
    except OAuthError as error:
        check(error.error == "invalid_client", "another key's assertion gave the wrong error", error.error)
    response = requests.post(metadata["token_endpoint"], timeout=TIMEOUT, data={
        "grant_type": "authorization_code", "code": "x", "redirect_uri": redirect_uri, "code_verifier": "v" * 43,
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": to_text(private_key_jwt_sign(account["private_key"], account["client_email"],
                                                         metadata["token_endpoint"], header={"kid": account["private_key_id"]}))})
    check(response.status_code == 400 and response.json().get("error") == "unauthorized_client",
          "a service account used the authorization code grant", (response.status_code, response.text))
    ok("a service account's key file gets a client-credentials token with private_key_jwt; another key and a user's grant are refused")


if __name__ == "__main__":
    run(main, 60, "Authlib relying-party checks passed")
