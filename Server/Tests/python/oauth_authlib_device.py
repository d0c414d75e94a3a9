"""Authlib as a device (RFC 8628's device authorization grant) against Flint's OpenID provider, no browser.

Run by FlintServerTests.OIDCAgentTests with FLINT_ISSUER (a production server's issuer, its clock the wall clock's),
FLINT_CLIENT_ID (a public client allowed the device grant and refresh_token) and FLINT_EMAIL (the user who will approve).
The script asks for a device code with Authlib's client authentication, polls once at once (authorization_pending),
then prints `USER_CODE <code> <verification_uri>` and polls as RFC 8628 §3.5 says while the test, as that user, types
the code on Flint's /device page, signs in and consents; then it checks the tokens (an RFC 9068 access token, the ID
token, userinfo, a refresh that rotates the public client's refresh token, the device code spent). Every HTTP call is
bounded and so is the whole run; prints an "ok" line per check, `SUB <sub>` for the test, and exits 1 with the reason on
the first failed one.
"""
import os
import time

from authlib.integrations.requests_client import OAuth2Session, OAuthError

from oauth_checks import TIMEOUT, check, discover, header_of, keys_of, ok, run, verify_jwt

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
issuer = os.environ["FLINT_ISSUER"].rstrip("/")
client_id = os.environ["FLINT_CLIENT_ID"]
email = os.environ["FLINT_EMAIL"]
scope = "openid email offline_access"


def poll(session, metadata, device_code):
    """One poll of the token endpoint with the device code: the token, or the OAuth error's code."""
    try:
        return session.fetch_token(metadata["token_endpoint"], grant_type=DEVICE_GRANT, device_code=device_code), None
    except OAuthError as error:
        return None, error.error


def main():
    metadata = discover(issuer)
    check(metadata.get("device_authorization_endpoint") == f"{issuer}/device_authorization",
          "the discovery document names no device authorization endpoint", metadata.get("device_authorization_endpoint"))
    check(DEVICE_GRANT in metadata.get("grant_types_supported", []), "the metadata does not name the device grant",
          metadata.get("grant_types_supported"))
    ok("discovery names device_authorization_endpoint and the device code grant")

    # A public client: Authlib's `none` client authentication puts client_id in the form, no secret anywhere.
    session = OAuth2Session(client_id, token_endpoint_auth_method="none", default_timeout=TIMEOUT)
    response = session.post(metadata["device_authorization_endpoint"], data={"scope": scope},
                            auth=session.client_auth("none"), withhold_token=True)
    check(response.status_code == 200, "the device authorization request failed", (response.status_code, response.text))
    check("no-store" in response.headers.get("Cache-Control", ""), "the device codes may be cached",
          response.headers.get("Cache-Control"))
    started = response.json()
    for key in ("device_code", "user_code", "verification_uri", "verification_uri_complete", "expires_in", "interval"):
        check(key in started, f"the device authorization response has no {key}", started)
    check(started["verification_uri"] == f"{issuer}/device", "the verification URI is not the issuer's /device", started)
    device_code, interval = started["device_code"], int(started["interval"])
    ok(f"device authorization gave user code {started['user_code']}, interval {interval}s")

    # Before anyone has typed the code: authorization_pending (polled at once, so no slow_down yet).
    token, error = poll(session, metadata, device_code)
    check(token is None and error == "authorization_pending", "the first poll was not authorization_pending", error)
    ok("the first poll answers authorization_pending")

    # The test types the code now; the device polls at its interval (five seconds more after a slow_down).
    print(f"USER_CODE {started['user_code']} {started['verification_uri']}", flush=True)
    seen = []
    deadline = time.monotonic() + 45
    while True:
        time.sleep(interval)
        token, error = poll(session, metadata, device_code)
        if token is not None:
            break
        seen.append(error)
        check(error in ("authorization_pending", "slow_down"), "a poll failed", error)
        if error == "slow_down":
            interval += 5
        check(time.monotonic() < deadline, "the user's approval never reached the device", seen)
    check("slow_down" not in seen, "a device polling at its interval was told to slow down", seen)
    ok(f"polling at the interval got the tokens (after {len(seen)} more pending answers)")

    for key in ("access_token", "id_token", "refresh_token", "expires_in", "scope"):
        check(key in token, f"the token response has no {key}", dict(token))
    check(token["token_type"].lower() == "bearer", "the token type is not Bearer", token["token_type"])
    check(set(token["scope"].split()) == set(scope.split()), "the granted scopes differ", token["scope"])

    keys = keys_of(metadata)

    # The ID token: the device's client and the user who approved.
    id_claims = verify_jwt(token["id_token"], keys, iss=issuer, aud=client_id, sub=None, exp=None, iat=None).claims
    check(id_claims.get("email") == email, "the ID token names another email", dict(id_claims))
    check("nonce" not in id_claims, "the device's ID token has a nonce nobody sent", dict(id_claims))
    sub = id_claims["sub"]
    ok("ID token verified (signature, iss, aud = the client, exp), for the user who approved")

    # The access token: an RFC 9068 at+jwt for the userinfo endpoint, the client's, the same user's.
    access_token = token["access_token"]
    check(header_of(access_token).get("typ") == "at+jwt", "the access token is not typed at+jwt", header_of(access_token))
    decoded = verify_jwt(access_token, keys, iss=issuer, aud=metadata["userinfo_endpoint"], client_id=client_id, sub=sub,
                         exp=None)
    check(set(decoded.claims.get("scope", "").split()) == set(scope.split()), "the access token's scope differs",
          decoded.claims)
    ok("access token is a verified at+jwt for the userinfo endpoint, the client's, the user's")

    response = session.get(metadata["userinfo_endpoint"])
    check(response.status_code == 200, "userinfo refused the device's access token", (response.status_code, response.text))
    check(response.json().get("sub") == sub and response.json().get("email") == email, "userinfo names another user",
          response.json())
    ok("userinfo answers the user's claims")

    # The device code works once.
    again, error = poll(session, metadata, device_code)
    check(again is None and error == "invalid_grant", "the spent device code was not refused with invalid_grant", error)
    ok("the spent device code gives invalid_grant")

    # Refresh: a public client's refresh token rotates; the new access token works.
    refresh_token = token["refresh_token"]
    refreshed = session.refresh_token(metadata["token_endpoint"], refresh_token=refresh_token)
    check(refreshed.get("access_token") and refreshed["access_token"] != access_token, "the refresh gave no new access token",
          dict(refreshed))
    check(refreshed.get("refresh_token") and refreshed["refresh_token"] != refresh_token,
          "a public client's refresh token did not rotate", dict(refreshed))
    response = session.get(metadata["userinfo_endpoint"])
    check(response.status_code == 200 and response.json().get("sub") == sub, "userinfo refused the refreshed token",
          (response.status_code, response.text))
    ok("refresh_token grant rotated the refresh token; the new access token works at userinfo")
    print(f"SUB {sub}", flush=True)


if __name__ == "__main__":
    run(main, 75, "Authlib device flow checks passed")
