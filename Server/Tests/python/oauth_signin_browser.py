"""Flint's hosted sign-in page of the OpenID provider (`/__/oauth/signin`), used in Debian's headless Chromium as a
user would: each method the page offers, through an authorization request of a first-party client (so no consent
page), to the client's redirect URI with the code.

The plan (FLINT_PLAN, a JSON list) is a list of steps, each opening an authorization URL (`url`) in the same browser
(its cookies, so Flint's session, kept from step to step) and then:
- `sign_up`: the sign-up section ([data-show=sign-up]), `#new-email`, `#new-password`, `#sign-up-button`;
- `sign_in`: with `wrong_password`, first that password (the page must show `#error` and stay); then `#email`,
  `#password`, `#sign-in-button`; with `totp_secret` (base32), the second-factor section, where the current
  RFC 6238 code (HMAC-SHA1, 30 s, 6 digits) is typed into `#code` and `#second-factor-button` pressed;
- `reset`: the reset section ([data-show=reset]), `#reset-email`, `#reset-button`, then the notice in `#notice`;
- `email_link`: the email-link section, `#link-email`, `#link-email`'s form sent, the notice; then the link from the
  newest mail to `email` in the inbox (FLINT_INBOX) is opened in the same browser, which comes back to the page;
- `phone`: the phone section, `#phone-number`, `#phone-button`; the code from the newest SMS to `phone` in the inbox
  typed into `#sms-code`, `#phone-code-button`;
- `sign_in` with `sms_to` (instead of `totp_secret`): the second factor's code is the newest SMS to that number (where
  the account has several factors, first the choice's button for that number);
- `passkey`: a DevTools virtual authenticator (CTAP2, internal, resident keys, user verification) is added, a
  passkey enrolled for the account of `id_token` (passkeyEnrollment:start, navigator.credentials.create,
  passkeyEnrollment:finalize, run on the issuer's discovery document, a page of the origin), then on the sign-in page
  `#passkey-button` (the page told the browser has no passkey autofill); with `autofill`, nothing is clicked: the
  page's conditional request, which the virtual authenticator answers, signs in. The authenticator is removed after
  the step;
- `provider`: the button `[data-provider=<provider>]`, through the provider's page and back;
- `saml`: a test IdP (saml_flow.IdP) is started and configured as `provider` through the admin API (FLINT_PROJECT,
  FLINT_ADMIN_AUTHORIZATION) before the page loads, with `name_id` as the user; then its button, the IdP's signed
  response posted back to the hosted handler, and on to the page.
Every step but `reset` ends when the browser asks for the redirect URI (FLINT_REDIRECT_URI, which need not load: its
request is read from DevTools' Network events). Text is typed with Input.insertText into the focused field, and
buttons are clicked.

Environment: FLINT_CHROMIUM, FLINT_TIMEOUT, FLINT_PLAN, FLINT_REDIRECT_URI; for the steps that need them FLINT_API_KEY,
FLINT_PROJECT, FLINT_ADMIN_AUTHORIZATION and FLINT_INBOX (`<url>/messages?to=…` answers the texts sent to an address or
number, oldest first). Prints one JSON object: each step's outcome (`steps`, in order), the SAML IdPs' view of each
AuthnRequest (`saml_requests`), every document request the browser made (`navigations`) and the browser's log;
`error` (and `last_url`) if a step failed.
"""

import base64
import hashlib
import hmac
import html
import json
import os
import re
import struct
import sys
import time
import urllib.parse
import urllib.request

import devtools
import saml_flow

# What the page shows, as the user sees it: which section is open, its messages, and (for the form checks) each
# input's labels, autocomplete token and visibility, and each form's submit buttons.
PAGE_STATE = """(() => {
  const text = (id) => { const node = document.getElementById(id); return node ? node.textContent : null; };
  return {
    path: location.pathname,
    open: [...document.querySelectorAll('section')].filter((s) => !s.hidden).map((s) => s.id),
    error: text('error'), notice: text('notice'),
    focused: document.activeElement ? document.activeElement.id : null,
    inputs: [...document.querySelectorAll('input')].map((input) => ({
      id: input.id, type: input.type, autocomplete: input.getAttribute('autocomplete'),
      labels: [...(input.labels || [])].map((label) => label.textContent)})),
    forms: [...document.querySelectorAll('form')].map((form) => ({
      id: form.id, submits: form.querySelectorAll('button[type=submit], input[type=submit]').length})),
  };
})()"""


def totp(secret_base32, at=None):
    """The RFC 6238 code of the moment `at` (now): HMAC-SHA1 over the 30-second step, dynamic truncation, 6 digits."""
    secret = base64.b32decode(secret_base32 + "=" * (-len(secret_base32) % 8), casefold=True)
    step = int((time.time() if at is None else at) // 30)
    mac = hmac.new(secret, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    value = struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF
    return "%06d" % (value % 1_000_000)


# A passkey enrolled from a page of the origin, as a site's settings page would: Chromium makes everything Flint checks.
ENROLL = r"""
(async (apiKey, idToken) => {
  const call = async (path, body) => {
    const reply = await fetch(`${path}?key=${encodeURIComponent(apiKey)}`, {
      method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)});
    return {status: reply.status, body: await reply.json()};
  };
  const bytes = (text) => {
    const plain = text.replace(/-/g, '+').replace(/_/g, '/');
    return Uint8Array.from(atob(plain + '==='.slice((plain.length + 3) % 4)), (c) => c.charCodeAt(0));
  };
  const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const start = await call('/v2/accounts/passkeyEnrollment:start', {idToken});
  const creation = start.body.credentialCreationOptions;
  const created = await navigator.credentials.create({publicKey: {
    ...creation, challenge: bytes(creation.challenge), user: {...creation.user, id: bytes(creation.user.id)},
    excludeCredentials: (creation.excludeCredentials || []).map((c) => ({...c, id: bytes(c.id)}))}});
  const finalized = await call('/v2/accounts/passkeyEnrollment:finalize', {
    idToken, name: 'Chromium passkey',
    authenticatorRegistrationResponse: {id: created.id, rawId: text(created.rawId), type: created.type, response: {
      clientDataJSON: text(created.response.clientDataJSON),
      attestationObject: text(created.response.attestationObject)}}});
  return finalized.status;
})
"""


def inbox(to):
    """The texts the inbox has received at `to`, oldest first."""
    url = os.environ["FLINT_INBOX"] + "/messages?" + urllib.parse.urlencode({"to": to})
    with urllib.request.urlopen(url, timeout=5) as reply:
        return json.loads(reply.read())


def newest(to, after, pattern, what):
    """The first match of `pattern` in the newest text to `to` beyond the `after` texts there were before."""
    def find():
        texts = inbox(to)
        if len(texts) <= after:
            return None
        match = re.search(pattern, html.unescape(texts[-1]))
        if not match:
            raise RuntimeError(f"no {what} in {texts[-1]!r}")
        return match.group(1) if match.groups() else match.group(0)
    return devtools.poll(find, what, interval=0.1)


def main():
    devtools.set_deadline(float(os.environ["FLINT_TIMEOUT"]))
    devtools.exit_on_sigterm()
    plan = json.loads(os.environ["FLINT_PLAN"])
    redirect_uri = os.environ["FLINT_REDIRECT_URI"]
    result = {"steps": [], "navigations": []}
    tools = None
    browser = None  # devtools.Page, once chromium runs
    idps = []
    seen = {"href": None}

    def poll(condition, what):
        return browser.poll(condition, what)

    def state():
        return browser.state()

    def sign_in_page():
        """Waits for Flint's sign-in page, its script run (the buttons that switch sections are there)."""
        return browser.wait("Flint's sign-in page", lambda s: s["path"] == "/__/oauth/signin" and "sign-in" in s["open"])

    def type_into(field_id, text):
        browser.type_into(field_id, text)

    def click(button_id):
        browser.click(button_id)

    def callback(after):
        """Waits for the browser to ask for the redirect URI (a document request after the `after`-th one)."""
        url = browser.redirect(result["navigations"], after, redirect_uri)
        return {"url": url, "query": dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))}

    def enroll_passkey(step, outcome):
        """A virtual authenticator, and a passkey in it enrolled from a page of the step's origin; its id."""
        tools.call("WebAuthn.enable")
        authenticator = tools.call("WebAuthn.addVirtualAuthenticator", options={
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
            "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True,
        })["authenticatorId"]
        base = urllib.parse.urlsplit(step["url"])
        origin = f"{base.scheme}://{base.netloc}"
        # The issuer's discovery document: a page of the origin without a policy restricting what its scripts fetch.
        discovery = origin + "/" + base.path.strip("/").split("/")[0] + "/.well-known/openid-configuration"
        tools.navigate(discovery)
        poll(lambda: tools.try_evaluate("location.href") == discovery, "a page of " + origin)
        outcome["enrolled"] = tools.evaluate(
            f"{ENROLL}({json.dumps(os.environ['FLINT_API_KEY'])}, {json.dumps(step['id_token'])})")
        return authenticator

    try:
        with devtools.launch(os.environ["FLINT_CHROMIUM"]) as tools:
            devtools.record_navigations(tools, result["navigations"])
            browser = devtools.Page(tools, PAGE_STATE, seen)

            for step in plan:
                outcome = {"name": step["name"], "kind": step["kind"]}
                result["steps"].append(outcome)
                kind = step["kind"]
                authenticator = enroll_passkey(step, outcome) if kind == "passkey" else None
                if kind == "saml":
                    keys = saml_flow.keypair("Acme test IdP")
                    idps.append(saml_flow.IdP(keys, "https://idp.acme.test/metadata", {"name_id": step["name_id"]}, ""))
                    base = urllib.parse.urlsplit(step["url"])
                    idps[-1].configure(f"{base.scheme}://{base.netloc}", os.environ["FLINT_ADMIN_AUTHORIZATION"],
                                       os.environ["FLINT_PROJECT"], step["provider"], "https://flint.acme.test/sp",
                                       devtools.remaining())
                no_autofill = None
                if kind == "passkey" and not step.get("autofill"):
                    # The button's path: the page must not find the browser's passkey autofill.
                    no_autofill = tools.call("Page.addScriptToEvaluateOnNewDocument", source=(
                        "if (window.PublicKeyCredential) PublicKeyCredential.isConditionalMediationAvailable = "
                        "async () => false;"))["identifier"]
                mark = len(result["navigations"])
                tools.navigate(step["url"])
                if kind == "passkey" and step.get("autofill"):
                    # The autofill's path: Chromium's virtual authenticator answers the page's conditional request by
                    # itself, as a user picking the passkey offered in the username field.
                    outcome["callback"] = callback(mark)
                    tools.call("WebAuthn.removeVirtualAuthenticator", authenticatorId=authenticator)
                    continue
                outcome["page"] = sign_in_page()
                if kind == "sign_up":
                    mark = len(result["navigations"])
                    browser.sign_up(step["email"], step["password"])
                    outcome["callback"] = callback(mark)
                elif kind == "sign_in":
                    type_into("email", step["email"])
                    if "wrong_password" in step:
                        type_into("password", step["wrong_password"])
                        mark = len(result["navigations"])
                        click("sign-in-button")
                        shown = poll(lambda: (lambda s: s if s and s["error"] else None)(state()), "the error message")
                        # The answer's gone, the button back: no navigation followed it.
                        poll(lambda: tools.try_evaluate("!document.getElementById('sign-in-button').disabled"),
                             "the sign-in button enabled again")
                        outcome["wrong"] = {"error": shown["error"], "open": shown["open"], "path": shown["path"],
                                            "navigations": result["navigations"][mark:]}
                    type_into("password", step["password"])
                    mark = len(result["navigations"])
                    click("sign-in-button")
                    if "sms_to" in step:
                        before = len(inbox(step["sms_to"]))
                    if "totp_secret" in step:
                        second = poll(lambda: (lambda s: s if s and s["open"] == ["second-factor"] else None)(state()),
                                      "the second-factor section")
                        outcome["second_factor"] = {"focused": second["focused"],
                                                    "navigations": result["navigations"][mark:]}
                        # Not in the last seconds of a step: the code typed is still the current one when it arrives.
                        if time.time() % 30 > 27:
                            time.sleep(30 - time.time() % 30 + 0.2)
                        type_into("code", totp(step["totp_secret"]))
                        click("second-factor-button")
                    elif "sms_to" in step:
                        shown = poll(lambda: (lambda s: s if s and s["open"] in (["second-factor"], ["factor-choice"])
                                              else None)(state()), "the second-factor section or the choice of factors")
                        if shown["open"] == ["factor-choice"]:
                            # Several factors: the one texting the number (shown masked, its last four digits kept).
                            outcome["choices"] = tools.evaluate(
                                "[...document.querySelectorAll('#factors button')].map((b) => b.textContent)")
                            tools.evaluate("[...document.querySelectorAll('#factors button')].find((b) => "
                                           "b.textContent.endsWith(%s)).click()" % json.dumps(step["sms_to"][-4:]))
                        second = poll(lambda: (lambda s: s if s and s["open"] == ["second-factor"] else None)(state()),
                                      "the second-factor section")
                        outcome["second_factor"] = {"focused": second["focused"], "labels": second["inputs"],
                                                    "navigations": result["navigations"][mark:]}
                        type_into("code", newest(step["sms_to"], before, r"\b(\d{6})\b", "SMS code"))
                        click("second-factor-button")
                    outcome["callback"] = callback(mark)
                elif kind == "reset":
                    browser.open_section("reset")
                    type_into("reset-email", step["email"])
                    click("reset-button")
                    shown = poll(lambda: (lambda s: s if s and s["notice"] else None)(state()), "the notice")
                    outcome["reset"] = {"notice": shown["notice"], "error": shown["error"], "open": shown["open"]}
                elif kind == "email_link":
                    before = len(inbox(step["email"]))
                    browser.open_section("email-link")
                    type_into("link-email", step["email"])
                    click("email-link-button")
                    shown = poll(lambda: (lambda s: s if s and s["notice"] else None)(state()), "the link's notice")
                    outcome["sent"] = {"notice": shown["notice"], "error": shown["error"]}
                    link = newest(step["email"], before, r"https?://[^\s\"'<>]+/__/auth/(?:links|action)\?[^\s\"'<>]+", "sign-in link")
                    outcome["link"] = link
                    mark = len(result["navigations"])
                    tools.navigate(link)
                    outcome["callback"] = callback(mark)
                elif kind == "phone":
                    before = len(inbox(step["phone"]))
                    browser.open_section("phone")
                    type_into("phone-number", step["phone"])
                    click("phone-button")
                    poll(lambda: (lambda s: s if s and s["open"] == ["phone-code"] else None)(state()), "the code section")
                    type_into("sms-code", newest(step["phone"], before, r"\b(\d{6})\b", "SMS code"))
                    mark = len(result["navigations"])
                    click("phone-code-button")
                    outcome["callback"] = callback(mark)
                elif kind == "passkey":
                    click("passkey-button")
                    outcome["callback"] = callback(mark)
                    tools.call("WebAuthn.removeVirtualAuthenticator", authenticatorId=authenticator)
                    tools.call("Page.removeScriptToEvaluateOnNewDocument", identifier=no_autofill)
                elif kind in ("provider", "saml"):
                    mark = len(result["navigations"])
                    tools.evaluate("document.querySelector('[data-provider=\"%s\"]').click()" % step["provider"])
                    outcome["callback"] = callback(mark)
                else:
                    raise RuntimeError(f"unknown step kind {kind!r}")
            result["log"] = tools.log
    except Exception as error:  # reported, for the test to show
        result["error"] = repr(error)
        result["last_url"] = seen["href"]
        if tools is not None:
            result["log"] = tools.log
    finally:
        for idp in idps:
            result.setdefault("saml_requests", []).extend(idp.requests)
            idp.close()
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
