"""Drives Debian's headless Chromium through the emulator's sign-in pages (/emulator/auth/handler, the account chooser,
and /emulator/auth/iframe, the web SDK's hidden frame) over the DevTools protocol.

Environment:
  FLINT_CHROMIUM  the chromium executable
  FLINT_URL       the emulator-mode server, e.g. http://127.0.0.1:PORT (its project must hold google.com accounts)
  FLINT_API_KEY   an API key of the project
  FLINT_TIMEOUT   overall deadline in seconds (default 60)

Every click is a real mouse click (Input.dispatchMouseEvent at the element's centre, after checking nothing covers it)
and every field is typed (Input.insertText, Backspace as a key), so the pages' own listeners do the work. The steps:
  redirect    the chooser for authType=signInViaRedirect with a redirectUrl (the iframe page: it must share the
              chooser's origin to read its sessionStorage): what it lists, then a click on the first account, the
              landing on redirectUrl and the event the page left in sessionStorage there.
  newAccount  "Add new account": the form's validation as the email is typed and cleared, Back and in again, the
              auto-generate button, then a typed account submitted (redirect shape again).
  ios         clientId/ibi/eventId: the first account, then (iosCancel) #cancel-button; each time the deep link the
              browser really tries to open, as the DevTools Page.frameStartedNavigating (browser side) and
              Page.frameRequestedNavigation (renderer side) events of the main frame report it. Each in a tab of its
              own: once chromium has tried to hand a URL to another app, it passes that tab no more input.
  android     apn: the same with the intent:// URL.
  popup       an opener page served here on http://localhost:PORT (an authorized domain) frames the iframe page
              (Flint on 127.0.0.1: another origin) and opens the chooser in a popup by a clicked button; the driver
              attaches to the popup, clicks the first account there and waits for the opener to receive the frame's
              postMessage; then attaches to the frame to read the event it kept in its sessionStorage.
  framing     pages served here frame both pages: from localhost the chooser is refused (frame-ancestors 'none'),
              and from unauthorized.test (mapped to 127.0.0.1 by --host-resolver-rules) the iframe page is too.
  cspProbe    an inline script injected into the chooser: it must not run, and the log must show the violation
              (proof that the log this driver collects would show one).
The framing and cspProbe violations are moved from the log to their steps, so "log" holds only what the scenario
itself caused. apis.google.com is mapped to nothing, so the iframe page never loads gapi, online or not.

Each step opens its pages afresh and each wait is bounded on its own (STEP_WAIT seconds, and the overall deadline),
so a step that goes wrong is recorded in "errors" and the others still run.

Prints ONE JSON object on stdout, filled in step by step, so a run that fails midway still shows what it saw:
  {"redirect": {"chooser", "clicked", "url", "event"}, "newAccount": {form states..., "url", "event"},
   "ios": {"clicked", "url", "requestedUrl"}, "iosCancel": {...}, "android": {...},
   "popup": {"opened", "accounts", "hasOpener", "clicked", "messages", "frameStored", "frameAncestors"},
   "framing": {"localhost": [log entries], "unauthorized.test": [...]}, "cspProbe": {"ran", "log"},
   "errors": {step: reason}, "dialogs": [...], "log": ["[tab] source/level: text", ...]}
A "chooser" is the page as shown: title, help text, accounts (display name as text, its child element count, email,
img count, photo src, the claims of data-id-token), the number of elements with onerror or src="x" in the page.
Exit status: 0 when the steps ran (each to its end or to an error in "errors"); 2 on a setup failure, the overall
deadline or SIGTERM (chromium is killed first); the reason goes to stderr.
"""

import json
import os
import sys
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devtools  # noqa: E402  (this directory's DevTools plumbing)
from devtools import Timeout  # noqa: E402

HANDLER = "/emulator/auth/handler"
IFRAME = "/emulator/auth/iframe"
APP_NAME = "[DEFAULT]"
UNAUTHORIZED_HOST = "unauthorized.test"
STEP_WAIT = 45  # seconds any one wait may take (a page load, a click's outcome) on a busy two-core machine (15 s was exceeded in CI)

# Hermetic: the iframe page's gapi script never loads (it would take the event over where the offline path is
# tested), and a host that is not an authorized domain still reaches this machine's loopback.
devtools.CHROMIUM_FLAGS = devtools.CHROMIUM_FLAGS + [
    f"--host-resolver-rules=MAP apis.google.com ~NOTFOUND, MAP {UNAUTHORIZED_HOST} 127.0.0.1",
]


class ScenarioError(Exception):
    """A page did not offer what the scenario needs next."""


def wait(condition, what, seconds=STEP_WAIT):
    """devtools.poll, bounded by `seconds` as well as by the overall deadline."""
    end = time.monotonic() + seconds

    def bounded():
        value = condition()
        if not value and time.monotonic() > end:
            raise Timeout(f"timed out after {seconds} s waiting for {what}")
        return value

    return devtools.poll(bounded, what)


# JavaScript run in the pages: function expressions, called with JSON arguments by Tab.run.

# The chooser as shown. Display names are read as text: markup in them must stay text.
CHOOSER = """() => {
  const text = (e) => e ? e.textContent.trim() : null;
  const q = (selector) => document.querySelector(selector);
  const where = {ready: document.readyState, old: window.__flintOld === true, url: location.href};
  if (!q('#title')) return Object.assign(where, {title: null});
  return Object.assign(where, {
    title: text(q('#title')), help: text(q('.js-accounts-help-text')), newAccount: text(q('.js-new-account')),
    cancel: text(q('#cancel-button')), listVisible: !q('#accounts-list').hidden, formVisible: !q('#add-user').hidden,
    accounts: Array.from(document.querySelectorAll('.js-reuse-account')).map((item) => {
      const name = item.querySelector('.mdc-list-item__primary-text');
      const photo = item.querySelector('img.profile-photo');
      let claims = null;
      try { claims = JSON.parse(decodeURIComponent(item.getAttribute('data-id-token'))); } catch (invalid) {}
      return {name: name ? name.textContent : null, nameElements: name ? name.children.length : null,
              email: text(item.querySelector('#reuse-email')), images: item.querySelectorAll('img').length,
              photo: photo ? photo.getAttribute('src') : null, claims: claims};
    }),
    injected: document.querySelectorAll('img[src="x"], [onerror]').length,
  });
}"""

# The add-account form.
FORM = """() => {
  const q = (selector) => document.querySelector(selector);
  return {
    listVisible: !q('#accounts-list').hidden, formVisible: !q('#add-user').hidden,
    email: q('#email-input').value, emailError: q('#email-error').textContent,
    displayName: q('#display-name-input').value, screenName: q('#screen-name-input').value,
    photo: q('#profile-photo-input').value, sub: q('#sub-input').value,
    signInDisabled: q('#sign-in').disabled, focused: document.activeElement ? document.activeElement.id || null : null,
  };
}"""

# Where the tab is, and what the redirect left in this origin's sessionStorage under `key`.
LANDED = """(key) => ({ready: document.readyState, old: window.__flintOld === true, url: location.href,
                       stored: sessionStorage.getItem(key)})"""

# The centre of the element, scrolled into view, if it is laid out and nothing covers it there.
POINT = """(selector) => {
  const e = document.querySelector(selector);
  if (!e) return {missing: selector};
  e.scrollIntoView({block: 'center', inline: 'center'});
  const box = e.getBoundingClientRect();
  if (!box.width || !box.height) return null;
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const hit = document.elementFromPoint(x, y);
  return hit && (hit === e || e.contains(hit)) ? {x: x, y: y} : null;
}"""

# The opener page of the popup step: frames the SDK's iframe page, records every message it gets and opens the
# chooser in a popup when its button is clicked (a user gesture, as the SDK's signInWithPopup needs).
OPENER_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Opener</title></head>
<body>
<button id="open" type="button">Sign in with Google</button>
<iframe id="auth-frame" title="auth" src="%(frame)s"></iframe>
<script>
  window.__messages = [];
  window.__frameLoaded = false;
  window.addEventListener('message', function (e) { window.__messages.push({origin: e.origin, data: e.data}); });
  document.getElementById('auth-frame').addEventListener('load', function () { window.__frameLoaded = true; });
  document.getElementById('open').addEventListener('click', function () {
    window.__popupOpened = !!window.open(%(handler)s, 'flint-sign-in', 'popup,width=520,height=640');
  });
</script>
</body></html>
"""

# The framing step's page: the chooser and the iframe page side by side.
FRAMES_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Frames</title></head>
<body>
<iframe id="chooser" title="chooser" src="%(chooser)s"></iframe>
<iframe id="helper" title="helper" src="%(frame)s"></iframe>
<script>
  window.__loaded = 0;
  for (const id of ['chooser', 'helper']) {
    document.getElementById(id).addEventListener('load', function () { window.__loaded += 1; });
  }
</script>
</body></html>
"""


class Pages:
    """The test's own pages, served on 127.0.0.1 (reached as localhost, or as the unauthorized host)."""

    def __init__(self, pages):
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                body = pages.get(urllib.parse.urlsplit(self.path).path)
                if body is None:
                    self.send_error(404)
                    return
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self.thread.start()

    def url(self, host, path):
        return f"http://{host}:{self.port}{path}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Tab:
    """One page target: runs the scripts above, clicks and types as a user would, and records the main frame's
    navigations and any dialog (accepted, so that a stray alert() cannot stall the run)."""

    def __init__(self, name, tools, dialogs):
        self.name = name
        self.tools = tools
        self.navigations = []
        tools.accept_dialogs = True
        recorded = tools.record

        def record(event):
            method, params = event.get("method"), event.get("params", {})
            if method in ("Page.frameStartedNavigating", "Page.frameRequestedNavigation"):
                self.navigations.append({"event": method.split(".", 1)[1], "frame": params.get("frameId"),
                                         "url": params.get("url")})
            elif method == "Page.javascriptDialogOpening":
                dialogs.append({"tab": name, "type": params.get("type"), "message": params.get("message"),
                                "url": params.get("url")})
            recorded(event)

        tools.record = record  # DevTools.call hands every event to self.record
        self.main_frame = tools.call("Page.getFrameTree")["frameTree"]["frame"]["id"]

    @property
    def log(self):
        return self.tools.log

    def run(self, function, *arguments, tolerant=False):
        expression = "(%s)(%s)" % (function, ", ".join(json.dumps(argument) for argument in arguments))
        return self.tools.try_evaluate(expression) if tolerant else self.tools.evaluate(expression)

    def open(self, url, ready, what):
        """Navigates to url and waits until a new document there is complete and ready(state of CHOOSER) holds."""
        self.tools.try_evaluate("window.__flintOld = true")
        self.tools.navigate(url)

        def landed():
            state = self.run(CHOOSER, tolerant=True)
            return state if state and not state["old"] and state["ready"] == "complete" and ready(state) else None

        return wait(landed, what)

    def open_chooser(self, url, what):
        return self.open(url, lambda state: state["title"] is not None, what)

    def click(self, selector):
        """A left click at the element's centre, once it is laid out and uncovered."""
        point = wait(lambda: self.run(POINT, selector, tolerant=True),
                     f"{selector} to be clickable in the {self.name} tab")
        if "missing" in point:
            raise ScenarioError(f"nothing matches {selector} in the {self.name} tab")
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.tools.call("Input.dispatchMouseEvent", type=kind, x=point["x"], y=point["y"], button="left",
                            clickCount=0 if kind == "mouseMoved" else 1)

    def backspace(self):
        for kind in ("rawKeyDown", "keyUp"):
            self.tools.call("Input.dispatchKeyEvent", type=kind, key="Backspace", code="Backspace",
                            windowsVirtualKeyCode=8, nativeVirtualKeyCode=8)

    def type(self, selector, text):
        """Clicks into the field, selects what it holds and types text over it (an empty text: Backspace)."""
        self.click(selector)
        self.run("(selector) => document.querySelector(selector).select()", selector)
        if text:
            self.tools.call("Input.insertText", text=text)
        else:
            self.backspace()

    def mark(self):
        """Marks the document as left behind; returns how many navigations were seen so far."""
        self.tools.evaluate("window.__flintOld = true")
        return len(self.navigations)

    def external_navigation(self, since, what):
        """The first non-http(s) URL the main frame started navigating to after `since`, and the one the renderer
        requested, as {"url", "requestedUrl"}."""

        def attempted(event):
            return next((n["url"] for n in self.navigations[since:]
                         if n["event"] == event and n["frame"] == self.main_frame
                         and not n["url"].startswith(("http:", "https:"))), None)

        def started():
            self.tools.try_evaluate("0")  # lets the events that arrived meanwhile in
            return attempted("frameStartedNavigating")

        url = wait(started, what)
        return {"url": url, "requestedUrl": attempted("frameRequestedNavigation")}

    def take_log(self, since):
        """Removes and returns the log entries recorded after index `since` (a probe's, kept apart)."""
        taken = self.tools.log[since:]
        del self.tools.log[since:]
        return taken

    def close(self):
        try:
            self.tools.socket.close()
        except Exception:  # noqa: BLE001: already gone with its page
            pass


class Browser:
    """Chromium beyond its first tab: the targets the driver attaches to (the popup, the iframe page) and the tabs it
    opens, each a Tab whose log joins the output's, closed (and the opened tabs' pages too) by close_all."""

    def __init__(self, main, dialogs):
        self.main = main
        self.dialogs = dialogs
        self.port = main.tools.socket.sock.getpeername()[1]  # the DevTools HTTP endpoint: /json/list, /json/new
        self.tabs = []  # (Tab, target id to close, or None)

    def _endpoint(self, path, method="GET"):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method)
        with urllib.request.urlopen(request, timeout=devtools.remaining()) as reply:
            return json.load(reply) if path.startswith(("/json/list", "/json/new")) else reply.read()

    def _connect(self, target, name, owned):
        tools = devtools.DevTools(target["webSocketDebuggerUrl"])
        try:
            for domain in ("Runtime", "Log", "Page"):
                tools.call(domain + ".enable")  # Log and Runtime replay what the target logged before
            tab = Tab(name, tools, self.dialogs)
        except BaseException:
            tools.socket.close()
            if owned:
                self._close_target(target["id"])
            raise
        self.tabs.append((tab, target["id"] if owned else None))
        return tab

    def _close_target(self, target):
        try:
            self._endpoint("/json/close/" + target)
        except (OSError, devtools.Timeout):
            pass

    def attach(self, matches, what, name):
        """The first target whose /json/list entry `matches`, as a Tab."""
        target = wait(lambda: next((t for t in self._endpoint("/json/list") if matches(t)), None), what)
        return self._connect(target, name, owned=False)

    def new_tab(self, name):
        """A new tab on about:blank."""
        return self._connect(self._endpoint("/json/new?about:blank", method="PUT"), name, owned=True)

    def logs(self):
        return [f"[{tab.name}] {entry}" for tab, _ in self.tabs for entry in tab.log]

    def close_all(self):
        for tab, target in self.tabs:
            tab.close()
            if target:
                self._close_target(target)


class Scenario:
    """The steps, each recording what it sees in `observed` as soon as it sees it."""

    def __init__(self, browser, base, api_key):
        self.browser = browser
        self.page = browser.main
        self.base = base
        self.api_key = api_key
        self.storage_key = f"firebase:redirectEvent:{api_key}:{APP_NAME}"
        self.frame_url = base + IFRAME + "?" + urllib.parse.urlencode({"apiKey": api_key, "appName": APP_NAME})
        # The test's own pages: the popup's opener and the framing page.
        self.pages = Pages({
            "/opener.html": OPENER_PAGE % {"frame": self.frame_url, "handler": json.dumps(self.popup_url())},
            "/frames.html": FRAMES_PAGE % {"chooser": self.chooser_url(authType="signInViaPopup", appName=APP_NAME),
                                           "frame": self.frame_url},
        })

    def steps(self):
        return [("redirect", self.redirect), ("newAccount", self.new_account), ("ios", self.ios),
                ("iosCancel", self.ios_cancel), ("android", self.android), ("popup", self.popup),
                ("framing", self.framing), ("cspProbe", self.csp_probe)]

    def chooser_url(self, **parameters):
        query = {"apiKey": self.api_key, "providerId": "google.com", **parameters}
        return self.base + HANDLER + "?" + urllib.parse.urlencode(query)

    def redirect_chooser_url(self, event_id):
        return self.chooser_url(authType="signInViaRedirect", appName=APP_NAME, redirectUrl=self.frame_url,
                                eventId=event_id)

    def wait_landing(self, what):
        """Waits for the redirect to the iframe page; its URL and the event the chooser left in sessionStorage."""

        def landed():
            state = self.page.run(LANDED, self.storage_key, tolerant=True)
            if state and not state["old"] and state["ready"] == "complete" and state["url"] == self.frame_url:
                return state
            return None

        state = wait(landed, what)
        return {"url": state["url"], "event": json.loads(state["stored"]) if state["stored"] else None}

    # 1. The redirect shape.
    def redirect(self, step):
        page = self.page
        chooser = page.open_chooser(self.redirect_chooser_url("R1"), "the chooser (redirect)")
        step["chooser"] = chooser
        if not chooser["accounts"]:
            raise ScenarioError("the chooser lists no account")
        step["clicked"] = chooser["accounts"][0]["claims"]
        page.mark()
        page.click(".js-reuse-account")
        step.update(self.wait_landing("the redirect to " + self.frame_url))

    # 2. Adding an account: the form's checks as the email is typed, Back, auto-generate, then a typed account.
    def new_account(self, step):
        page = self.page
        page.open_chooser(self.redirect_chooser_url("R2"), "the chooser (new account)")
        page.click(".js-new-account button")
        step["opened"] = wait(lambda: (lambda form: form if form["formVisible"] else None)(page.run(FORM)),
                              "the add-account form")
        page.type("#email-input", "a")
        step["typedA"] = page.run(FORM)
        page.type("#email-input", "")
        step["cleared"] = page.run(FORM)
        page.click("#back-button")
        step["back"] = page.run(FORM)
        page.click(".js-new-account button")
        page.click("#autogen-button")
        step["autogenerated"] = page.run(FORM)
        page.type("#email-input", "grace.hopper@example.com")
        page.type("#display-name-input", "Grace Hopper")
        page.type("#screen-name-input", "amazing_grace")
        page.type("#sub-input", "grace-sub-1906")
        step["filled"] = page.run(FORM)
        page.mark()
        page.click("#sign-in")
        step.update(self.wait_landing("the redirect after adding an account"))

    # 3. iOS: the deep link, then the cancelled one; 4. Android: the intent.
    def app_link(self, step, name, url, selector):
        """Opens the chooser in a tab of its own (see the module's doc), clicks, and records the app URL the tab then
        tries to open."""
        tab = self.browser.new_tab(name)
        chooser = tab.open_chooser(url, f"the chooser ({name})")
        if selector == ".js-reuse-account":
            step["clicked"] = chooser["accounts"][0]["claims"] if chooser["accounts"] else None
        since = tab.mark()
        tab.click(selector)
        step.update(tab.external_navigation(since, f"the app URL ({name})"))

    IOS = {"authType": "signInWithRedirect", "ibi": "com.example.app", "clientId": "123-abc.apps.googleusercontent.com"}

    def ios(self, step):
        self.app_link(step, "ios", self.chooser_url(eventId="E1", **self.IOS), ".js-reuse-account")

    def ios_cancel(self, step):
        self.app_link(step, "iosCancel", self.chooser_url(eventId="E2", **self.IOS), "#cancel-button")

    def android(self, step):
        url = self.chooser_url(authType="signInWithRedirect", apn="com.example.app", eventId="A1")
        self.app_link(step, "android", url, ".js-reuse-account")

    # 5. The popup: the opener (localhost) frames the iframe page (127.0.0.1) and opens the chooser.
    def popup_url(self):
        return self.chooser_url(authType="signInViaPopup", appName=APP_NAME, eventId="P1")

    def popup(self, step):
        page, browser = self.page, self.browser
        popup_url = self.popup_url()
        page.open(self.pages.url("localhost", "/opener.html"),
                  lambda _: page.tools.try_evaluate("window.__frameLoaded"), "the opener page and its frame")
        page.click("#open")
        step["opened"] = page.tools.evaluate("window.__popupOpened === true")
        popup = browser.attach(lambda t: t.get("type") == "page" and t.get("url") == popup_url, "the popup", "popup")

        def popup_ready():
            state = popup.run(CHOOSER, tolerant=True)
            return state if state and state["ready"] == "complete" and state.get("accounts") else None

        chooser = wait(popup_ready, "the chooser in the popup")
        step["accounts"] = len(chooser["accounts"])
        step["hasOpener"] = popup.tools.evaluate("!!window.opener")
        step["clicked"] = chooser["accounts"][0]["claims"]
        popup.click(".js-reuse-account")
        step["messages"] = wait(lambda: page.tools.evaluate("window.__messages.length ? window.__messages : null"),
                                "the opener to receive the auth event")
        frame = browser.attach(lambda t: t.get("type") == "iframe" and t.get("url") == self.frame_url,
                               "the iframe page's target", "frame")
        stored = frame.run("(key) => sessionStorage.getItem(key)", self.storage_key)
        step["frameStored"] = json.loads(stored) if stored else None
        step["frameAncestors"] = frame.tools.evaluate("Array.from(location.ancestorOrigins)")

    # 6. Framing: the chooser never, the iframe page only under an authorized domain.
    def framing(self, step):
        page = self.page
        for host, expected in (("localhost", 1), (UNAUTHORIZED_HOST, 2)):
            since = len(page.log)
            try:
                page.open(self.pages.url(host, "/frames.html"),
                          lambda _: page.tools.try_evaluate("window.__loaded === 2"), f"the framing page on {host}")
                wait(lambda: sum("frame-ancestors" in entry for entry in page.log[since:]) >= expected,
                     f"the framing violations on {host}")
            finally:
                step[host] = page.take_log(since)

    # 7. The log would show a violation: an inline script in the chooser is refused, and reported.
    def csp_probe(self, step):
        page = self.page
        page.open_chooser(self.redirect_chooser_url("C1"), "the chooser (CSP probe)")
        since = len(page.log)
        try:
            step["ran"] = page.tools.evaluate(
                "(() => { const s = document.createElement('script'); s.textContent = 'window.__probe = true';"
                " document.body.appendChild(s); return window.__probe === true; })()")
            wait(lambda: any("Content Security Policy" in entry for entry in page.log[since:]),
                 "the probe's CSP report")
        finally:
            step["log"] = page.take_log(since)


def run_steps(scenario, observed):
    """Runs every step; one that fails is recorded in observed["errors"] and the next one still runs (each opens its
    pages afresh). The overall deadline and SIGTERM still end the run."""
    for name, step in scenario.steps():
        observed[name] = {}
        try:
            step(observed[name])
        except devtools.Timeout as error:
            observed["errors"][name] = f"Timeout: {error}"
            devtools.remaining()  # past the overall deadline: the run ends here
        except Exception as error:  # noqa: BLE001: whatever stopped the step, the next one may still run
            observed["errors"][name] = f"{type(error).__name__}: {error}"


def main():
    observed = {"redirect": None, "newAccount": None, "ios": None, "iosCancel": None, "android": None, "popup": None,
                "framing": None, "cspProbe": None, "errors": {}, "dialogs": [], "log": []}
    devtools.exit_on_sigterm()
    main_log, extra_logs = [], []
    scenario = None
    try:
        missing = [name for name in ("FLINT_CHROMIUM", "FLINT_URL", "FLINT_API_KEY") if not os.environ.get(name)]
        if missing:
            raise RuntimeError("missing environment: " + ", ".join(missing))
        devtools.set_deadline(float(os.environ.get("FLINT_TIMEOUT", "60")))
        with devtools.launch(os.environ["FLINT_CHROMIUM"]) as tools:
            main_log = tools.log  # the same list: it keeps filling
            tools.call("Emulation.setDeviceMetricsOverride", width=1024, height=900, deviceScaleFactor=1, mobile=False)
            browser = Browser(Tab("main", tools, observed["dialogs"]), observed["dialogs"])
            try:
                scenario = Scenario(browser, os.environ["FLINT_URL"].rstrip("/"), os.environ["FLINT_API_KEY"])
                run_steps(scenario, observed)
            finally:
                extra_logs = browser.logs()
                browser.close_all()
        return 0
    except SystemExit:
        print("terminated (SIGTERM); chromium was stopped", file=sys.stderr)
        raise
    except Exception as error:  # noqa: BLE001: whatever stopped the run, report it and what was seen before
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        return 2
    finally:
        if scenario:
            scenario.pages.close()
        observed["log"] = [f"[main] {entry}" for entry in main_log] + extra_logs
        print(json.dumps(observed))


if __name__ == "__main__":
    sys.exit(main())
