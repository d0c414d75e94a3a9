"""Chrome DevTools Protocol plumbing shared by the headless-Chromium drivers in this directory
(action_page_browser.py, console_browser.py, the OAuth and OpenID Connect drivers).

A driver sets one overall deadline (set_deadline), turns SIGTERM into a clean exit (exit_on_sigterm), launches
Debian's Chromium in a throwaway profile (`with launch(executable) as tools:`, a DevTools connection to its page)
and polls the page (poll, DevTools.evaluate) until it shows what the driver waits for; record_navigations lists the
document requests it makes. Every wait is bounded by the deadline: past it, Timeout is raised. Leaving the `with`
block, however it is left, kills chromium's whole process group and removes the profile. Page reads and drives one of
Flint's pages as a user would (its state, typing, the hosted sign-in page's sections and sign-up, the redirect URI).
"""

import base64
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

try:
    import websocket  # websocket-client
except ImportError:
    print("websocket-client is missing: pip install -r Server/Tests/python/requirements.txt", file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------------------------------------------------------
# The deadline

_deadline = None


class Timeout(Exception):
    """The overall deadline passed."""


def set_deadline(seconds):
    """Starts the clock: every wait from now on ends by `seconds` from now."""
    global _deadline
    _deadline = time.monotonic() + seconds


def _left():
    if _deadline is None:
        raise RuntimeError("devtools.set_deadline was not called")
    return _deadline - time.monotonic()


def remaining():
    """Seconds left before the deadline; raises Timeout once it has passed."""
    left = _left()
    if left <= 0:
        raise Timeout("deadline reached")
    return left


def poll(condition, what, interval=0.05):
    """Calls condition() until it returns something truthy, sleeping briefly between tries, until the deadline."""
    while True:
        value = condition()
        if value:
            return value
        if _left() <= 0:
            raise Timeout("timed out waiting for " + what)
        time.sleep(interval)


def exit_on_sigterm():
    """Makes SIGTERM (coreutils' timeout, the test's backstop) raise SystemExit(2), so that `finally` blocks, and
    with them launch's cleanup, still run: chromium is killed and the profile removed before the exit."""

    def stop(*_):
        raise SystemExit(2)

    signal.signal(signal.SIGTERM, stop)


# ---------------------------------------------------------------------------------------------------------------
# The protocol

class DevTools:
    """One WebSocket connection to a page target. Console messages, uncaught exceptions and log entries (security
    and CSP reports among them) that arrive while waiting for a reply are collected as text in `log`."""

    def __init__(self, url):
        self.socket = websocket.create_connection(url, timeout=remaining(), suppress_origin=True)
        self.next_id = 0
        self.log = []
        # When set, alert/confirm/prompt dialogs are accepted (and logged) instead of blocking the page.
        self.accept_dialogs = False

    def send(self, method, **params):
        """Sends a command without waiting for its reply (which `call` then skips); returns its id."""
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        return self.next_id

    def call(self, method, **params):
        """Sends a command and returns its result, recording the events that arrive meanwhile."""
        ident = self.send(method, **params)
        while True:
            self.socket.settimeout(remaining())
            try:
                message = json.loads(self.socket.recv())
            except websocket.WebSocketTimeoutException:
                raise Timeout(f"timed out waiting for chromium to answer {method}") from None
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.record(message)

    def record(self, event):
        method = event.get("method")
        params = event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            texts = [str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", [])]
            self.log.append(f"console.{params.get('type')}: {' '.join(texts)}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.log.append("exception: " + str(details.get("exception", {}).get("description", details.get("text"))))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            self.log.append(f"{entry.get('source')}/{entry.get('level')}: {entry.get('text')}")
        elif method == "Page.javascriptDialogOpening" and self.accept_dialogs:
            self.log.append(f"dialog {params.get('type')}: {params.get('message')} (accepted)")
            # Not awaited: this runs while another command's reply is awaited, and the dialog blocks that command.
            self.send("Page.handleJavaScriptDialog", accept=True)

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (promises awaited); RuntimeError if it throws or
        there is no execution context to run it in."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluating {expression!r}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def try_evaluate(self, expression):
        """evaluate, or None while a navigation has the execution context changing under it: for polling."""
        try:
            return self.evaluate(expression)
        except RuntimeError:
            return None

    def navigate(self, url):
        navigation = self.call("Page.navigate", url=url)
        if navigation.get("errorText"):
            raise RuntimeError(f"navigation failed: {navigation['errorText']}")

    def set_file_input(self, selector, paths):
        """Chooses files in the <input type=file> matching a CSS selector (as a user picking them would, change
        event included). Returns False when nothing matches."""
        root = self.call("DOM.getDocument", depth=0)["root"]["nodeId"]
        node = self.call("DOM.querySelector", nodeId=root, selector=selector).get("nodeId", 0)
        if not node:
            return False
        self.call("DOM.setFileInputFiles", files=[os.path.abspath(path) for path in paths], nodeId=node)
        return True

    def screenshot(self, path):
        """Saves the viewport as a PNG file."""
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(data))


def record_navigations(tools, into, types=("Document",)):
    """Appends every document request the browser makes from now on (or every request of `types`, DevTools' resource
    types: "Fetch" for a page's fetch calls) to the list `into`, a redirect's hops included: `{"url": …}`, with
    `"method"` unless it is GET and `"after"`: the status of the redirect that led there. Enables the Network domain;
    the events arrive while a command is awaited (tools.record, wrapped). Called again, it records into both lists."""
    record = tools.record

    def recording(event):
        if event.get("method") == "Network.requestWillBeSent":
            params = event.get("params", {})
            if params.get("type") in types:
                request = params.get("request", {})
                hop = {"url": request.get("url")}
                if request.get("method", "GET") != "GET":
                    hop["method"] = request.get("method")
                if "redirectResponse" in params:
                    hop["after"] = params["redirectResponse"].get("status")
                into.append(hop)
        record(event)

    tools.record = recording
    tools.call("Network.enable")


# ---------------------------------------------------------------------------------------------------------------
# Flint's pages

# What Flint's sign-in and consent pages show, for Page: the path, the open sections, the error, the consent form's
# buttons, its heading (the client), scopes and account, and the page's text.
SIGN_IN_AND_CONSENT = """(() => {
  const text = (id) => { const node = document.getElementById(id); return node ? node.textContent : null; };
  return {
    path: location.pathname,
    open: [...document.querySelectorAll('section')].filter((s) => !s.hidden).map((s) => s.id),
    error: text('error'),
    consent: [...document.querySelectorAll('button[name=consent]')].map((b) => b.value),
    heading: text('consent-heading'),
    scopes: [...document.querySelectorAll('#scopes li')].map((li) => li.textContent),
    account: text('account'),
    text: document.body ? document.body.innerText : '',
  };
})()"""


class Page:
    """Flint's pages in the browser of `tools`, as a driver reads and uses them. `state()` is the value of
    `expression` (SIGN_IN_AND_CONSENT, or a driver's own: an object with at least `path` and `open`, the ids of the
    sections not hidden) once the document is complete, None before it is or while a navigation replaces it; each call keeps the
    page's URL in seen[key] (the last one read, for a failure's report). `poll` is devtools.poll, but a Content
    Security Policy violation or an uncaught exception in the browser's log fails at once."""

    def __init__(self, tools, expression, seen, key="href"):
        self.tools, self.expression, self.seen, self.key = tools, expression, seen, key

    def poll(self, condition, what):
        def checked():
            for entry in self.tools.log:
                if "Content Security Policy" in entry or entry.startswith("exception:"):
                    raise RuntimeError(f"the page failed, waiting for {what}: {entry.strip()}")
            return condition()
        return poll(checked, what)

    def state(self):
        value = self.tools.try_evaluate("document.readyState === 'complete' ? " + self.expression + " : null")
        self.seen[self.key] = self.tools.try_evaluate("location.href") or self.seen.get(self.key)
        return value

    def wait(self, what, condition):
        """The page's state once condition(state) holds."""
        return self.poll(lambda: (lambda s: s if s and condition(s) else None)(self.state()), what)

    def type_into(self, field_id, text):
        """Focuses the field, clears it, and types `text` as a keyboard would (input events included); RuntimeError
        if the field then holds anything else."""
        self.tools.evaluate("(() => { const f = document.getElementById(%s); f.focus(); f.select(); })()"
                            % json.dumps(field_id))
        self.tools.call("Input.insertText", text=text)
        typed = self.tools.evaluate("document.getElementById(%s).value" % json.dumps(field_id))
        if typed != text:
            raise RuntimeError(f"#{field_id} holds {typed!r} after typing {text!r}")

    def click(self, button_id):
        self.tools.evaluate("document.getElementById(%s).click()" % json.dumps(button_id))

    def open_section(self, name):
        """On Flint's hosted sign-in page, the button that shows the section `name`; the state once it alone is open."""
        self.tools.evaluate("document.querySelector('[data-show=%s]').click()" % name)
        return self.wait(f"the {name} section", lambda s: s["path"] == "/__/oauth/signin" and s["open"] == [name])

    def sign_up(self, email, password):
        """On Flint's hosted sign-in page: the sign-up section, #new-email, #new-password and #sign-up-button (what
        follows the click is the caller's to wait for)."""
        self.open_section("sign-up")
        self.type_into("new-email", email)
        self.type_into("new-password", password)
        self.click("sign-up-button")

    def redirect(self, navigations, after, redirect_uri):
        """The first request for `redirect_uri` (with a query) among the `navigations` (record_navigations' list)
        after the first `after`, waited for; reading the state pumps DevTools' events meanwhile."""
        def find():
            self.state()
            for hop in navigations[after:]:
                if hop["url"].startswith(redirect_uri + "?"):
                    return hop["url"]
            return None
        return self.poll(find, "the redirect URI")


# ---------------------------------------------------------------------------------------------------------------
# The browser

CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0", "--remote-allow-origins=*",
]


@contextlib.contextmanager
def launch(executable):
    """Starts headless chromium on about:blank in a fresh profile and yields a DevTools connection to its page,
    with the Runtime, Log and Page domains enabled (so `tools.log` fills). A Timeout raised inside, or while
    starting, leaves with the end of chromium's own log appended to its message. On exit, by any route, kills
    chromium's process group (its helpers too, even if the main process already exited) and removes the profile."""
    profile = tempfile.mkdtemp(prefix="flint-chromium-cdp-")
    stderr_path = os.path.join(profile, "stderr.txt")
    browser = None
    try:
        with open(stderr_path, "w") as stderr:
            browser = subprocess.Popen(
                [executable, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                # TMPDIR too: chromium's singleton socket directory, which SIGKILL leaves behind, goes with the profile.
                env=dict(os.environ, HOME=profile, TMPDIR=profile), start_new_session=True)

        # Chromium writes the port it picked, then the browser target's path, once it listens.
        port_file = os.path.join(profile, "DevToolsActivePort")

        def read_port():
            if browser.poll() is not None:
                raise RuntimeError(f"chromium exited with status {browser.returncode}")
            try:
                with open(port_file) as handle:
                    lines = handle.read().split("\n")
                return int(lines[0]) if len(lines) >= 2 and lines[0].strip() else None
            except (FileNotFoundError, ValueError):
                return None

        port = poll(read_port, "DevToolsActivePort")

        def page_target():
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=remaining()) as reply:
                targets = json.load(reply)
            return next((t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page"), None)

        tools = DevTools(poll(page_target, "a page target"))
        for domain in ("Runtime", "Log", "Page"):
            tools.call(domain + ".enable")
        yield tools
    except Timeout as error:
        log = open(stderr_path).read()[-2000:] if os.path.exists(stderr_path) else ""
        raise Timeout(f"{error}; chromium's log ends:\n{log}") from None
    finally:
        if browser is not None:
            # The whole session: chromium and its helpers, even if the main process already exited.
            try:
                os.killpg(browser.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                browser.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(profile, ignore_errors=True)
