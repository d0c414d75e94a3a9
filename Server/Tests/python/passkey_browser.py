"""Enrols and signs in with a passkey in Debian's headless Chromium, whose DevTools virtual authenticator (CTAP2,
internal transport, resident keys, user verification on) stands in for Touch ID or Windows Hello.

The page is at the server's own origin (http://localhost:PORT, a secure context, so WebAuthn runs): the driver opens a
file the server serves there and runs the ceremony in it as a site's script would — it asks Flint for options, calls
navigator.credentials.create and get with them, and posts what the browser returns to the finalize operations.
Chromium builds clientDataJSON, authenticatorData, the attestation and the signatures itself, so nothing the server
checks is made by Flint's code.

Environment: FLINT_CHROMIUM, FLINT_TIMEOUT (seconds), FLINT_BASE (http://localhost:PORT), FLINT_API_KEY, FLINT_ID_TOKEN
(a fresh sign-in of the account to enrol). Prints one JSON object: the replies of each step, the authenticator's
credentials as DevTools lists them, and the page's log.
"""

import json
import os
import sys

import devtools

CEREMONY = r"""
(async (base, apiKey, idToken) => {
  const call = async (path, body) => {
    const reply = await fetch(`${base}${path}?key=${encodeURIComponent(apiKey)}`, {
      method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)});
    return {status: reply.status, body: await reply.json()};
  };
  // Options carry base64 (Flint's, as the emulator's) or base64url; WebAuthn answers are sent as base64url.
  const bytes = (text) => {
    const plain = text.replace(/-/g, '+').replace(/_/g, '/');
    return Uint8Array.from(atob(plain + '==='.slice((plain.length + 3) % 4)), (c) => c.charCodeAt(0));
  };
  const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const steps = {};

  const start = await call('/v2/accounts/passkeyEnrollment:start', {idToken});
  steps.enrollStart = start;
  const creation = start.body.credentialCreationOptions;
  const created = await navigator.credentials.create({publicKey: {
    ...creation, challenge: bytes(creation.challenge), user: {...creation.user, id: bytes(creation.user.id)},
    excludeCredentials: (creation.excludeCredentials || []).map((c) => ({...c, id: bytes(c.id)})),
  }});
  steps.enrollFinalize = await call('/v2/accounts/passkeyEnrollment:finalize', {
    idToken, name: 'Chromium passkey',
    authenticatorRegistrationResponse: {id: created.id, rawId: text(created.rawId), type: created.type, response: {
      clientDataJSON: text(created.response.clientDataJSON),
      attestationObject: text(created.response.attestationObject)}}});

  // Sign-in without a user name: the authenticator finds its discoverable credential for the RP ID.
  const signInStart = await call('/v2/accounts/passkeySignIn:start', {});
  steps.signInStart = signInStart;
  const request = signInStart.body.credentialRequestOptions;
  const assertion = await navigator.credentials.get({publicKey: {...request, challenge: bytes(request.challenge)}});
  const answer = {id: assertion.id, rawId: text(assertion.rawId), type: assertion.type, response: {
    clientDataJSON: text(assertion.response.clientDataJSON),
    authenticatorData: text(assertion.response.authenticatorData),
    signature: text(assertion.response.signature),
    userHandle: assertion.response.userHandle ? text(assertion.response.userHandle) : null}};
  steps.signInFinalize = await call('/v2/accounts/passkeySignIn:finalize', {authenticatorAuthenticationResponse: answer});
  // The same answer again: its challenge is spent.
  steps.replay = await call('/v2/accounts/passkeySignIn:finalize', {authenticatorAuthenticationResponse: answer});
  return steps;
})
"""


def main():
    devtools.set_deadline(float(os.environ["FLINT_TIMEOUT"]))
    devtools.exit_on_sigterm()
    base = os.environ["FLINT_BASE"]
    result = {}
    with devtools.launch(os.environ["FLINT_CHROMIUM"]) as tools:
        tools.call("WebAuthn.enable")
        authenticator = tools.call("WebAuthn.addVirtualAuthenticator", options={
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True,
        })["authenticatorId"]
        tools.navigate(base + "/.well-known/assetlinks.json")
        devtools.poll(lambda: tools.try_evaluate("location.origin") == base, "the page at " + base)
        try:
            result["steps"] = tools.evaluate(
                f"{CEREMONY}({json.dumps(base)}, {json.dumps(os.environ['FLINT_API_KEY'])}, "
                f"{json.dumps(os.environ['FLINT_ID_TOKEN'])})")
        except RuntimeError as error:
            result["error"] = str(error)
        credentials = tools.call("WebAuthn.getCredentials", authenticatorId=authenticator).get("credentials", [])
        result["credentials"] = [
            {"credentialId": c.get("credentialId"), "rpId": c.get("rpId"), "isResidentCredential": c.get("isResidentCredential"),
             "userHandle": c.get("userHandle"), "signCount": c.get("signCount")}
            for c in credentials]
        result["log"] = tools.log
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
