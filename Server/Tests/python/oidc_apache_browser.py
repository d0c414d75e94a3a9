"""Apache's mod_auth_openidc as a relying party of Flint's OpenID provider, in Debian's headless Chromium.

Two loopback Apaches (A and B) protect `/protected/` with mod_auth_openidc, each as its own registered client. The
browser opens A's protected page; mod_auth_openidc sends it to Flint's authorization endpoint, which sends it to
Flint's hosted sign-in page; the driver creates an account there as a user would (the sign-up section's fields, its
button), allows the consent page, and is back on A's page, which shows the claims the module passes on. Then B's
page: single sign-on, so only a consent page. Then A's logout (`redirect_uri?logout=…`), through Flint's end-session
endpoint to A's signed-out page; then a `prompt=none` authorization request for B, which must come back with
`login_required`; then A's page again, which must show Flint's sign-in page.

Environment: FLINT_CHROMIUM, FLINT_TIMEOUT, FLINT_ISSUER, FLINT_EMAIL, FLINT_PASSWORD, FLINT_A and FLINT_B (each
Apache's origin, http://127.0.0.1:PORT), FLINT_SILENT_B (the prompt=none authorization URL for B's client).
Prints one JSON object: each step's outcome (`steps`), every document request the browser made (`navigations`: URL
and, for a redirect's next hop, the status that sent it there) and the browser's log; `error` if a step failed.
"""

import json
import os
import sys
import urllib.parse

import devtools

# The page a protected location shows: what mod_auth_openidc put in the request's environment.
CLAIMS = """(() => {
  const text = (id) => { const node = document.getElementById(id); return node ? node.textContent : null; };
  return {app: text('app'), email: text('email'), email_verified: text('email-verified'), sub: text('sub'),
          iss: text('iss'), aud: text('aud'), remote_user: text('remote-user')};
})()"""


def main():
    devtools.set_deadline(float(os.environ["FLINT_TIMEOUT"]))
    devtools.exit_on_sigterm()
    issuer = os.environ["FLINT_ISSUER"]
    provider = urllib.parse.urlsplit(issuer)
    provider_origin = f"{provider.scheme}://{provider.netloc}"
    email, password = os.environ["FLINT_EMAIL"], os.environ["FLINT_PASSWORD"]
    site_a, site_b = os.environ["FLINT_A"], os.environ["FLINT_B"]
    result = {"steps": {}, "navigations": []}
    steps = result["steps"]
    tools = None
    seen = {"href": None}

    def poll(condition, what):
        """devtools.poll, but a Content Security Policy violation (a blocked form post or redirect) fails at once."""
        def checked():
            for entry in tools.log:
                if "Content Security Policy" in entry:
                    raise RuntimeError(f"chromium blocked the page, waiting for {what}: {entry.strip()}")
            return condition()
        return devtools.poll(checked, what)

    def where():
        href = tools.try_evaluate("location.href") or ""
        seen["href"] = href or seen["href"]
        return href

    def on_page(origin, path, ready="true"):
        """Polls until the page is `origin` + `path` and `ready` (a JavaScript expression) holds there."""
        def check():
            href = tools.try_evaluate("document.readyState === 'complete' && (" + ready + ") ? location.href : null")
            if not href:
                return where() and None
            seen["href"] = href
            parts = urllib.parse.urlsplit(href)
            return href if f"{parts.scheme}://{parts.netloc}" == origin and parts.path == path else None
        return poll(check, f"{origin}{path}")

    def flint_page(path, ready):
        on_page(provider_origin, path, ready)
        return {"path": path, "heading": tools.evaluate("(document.querySelector('h1,h2:not([hidden])') || {}).textContent || null")}

    def consent():
        """On Flint's consent page: what it shows, then the Allow button."""
        flint_page("/__/oauth/consent", "document.querySelector('button[name=consent][value=allow]') !== null")
        shown = tools.evaluate("""({heading: (document.getElementById('consent-heading') || {}).textContent || null,
                                   account: (document.getElementById('account') || {}).textContent || null,
                                   scopes: [...document.querySelectorAll('#scopes li')].map((li) => li.textContent)})""")
        tools.evaluate("document.querySelector('button[name=consent][value=allow]').click()")
        return shown

    def claims_page(site):
        on_page(site, "/protected/index.shtml", "document.getElementById('email') !== null")
        return {"url": tools.evaluate("location.href"), "claims": tools.evaluate(CLAIMS)}

    try:
        with devtools.launch(os.environ["FLINT_CHROMIUM"]) as tools:
            # Every document request, redirects' hops included.
            devtools.record_navigations(tools, result["navigations"])

            # 1. A's page → Flint's sign-in page; create the account there as a user would.
            tools.navigate(site_a + "/protected/index.shtml")
            flint_page("/__/oauth/signin", "document.querySelector('[data-show=sign-up]') !== null")
            steps["sign_in_page"] = {"url": tools.evaluate("location.origin + location.pathname")}
            tools.evaluate("document.querySelector('[data-show=sign-up]').click()")
            poll(lambda: tools.try_evaluate("!document.getElementById('sign-up').hidden") is True, "the sign-up section")
            tools.evaluate("""((email, password) => {
              for (const [id, value] of [['new-email', email], ['new-password', password]]) {
                const field = document.getElementById(id);
                field.focus(); field.value = value;
                field.dispatchEvent(new Event('input', {bubbles: true}));
                field.dispatchEvent(new Event('change', {bubbles: true}));
              }
              document.getElementById('sign-up-button').click();
            })(%s, %s)""" % (json.dumps(email), json.dumps(password)))
            steps["consent_a"] = consent()
            steps["page_a"] = claims_page(site_a)

            # 2. B's page: Flint's session signs the user in; B is another third-party client, so only its consent.
            tools.navigate(site_b + "/protected/index.shtml")
            page = poll(lambda: (lambda href: href if urllib.parse.urlsplit(href).path in (
                "/__/oauth/consent", "/__/oauth/signin") else None)(where()), "Flint's page for B")
            steps["b_asked_to_sign_in"] = urllib.parse.urlsplit(page).path == "/__/oauth/signin"
            if steps["b_asked_to_sign_in"]:
                raise RuntimeError("B's client got Flint's sign-in page: no single sign-on")
            steps["consent_b"] = consent()
            steps["page_b"] = claims_page(site_b)

            # 3. A's logout: mod_auth_openidc ends its session and sends the browser through Flint's end-session
            # endpoint, which sends it on to A's signed-out page.
            tools.navigate(site_a + "/protected/redirect_uri?logout=" + urllib.parse.quote(site_a + "/loggedout.html", safe=""))
            on_page(site_a, "/loggedout.html", "document.getElementById('logged-out') !== null")
            steps["logged_out"] = {"url": tools.evaluate("location.href")}

            # 4. prompt=none for B: Flint has no session now, so B's redirect URI gets login_required.
            tools.navigate(os.environ["FLINT_SILENT_B"])
            landed = poll(lambda: (lambda href: href if href.startswith(site_b + "/protected/redirect_uri") else None)(
                where()), "B's redirect URI")
            steps["silent_b"] = {"url": landed, "query": dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(landed).query))}

            # 5. A's page again: neither A nor Flint has a session, so Flint's sign-in page.
            tools.navigate(site_a + "/protected/index.shtml")
            page = poll(lambda: (lambda href: href if urllib.parse.urlsplit(href).path in (
                "/__/oauth/signin", "/__/oauth/consent", "/protected/index.shtml") else None)(where()), "A's page or Flint's")
            steps["after_logout_a"] = {"url": page}
            result["log"] = tools.log
    except Exception as error:  # reported, for the test to show
        result["error"] = repr(error)
        result["last_url"] = seen["href"]
        if tools is not None:
            result["log"] = tools.log
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
