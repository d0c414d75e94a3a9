"""Authlib as a relying party of Flint's OpenID provider, the user signing in on Flint's own hosted sign-in page in
Debian's headless Chromium (oauth_authlib_check.py does the same through the team's page, without a browser).

Authlib's OAuth2Session builds the authorization URL (PKCE S256, nonce, state) from the discovery document; Chromium
opens it, signs up on Flint's page ([data-show=sign-up], #new-email, #new-password, #sign-up-button), allows on the
consent page (the client is not first-party) and asks for the redirect URI, whose request is read from DevTools'
Network events (the URI, http://127.0.0.1:9/cb, never loads). Authlib exchanges the code (fetch_token checks the
state), the ID token is verified with joserfc and Authlib's CodeIDToken (nonce, at_hash), userinfo names the email and
the redirect's iss is the issuer (RFC 9207). Then single sign-on: a second authorization URL in the same browser
goes straight to the redirect URI (Flint's session cookie, the consent remembered), and its code is exchanged too.

Run by FlintServerTests.OAuthAuthlibBrowserTests (through BrowserDriver) with FLINT_CHROMIUM, FLINT_TIMEOUT,
FLINT_URL, FLINT_API_KEY, FLINT_PROJECT and FLINT_KEY_FILE (a service-account key file of the project, whose admin API
makes the client). Every wait is bounded by FLINT_TIMEOUT (devtools' deadline) and every HTTP call by TIMEOUT. Prints
one JSON object: `checks` passed (in order), every document request of the browser (`navigations`), the browser's
log, and `error` (with `last_url`) on the first failed check.
"""

import json
import os
import sys
import uuid
from urllib.parse import parse_qs, urlsplit

from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import JoseError

import devtools
from oauth_checks import TIMEOUT, CheckFailed, admin_session, check, create_client, discover, keys_of

base = os.environ["FLINT_URL"].rstrip("/")
project = os.environ["FLINT_PROJECT"]
key_file = os.environ["FLINT_KEY_FILE"]
issuer = f"{base}/{project}"
redirect_uri = "http://127.0.0.1:9/cb"
scope = "openid email profile"
password = "authlib-browser-7"


def main(result):
    devtools.set_deadline(float(os.environ["FLINT_TIMEOUT"]))
    devtools.exit_on_sigterm()

    def ok(message):
        result["checks"].append(message)

    # The client, made through the admin API.
    created = create_client(admin_session(key_file), base, project, "Authlib in Chromium", redirect_uri)
    client_id, client_secret = created["clientId"], created["clientSecret"]
    check(not created.get("firstParty"), "the client is first-party", created)
    ok(f"admin API created confidential client {client_id}")

    metadata = discover(issuer)
    check(metadata.get("authorization_response_iss_parameter_supported") is not False,
          "discovery says the authorization response has no iss", dict(metadata))
    ok("discovery document passes OpenIDProviderMetadata.validate()")
    key_set, registry = keys_of(metadata)

    session = OAuth2Session(
        client_id, client_secret, scope=scope, redirect_uri=redirect_uri, code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic", default_timeout=TIMEOUT)

    def authorization():
        code_verifier, nonce = generate_token(48), generate_token(20)
        url, state = session.create_authorization_url(
            metadata["authorization_endpoint"], code_verifier=code_verifier, nonce=nonce)
        query = parse_qs(urlsplit(url).query)
        check(query.get("code_challenge_method") == ["S256"] and query.get("code_challenge")
              and query.get("nonce") == [nonce] and query.get("state") == [state],
              "Authlib's authorization URL lacks S256, the nonce or the state", url)
        check(url.startswith(base + "/"), "the authorization endpoint is not the server's", url)
        return url, code_verifier, nonce, state

    def redeem(callback, code_verifier, nonce, state, what):
        """fetch_token on the redirect (Authlib checks its state), the ID token verified; returns (token, claims)."""
        query = parse_qs(urlsplit(callback).query)
        check(query.get("state") == [state] and query.get("code"), f"the {what} redirect has no code or another state",
              callback)
        check(query.get("iss") == [issuer], f"the {what} redirect's iss (RFC 9207) is not the issuer", callback)
        token = session.fetch_token(metadata["token_endpoint"], authorization_response=callback,
                                    code_verifier=code_verifier, state=state)
        for key in ("access_token", "id_token", "expires_in"):
            check(key in token, f"the {what} token response has no {key}", dict(token))
        check(token["token_type"].lower() == "bearer", "the token type is not Bearer", token["token_type"])
        decoded = jwt.decode(token["id_token"], key_set, registry=registry)
        options = {"iss": {"essential": True, "value": issuer}, "aud": {"essential": True, "value": client_id}}
        params = {"nonce": nonce, "client_id": client_id, "access_token": token["access_token"]}
        claims = CodeIDToken(decoded.claims, decoded.header, options, params)
        claims.validate()
        check(claims.get("at_hash"), f"the {what} ID token has no at_hash", dict(claims))
        try:
            CodeIDToken(decoded.claims, decoded.header, options, {**params, "nonce": "another-nonce"}).validate()
        except JoseError:
            pass
        else:
            raise CheckFailed(f"Authlib accepted the {what} ID token with another nonce")
        ok(f"{what}: fetch_token exchanged the code; the ID token passes CodeIDToken (nonce, at_hash)")
        response = session.get(metadata["userinfo_endpoint"])
        check(response.status_code == 200, f"{what}: userinfo failed", (response.status_code, response.text))
        userinfo = response.json()
        check(userinfo.get("sub") == claims["sub"] and userinfo.get("email") == email,
              f"{what}: userinfo's claims differ", userinfo)
        ok(f"{what}: userinfo names {email}")
        return token, claims

    email = f"authlib-browser-{uuid.uuid4().hex[:10]}@example.com"
    with devtools.launch(os.environ["FLINT_CHROMIUM"]) as tools:
        result["tools"] = tools
        devtools.record_navigations(tools, result["navigations"])
        browser = devtools.Page(tools, devtools.SIGN_IN_AND_CONSENT, result, "last_url")

        def page(path, what, condition=lambda s: True):
            return browser.wait(what, lambda s: s["path"] == path and condition(s))

        def navigate(url):
            """Page.navigate; a failure to load is no error (the redirect URI never loads)."""
            return tools.call("Page.navigate", url=url).get("errorText")

        def callback(after):
            return browser.redirect(result["navigations"], after, redirect_uri)

        # 1. Sign-up on Flint's page, then the consent page, then the redirect URI.
        url, code_verifier, nonce, state_value = authorization()
        navigate(url)
        page("/__/oauth/signin", "Flint's sign-in page", lambda s: "sign-in" in s["open"])
        ok("Authlib's authorization URL opened Flint's sign-in page")
        browser.sign_up(email, password)
        consent = page("/__/oauth/consent", "the consent page", lambda s: "allow" in s["consent"])
        check(email in (consent["account"] or ""), "the consent page names another account", consent)
        ok(f"signed up {email}; the consent page asks for {consent['scopes']}")
        mark = len(result["navigations"])
        tools.evaluate("document.querySelector('button[name=consent][value=allow]').click()")
        first_url = callback(mark)
        ok("allowing sent the browser to the redirect URI")
        first, first_claims = redeem(first_url, code_verifier, nonce, state_value, "sign-up")
        check(first_claims.get("email") == email and first_claims.get("email_verified") is False
              and first_claims.get("amr") == ["pwd"], "the ID token's claims differ", dict(first_claims))
        result["first_claims"] = dict(first_claims)

        # 2. Single sign-on: a new authorization in the same browser goes straight back with a code.
        url, code_verifier, nonce, state_value = authorization()
        mark = len(result["navigations"])
        navigate(url)
        second_url = callback(mark)
        hops = [hop["url"] for hop in result["navigations"][mark:]]
        check(not any("/__/oauth/" in hop for hop in hops), "single sign-on showed a page", hops)
        ok("a second authorization went straight to the redirect URI (session and consent remembered)")
        second, second_claims = redeem(second_url, code_verifier, nonce, state_value, "single sign-on")
        check(second_claims["sub"] == first_claims["sub"], "single sign-on names another user", dict(second_claims))
        check(second_claims.get("auth_time") == first_claims.get("auth_time"),
              "single sign-on's auth_time is not the sign-up's", (dict(first_claims), dict(second_claims)))
        check(second["access_token"] != first["access_token"], "single sign-on gave the same access token")
        result["second_claims"] = dict(second_claims)
        result["log"] = tools.log


def run():
    result = {"checks": [], "navigations": []}
    try:
        main(result)
    except Exception as error:  # reported, for the test to show
        result["error"] = f"{type(error).__name__}: {error}"
    tools = result.pop("tools", None)
    if tools is not None:
        result["log"] = tools.log
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    run()
