"""Drives Debian's headless Chromium through Flint's web console (/console) over the DevTools protocol.

Environment:
  FLINT_CHROMIUM     the chromium executable
  FLINT_CONSOLE_URL  the console's address, e.g. http://127.0.0.1:PORT/console
  FLINT_KEY_FILE     a service-account JSON key file to sign in with (production mode); absent or empty: emulator
                     mode, where #sign-in alone signs in
  FLINT_USER_EMAIL   the email of an existing user, to find and disable
  FLINT_SCREENSHOTS  a directory (created if need be) for one PNG per step: 01-login.png, 02-users.png, ...;
                     absent or empty: no screenshots
  FLINT_TIMEOUT      overall deadline in seconds (default 60)

The scenario: open the console (the login page), sign in, search the user and disable it, enable Facebook sign-in,
add eleven test phone numbers (the eleventh should be refused) and remove the first, read the dashboard's charts,
sign out. Pages are told apart
by <body data-page="...">. Navigations are form submissions (answered with 303 redirects) and links; before each
click the current document is marked, and the driver waits for an unmarked document that is complete, so it never
reads the page it just left. A click whose page shows a new #error text without navigating (a check in the page's
own script) counts as landed on that same page.

Prints ONE JSON object on stdout, filled in step by step, so a run that fails midway still shows what it saw:
  {"login": {"page", "error"}, "search": {"uids": [...]}, "userBefore", "userAfter", "disableNotice",
   "facebook": {"status", "notice", "error"}, "adds": [{"error", "rows"}, ...], "afterRemove": {"rows",
   "removedGone"}, "dashboard": {chart id: {"bars", "total", "width", "height"}}, "signedOut": bool, "screenshots": [paths], "log": [console, exception and log-entry messages]}
Texts are trimmed; an element that is missing reads as null, and so does an #error or #notice that is hidden or
empty. Exit status: 0 when the scenario ran to its end, or stopped because signing in failed (login.page is then not
"users"); 2 on a timeout, an unexpected page, a missing element the scenario must click or fill, a setup failure
or SIGTERM (chromium is killed first); the reason goes to stderr.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devtools  # noqa: E402  (this directory's DevTools plumbing)
from devtools import poll  # noqa: E402

VIEWPORT = {"width": 1280, "height": 900}
TEST_NUMBERS = 11  # the console allows ten; the eleventh must be refused
FIRST_NUMBER = "+16505551000"
ROWS = "#test-numbers tr[data-number]"


class ScenarioError(Exception):
    """The console did not offer what the scenario needs next (a page, an element)."""


# JavaScript run in the page. Each is a function expression, called with JSON arguments by Console.run.

# Trimmed text of the first element matching a selector, or null.
TEXT = "(selector) => { const e = document.querySelector(selector); return e ? e.textContent.trim() : null; }"

# Like TEXT, but also null when the element is hidden or empty: for #error and #notice, which pages may always render.
MESSAGE = """(selector) => {
  const e = document.querySelector(selector);
  if (!e || e.hidden || e.getClientRects().length === 0) return null;
  return e.textContent.trim() || null;
}"""

COUNT = "(selector) => document.querySelectorAll(selector).length"

# Each dashboard chart (figure.chart) as drawn: its bars (SVG rects with data-count), their counts' sum, and the size
# the browser laid its SVG out at (0 x 0 when nothing was drawn).
CHARTS = """() => {
  const charts = {};
  for (const figure of document.querySelectorAll('figure.chart')) {
    const bars = Array.from(figure.querySelectorAll('svg rect[data-count]'));
    const svg = figure.querySelector('svg');
    const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    charts[figure.id] = {bars: bars.length, total: bars.reduce((sum, bar) => sum + Number(bar.dataset.count), 0),
                         width: Math.round(box.width), height: Math.round(box.height)};
  }
  return charts;
}"""

# Sets fields (selector -> value; true/false checks a checkbox) as typing would, with input and change events.
# Returns the selectors that matched nothing.
FILL = """(fields) => {
  const missing = [];
  for (const [selector, value] of Object.entries(fields)) {
    const e = document.querySelector(selector);
    if (!e) { missing.push(selector); continue; }
    if (typeof value === 'boolean') e.checked = value; else e.value = value;
    e.dispatchEvent(new Event('input', {bubbles: true}));
    e.dispatchEvent(new Event('change', {bubbles: true}));
  }
  return missing;
}"""

# Marks the current document as left behind (with its #error text, to notice an in-page error), then clicks.
# A submit button whose form fails constraint validation would silently not submit: that is reported instead.
CLICK = """(selector) => {
  const e = document.querySelector(selector);
  if (!e) return 'nothing matches ' + selector;
  const form = e.form || null;
  if (form && e.type === 'submit' && !e.formNoValidate && !form.noValidate && !form.checkValidity()) {
    return 'the form would not submit: ' + Array.from(form.elements)
      .filter((field) => field.validity && !field.validity.valid)
      .map((field) => '#' + (field.id || field.name) + ' ' + field.validationMessage).join('; ');
  }
  const error = document.querySelector('#error');
  window.__flintOld = true;
  window.__flintErrorBefore = error ? error.textContent.trim() : '';
  e.click();
  return null;
}"""

# Where the tab is: the document's readiness, whether it is the one marked by CLICK, its data-page and its error.
PAGE = """() => {
  const error = document.querySelector('#error');
  const visible = !!error && !error.hidden && error.getClientRects().length > 0;
  return {
    ready: document.readyState,
    old: window.__flintOld === true,
    page: document.body ? (document.body.dataset.page || null) : null,
    error: visible ? (error.textContent.trim() || null) : null,
    errorBefore: window.__flintErrorBefore === undefined ? null : window.__flintErrorBefore,
    url: location.href,
    title: document.title,
  };
}"""


class Console:
    """The console in chromium's tab: reading it, filling it, clicking through it and photographing it."""

    def __init__(self, tools, screenshots_dir, screenshots):
        self.tools = tools
        self.screenshots_dir = screenshots_dir
        self.screenshots = screenshots  # the output's list, appended to as pictures are taken

    def run(self, function, *arguments, tolerant=False):
        """Calls one of the JavaScript functions above with JSON arguments; with tolerant, None instead of an
        error while a navigation has the execution context changing."""
        expression = "(%s)(%s)" % (function, ", ".join(json.dumps(argument) for argument in arguments))
        return self.tools.try_evaluate(expression) if tolerant else self.tools.evaluate(expression)

    def text(self, selector):
        return self.run(TEXT, selector)

    def message(self, selector):
        return self.run(MESSAGE, selector)

    def count(self, selector):
        return self.run(COUNT, selector)

    def fill(self, fields):
        missing = self.run(FILL, fields)
        if missing:
            raise ScenarioError(f"on the {self.run(PAGE)['page']} page, nothing matches {', '.join(missing)}")

    def wait(self, what):
        """Waits until the tab holds a new, completely loaded document (or the old one shows a new error) and
        returns its PAGE state."""

        def landed():
            state = self.run(PAGE, tolerant=True)
            if not state:
                return None
            if not state["old"] and state["ready"] == "complete":
                return state
            if state["old"] and state["error"] and state["error"] != state["errorBefore"]:
                return state
            return None

        return poll(landed, what)

    def expect(self, state, expected, what):
        if state["page"] != expected:
            raise ScenarioError(
                f"{what}: expected the {expected} page, got data-page={state['page']!r} at {state['url']} "
                f"(title {state['title']!r}, #error {state['error']!r})")
        return state

    def open(self, url, expected):
        """Navigates the tab to url and waits for the expected page."""
        self.tools.evaluate("window.__flintOld = true")
        self.tools.navigate(url)
        return self.expect(self.wait("the console at " + url), expected, "opening " + url)

    def click(self, selector, expected=None, what=None):
        """Clicks an element that navigates and waits for the next page; checks it is the expected one if given."""
        what = what or "clicking " + selector
        problem = self.run(CLICK, selector)
        if problem:
            raise ScenarioError(f"{what}: {problem} (on the {self.run(PAGE)['page']} page)")
        state = self.wait(f"the page after {what}")
        return self.expect(state, expected, what) if expected else state

    def screenshot(self, name):
        if not self.screenshots_dir:
            return
        path = os.path.join(self.screenshots_dir, "%02d-%s.png" % (len(self.screenshots) + 1, name))
        self.tools.screenshot(path)
        self.screenshots.append(path)


def scenario(console, observed, url, email, key_file):
    """Runs the steps, recording each observation in `observed` as soon as it is made. Returns when done or when
    signing in fails; raises ScenarioError (or devtools.Timeout) when the console goes off script."""

    # a. A fresh browser lands on the login page.
    console.open(url, "login")
    console.screenshot("login")

    # b. Sign in: with the key file (the page signs a JWT with it in WebCrypto), or in emulator mode without.
    if key_file and not console.tools.set_file_input("#key-file", [key_file]):
        raise ScenarioError("the login page has no #key-file input")
    state = console.click("#sign-in", what="signing in")
    observed["login"] = {"page": state["page"], "error": console.message("#error")}
    if state["page"] != "users":
        console.screenshot("login-failed")
        return
    console.screenshot("users")

    # c. Find the user, open it, disable it.
    console.fill({"#q": email})
    console.click("#search", "users", "searching for " + email)
    observed["search"] = {"uids": console.run(
        "() => Array.from(document.querySelectorAll('#users tr[data-uid]'), (row) => row.dataset.uid)")}
    console.screenshot("users-search")
    console.click("a.user-link", "user", "opening the first user found")
    observed["userBefore"] = console.text("#user-status")
    console.screenshot("user")
    console.click("#disable", "user", "disabling the user")
    observed["userAfter"] = console.text("#user-status")
    observed["disableNotice"] = console.message("#notice")
    console.screenshot("user-disabled")

    # d. Enable Facebook sign-in.
    console.click("#nav-sign-in", "sign-in", "opening the sign-in methods")
    console.fill({
        "#facebook-form #facebook-enabled": True,
        "#facebook-form #facebook-client-id": "1234567890",
        "#facebook-form #facebook-client-secret": "console-secret",
    })
    console.click("#facebook-form #save-facebook", "sign-in", "saving the Facebook settings")
    observed["facebook"] = {
        "status": console.text("#facebook-status"),
        "notice": console.message("#notice"),
        "error": console.message("#error"),
    }
    console.screenshot("sign-in")

    # e. Test phone numbers: ten fit, the eleventh is refused; then remove the first.
    console.click("#nav-test-numbers", "test-numbers", "opening the test phone numbers")
    for index in range(TEST_NUMBERS):
        number = "+1650555%04d" % (1000 + index)
        console.fill({"#number": number, "#code": "%06d" % (100000 + index)})
        console.click("#add-number", "test-numbers", "adding " + number)
        observed["adds"].append({"error": console.message("#error"), "rows": console.count(ROWS)})
    console.screenshot("test-numbers-full")
    first_row = '#test-numbers tr[data-number="%s"]' % FIRST_NUMBER
    console.click(first_row + " .remove-number", "test-numbers", "removing " + FIRST_NUMBER)
    observed["afterRemove"] = {"rows": console.count(ROWS), "removedGone": console.count(first_row) == 0}
    console.screenshot("test-numbers-removed")

    # f. The dashboard: its charts are SVG drawn on the server; read back what each one drew, and how big.
    console.click("#nav-dashboard", "dashboard", "opening the dashboard")
    observed["dashboard"] = console.run(CHARTS)
    console.screenshot("dashboard")

    # g. Sign out: back to the login page.
    state = console.click("#sign-out", what="signing out")
    observed["signedOut"] = not state["old"] and state["page"] == "login"
    console.screenshot("signed-out")


def main():
    observed = {
        "login": None, "search": None, "userBefore": None, "userAfter": None, "disableNotice": None,
        "facebook": None, "adds": [], "afterRemove": None, "dashboard": None, "signedOut": False, "screenshots": [],
        "log": [],
    }
    devtools.exit_on_sigterm()
    try:
        missing = [name for name in ("FLINT_CHROMIUM", "FLINT_CONSOLE_URL", "FLINT_USER_EMAIL")
                   if not os.environ.get(name)]
        if missing:
            raise RuntimeError("missing environment: " + ", ".join(missing))
        devtools.set_deadline(float(os.environ.get("FLINT_TIMEOUT", "60")))
        screenshots_dir = os.environ.get("FLINT_SCREENSHOTS") or None
        key_file = os.environ.get("FLINT_KEY_FILE") or None
        if screenshots_dir:
            os.makedirs(screenshots_dir, exist_ok=True)
        with devtools.launch(os.environ["FLINT_CHROMIUM"]) as tools:
            observed["log"] = tools.log  # the same list: it keeps filling
            tools.accept_dialogs = True  # a confirm() before disabling or removing must not stall the page
            tools.call("Emulation.setDeviceMetricsOverride", deviceScaleFactor=1, mobile=False, **VIEWPORT)
            console = Console(tools, screenshots_dir, observed["screenshots"])
            scenario(console, observed, os.environ["FLINT_CONSOLE_URL"], os.environ["FLINT_USER_EMAIL"], key_file)
        return 0
    except SystemExit:
        print("terminated (SIGTERM); chromium was stopped", file=sys.stderr)
        raise
    except Exception as error:  # noqa: BLE001: whatever stopped the run, report it and what was seen before
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        return 2
    finally:
        print(json.dumps(observed))


if __name__ == "__main__":
    sys.exit(main())
