"""Apache's mod_auth_openidc as a relying party of Flint's OpenID provider, the user signing in on the team's own
sign-in page (oidc_team_sign_in.html, served by the same Apache outside its protected location), in Debian's headless
Chromium.

The browser opens the Apache's protected page; mod_auth_openidc sends it to Flint's authorization endpoint, which
sends it to the team's page (the project's oauthServer.signInPageURL) with an authorization_id. The driver waits for
the page to have read the authorization (its heading names the client), then creates an account there as a user
would (the labelled email and password fields, the Create account button); the page signs up with Flint's REST API,
approves the authorization and goes where Flint answers, back to the module, whose protected page shows the claims.
Then the module's logout (`redirect_uri?logout=…`), through Flint's end-session endpoint to the signed-out page; then
the protected page again, which must show the team's page (with a new authorization_id) again; signing in there with
the same account (the Sign in button) brings the protected page back for the same user.

Environment: FLINT_CHROMIUM, FLINT_TIMEOUT, FLINT_EMAIL, FLINT_PASSWORD, FLINT_SITE (the Apache's origin,
http://127.0.0.1:PORT) and FLINT_TEAM_PAGE (the team page's address). Prints one JSON object: each step's outcome
(`steps`), every document request the browser made (`navigations`), every fetch call the pages made (`fetches`: URL,
method) and the browser's log; `error` (with `last_url`) if a step failed.
"""

import json
import os
import sys
import urllib.parse

import devtools

# The protected page: what mod_auth_openidc put in the request's environment.
CLAIMS = """(() => {
  const text = (id) => { const node = document.getElementById(id); return node ? node.textContent : null; };
  return {app: text('app'), email: text('email'), sub: text('sub'), iss: text('iss'), aud: text('aud'),
          remote_user: text('remote-user')};
})()"""

# The team's page once it has read the authorization.
TEAM_PAGE = """(() => ({
  url: location.href,
  heading: document.getElementById('heading').textContent,
  scopes: [...document.querySelectorAll('#scopes li')].map((li) => li.textContent),
  labels: [...document.querySelectorAll('label')].map((label) => [label.htmlFor, label.textContent]),
}))()"""


def main():
    devtools.set_deadline(float(os.environ["FLINT_TIMEOUT"]))
    devtools.exit_on_sigterm()
    email, password = os.environ["FLINT_EMAIL"], os.environ["FLINT_PASSWORD"]
    site, team_page = os.environ["FLINT_SITE"], os.environ["FLINT_TEAM_PAGE"]
    team = urllib.parse.urlsplit(team_page)
    team_origin = f"{team.scheme}://{team.netloc}"
    result = {"steps": {}, "navigations": [], "fetches": []}
    steps = result["steps"]
    tools = None
    seen = {"href": None}

    def where():
        href = tools.try_evaluate("location.href") or ""
        seen["href"] = href or seen["href"]
        return href

    def on_page(origin, path, ready="true"):
        """Polls until the page is `origin` + `path` and `ready` (a JavaScript expression) holds there; the team page
        showing its error fails at once."""
        def check():
            href = tools.try_evaluate("document.readyState === 'complete' && (" + ready + ") ? location.href : null")
            if not href:
                problem = tools.try_evaluate("document.body && document.body.dataset.state === 'error' "
                                             "? document.getElementById('error').textContent : null")
                if problem:
                    raise RuntimeError(f"the team's page failed: {problem}")
                return where() and None
            seen["href"] = href
            parts = urllib.parse.urlsplit(href)
            return href if f"{parts.scheme}://{parts.netloc}" == origin and parts.path == path else None
        return devtools.poll(check, f"{origin}{path}")

    def team_page_ready():
        on_page(team_origin, team.path, "document.body.dataset.state === 'ready'")
        return tools.evaluate(TEAM_PAGE)

    def submit(button):
        """Types the email and password into the team page's fields as a user would, then presses `button`."""
        tools.evaluate("""((email, password, button) => {
          for (const [id, value] of [['email', email], ['password', password]]) {
            const field = document.getElementById(id);
            field.focus(); field.value = value;
            field.dispatchEvent(new Event('input', {bubbles: true}));
            field.dispatchEvent(new Event('change', {bubbles: true}));
          }
          document.querySelector(`#sign-in button[value="${button}"]`).click();
        })(%s, %s, %s)""" % (json.dumps(email), json.dumps(password), json.dumps(button)))

    def claims_page():
        on_page(site, "/protected/index.shtml", "document.getElementById('email') !== null")
        return {"url": tools.evaluate("location.href"), "claims": tools.evaluate(CLAIMS)}

    try:
        with devtools.launch(os.environ["FLINT_CHROMIUM"]) as tools:
            devtools.record_navigations(tools, result["navigations"])
            devtools.record_navigations(tools, result["fetches"], types=("Fetch",))

            # 1. The protected page → Flint → the team's page, which reads the authorization; sign up there.
            tools.navigate(site + "/protected/index.shtml")
            steps["team_page"] = team_page_ready()
            submit("sign-up")
            steps["page"] = claims_page()

            # 2. The module's logout, through Flint's end-session endpoint, to the signed-out page.
            logout = urllib.parse.quote(site + "/loggedout.html", safe="")
            tools.navigate(site + "/protected/redirect_uri?logout=" + logout)
            on_page(site, "/loggedout.html", "document.getElementById('logged-out') !== null")
            steps["logged_out"] = {"url": tools.evaluate("location.href")}

            # 3. The protected page again: no session at the module (nor at Flint), so the team's page again.
            tools.navigate(site + "/protected/index.shtml")
            page = devtools.poll(lambda: (lambda href: href if urllib.parse.urlsplit(href).path in (
                team.path, "/protected/index.shtml", "/__/oauth/signin") else None)(where()),
                "the team's page or the protected page")
            steps["after_logout"] = {"url": page}
            if urllib.parse.urlsplit(page).path != team.path:
                raise RuntimeError(f"after the logout, the protected page did not ask to sign in: {page}")

            # 4. Signing in there with the account brings the protected page back.
            steps["team_page_again"] = team_page_ready()
            submit("sign-in")
            steps["page_again"] = claims_page()
            result["log"] = tools.log
    except Exception as error:  # reported, for the test to show
        result["error"] = repr(error)
        result["last_url"] = seen["href"]
        if tools is not None:
            result["log"] = tools.log
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
