"""SAML single sign-on in Debian's headless Chromium, from the hosted `/__/auth/handler` page to the app's page.

A test IdP (saml_flow.IdP, on 127.0.0.1) is configured as `saml.acme` through the admin API, with signed requests. The
browser opens the handler as the web SDK's redirect flow does; the handler sends it to the IdP with an AuthnRequest; the
IdP checks the request's signature with the SP certificate the admin API shows, and answers with a signxml-signed
response in a self-submitting form to the callback URI; the handler sends the browser on to the app's page
(`http://localhost:IDP_PORT/app`, an authorized domain) with the link in the fragment, and the page finishes with
`accounts:signInWithIdp` and its session ID, then tries the same link again.

Environment: FLINT_CHROMIUM, FLINT_TIMEOUT, FLINT_BASE (http://localhost:PORT), FLINT_API_KEY, FLINT_PROJECT,
FLINT_ADMIN_AUTHORIZATION (the admin API's Authorization header). Prints one JSON object: the IdP's view of each
AuthnRequest, the configured provider, the app page's replies and the browser's log.
"""

import hashlib
import json
import os
import sys
import urllib.parse

import devtools
import saml_flow

PROVIDER = "saml.acme"
IDP_ENTITY = "https://idp.acme.test/metadata"
SP_ENTITY = "https://flint.acme.test/sp"
SESSION_ID = "chromium-saml-session-1"

APP_PAGE = r"""<!doctype html><html><body><script>
(async () => {
  const fields = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
  const call = async () => {
    const reply = await fetch(%(base)s + '/v1/accounts:signInWithIdp?key=' + encodeURIComponent(%(key)s), {
      method: 'POST', headers: {'content-type': 'application/json'},
      body: JSON.stringify({requestUri: fields.link, sessionId: %(session)s, returnSecureToken: true,
                            returnIdpCredential: true})});
    return {status: reply.status, body: await reply.json()};
  };
  const first = await call();
  window.result = {fields, first, replay: await call()};
})().catch((error) => { window.result = {error: String(error)}; });
</script></body></html>"""


def main():
    devtools.set_deadline(float(os.environ["FLINT_TIMEOUT"]))
    devtools.exit_on_sigterm()
    base, key, project = os.environ["FLINT_BASE"], os.environ["FLINT_API_KEY"], os.environ["FLINT_PROJECT"]
    keys = saml_flow.keypair("Acme test IdP")
    page = APP_PAGE % {"base": json.dumps(base), "key": json.dumps(key), "session": json.dumps(SESSION_ID)}
    idp = saml_flow.IdP(keys, IDP_ENTITY, {
        "name_id": "Grace@Acme.test",
        "attributes": {"displayName": ["Grace Hopper"], "groups": ["engineering", "navy"]},
    }, page)
    result = {}
    try:
        result["config"] = idp.configure(base, os.environ["FLINT_ADMIN_AUTHORIZATION"], project, PROVIDER, SP_ENTITY,
                                         devtools.remaining())
        handler = base + "/__/auth/handler?" + urllib.parse.urlencode({
            "apiKey": key, "authType": "signInViaRedirect", "providerId": PROVIDER,
            "sessionId": hashlib.sha256(SESSION_ID.encode()).hexdigest(), "eventId": "evt-saml-1",
            "redirectUrl": f"http://localhost:{idp.port}/app",
        })
        with devtools.launch(os.environ["FLINT_CHROMIUM"]) as tools:
            tools.navigate(handler)
            devtools.poll(lambda: tools.try_evaluate("window.result !== undefined") is True, "the app page's sign-in")
            result["app"] = tools.evaluate("window.result")
            result["final_url"] = tools.evaluate("location.origin + location.pathname")
            result["log"] = tools.log
    except Exception as error:  # reported, for the test to show
        result["error"] = repr(error)
    finally:
        idp.close()
    result["requests"] = idp.requests
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
