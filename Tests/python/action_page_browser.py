"""Drives Debian's headless Chromium through the hosted password-reset page over the DevTools protocol.

Environment:
  FLINT_CHROMIUM     the chromium executable
  FLINT_PAGE_URL     the /__/auth/action?mode=resetPassword&... page
  FLINT_SUBMISSIONS  JSON list of steps: [newPassword, confirmation] pairs to submit in the reset form, or the
                     id of a button to click ("send-reset")
  FLINT_TIMEOUT      overall deadline in seconds (default 45)

Starts chromium with --remote-debugging-port=0, reads the port from DevToolsActivePort in a fresh profile,
opens the page, waits (polling the DOM, bounded) until the page's data-flint-state says it is waiting for input,
done or failed, then for each step sets both fields and clicks Save (or clicks the button) and waits for the
outcome. Prints one JSON object:
  {"initial": state, "submissions": [state, ...], "log": [console/security messages]}
where a state is {"state", "status", "error", "formVisible", "continueVisible", "continueHref", "lang", "title"}.
Exit status: 0 when the run completed (the caller judges the states), 2 on a setup failure or timeout.
"""

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
    print("websocket-client is missing: pip install -r Tests/python/requirements.txt", file=sys.stderr)
    sys.exit(2)

DEADLINE = time.monotonic() + float(os.environ.get("FLINT_TIMEOUT", "45"))


class Timeout(Exception):
    pass


def remaining():
    left = DEADLINE - time.monotonic()
    if left <= 0:
        raise Timeout("deadline reached")
    return left


def poll(condition, what, interval=0.05):
    """Calls condition() until it returns something truthy, sleeping briefly between tries, until the deadline."""
    while True:
        value = condition()
        if value:
            return value
        if DEADLINE - time.monotonic() <= 0:
            raise Timeout("timed out waiting for " + what)
        time.sleep(interval)


class DevTools:
    def __init__(self, url):
        self.socket = websocket.create_connection(url, timeout=remaining(), suppress_origin=True)
        self.next_id = 0
        self.log = []

    def call(self, method, **params):
        self.next_id += 1
        ident = self.next_id
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            self.socket.settimeout(remaining())
            message = json.loads(self.socket.recv())
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

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluating {expression!r}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")


STATE = """(() => {
  const byId = (id) => document.getElementById(id);
  const visible = (element) => !!element && !element.hidden;
  const link = byId('continue');
  return {
    ready: document.readyState,
    state: document.documentElement.dataset.flintState || null,
    status: byId('status') ? byId('status').textContent : null,
    error: visible(byId('error')) ? byId('error').textContent : null,
    formVisible: visible(byId('reset-form')),
    saveDisabled: byId('save') ? byId('save').disabled : null,
    continueVisible: visible(link),
    continueHref: link ? link.href : null,
    lang: document.documentElement.lang,
    title: document.title,
  };
})()"""


def settled(state):
    return state if state["ready"] == "complete" and state["state"] in ("form", "done", "error") else None


def step(tools, action):
    """Fills and submits the reset form ([password, confirmation]) or clicks a button (its id), then waits
    until the page is no longer busy."""
    if isinstance(action, str):
        tools.evaluate("document.getElementById(%s).click()" % json.dumps(action))
    else:
        first, second = action
        tools.evaluate(
            "(() => { document.getElementById('new-password').value = %s;"
            " document.getElementById('confirm-password').value = %s;"
            " document.getElementById('save').click(); })()" % (json.dumps(first), json.dumps(second)))
    return poll(lambda: settled(tools.evaluate(STATE)), "the outcome of " + json.dumps(action))


def main():
    chromium = os.environ["FLINT_CHROMIUM"]
    page_url = os.environ["FLINT_PAGE_URL"]
    submissions = json.loads(os.environ.get("FLINT_SUBMISSIONS", "[]"))
    profile = tempfile.mkdtemp(prefix="flint-chromium-cdp-")
    browser = None

    def stop(*_):
        raise SystemExit(2)

    signal.signal(signal.SIGTERM, stop)
    try:
        environment = dict(os.environ, HOME=profile)
        browser = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--remote-debugging-address=127.0.0.1",
             "--remote-debugging-port=0", "--remote-allow-origins=*", f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(os.path.join(profile, "stderr.txt"), "w"),
            env=environment, start_new_session=True)

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
        tools.call("Runtime.enable")
        tools.call("Log.enable")
        tools.call("Page.enable")
        navigation = tools.call("Page.navigate", url=page_url)
        if navigation.get("errorText"):
            raise RuntimeError(f"navigation failed: {navigation['errorText']}")

        def loaded():
            try:
                return settled(tools.evaluate(STATE))
            except RuntimeError:  # the execution context changed under the navigation
                return None

        initial = poll(loaded, "the page to be ready")
        results = []
        for action in submissions:
            state = step(tools, action)
            results.append(state)
            if state["state"] == "done":
                break
        print(json.dumps({"initial": initial, "submissions": results, "log": tools.log}))
        return 0
    except Timeout as error:
        log = open(os.path.join(profile, "stderr.txt")).read()[-2000:] if os.path.exists(profile) else ""
        print(f"{error}; chromium's log ends:\n{log}", file=sys.stderr)
        return 2
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


if __name__ == "__main__":
    sys.exit(main())
