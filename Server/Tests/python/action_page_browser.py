"""Drives Debian's headless Chromium through the hosted password-reset page over the DevTools protocol.

Environment:
  FLINT_CHROMIUM     the chromium executable
  FLINT_PAGE_URL     the /__/auth/action?mode=resetPassword&... page
  FLINT_SUBMISSIONS  JSON list of steps: [newPassword, confirmation] pairs to submit in the reset form, or the
                     id of a button to click ("send-reset")
  FLINT_TIMEOUT      overall deadline in seconds (default 45)

Starts chromium in a fresh profile (devtools.launch, shared with the other browser drivers here), opens the
page, waits (polling the DOM, bounded) until the page's data-flint-state says it is waiting for input, done or
failed, then for each step sets both fields and clicks Save (or clicks the button) and waits for the
outcome. Prints one JSON object:
  {"initial": state, "submissions": [state, ...], "log": [console/security messages]}
where a state is {"state", "status", "error", "formVisible", "continueVisible", "continueHref", "lang", "title"}.
Exit status: 0 when the run completed (the caller judges the states), 2 on a setup failure or timeout.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devtools  # noqa: E402  (this directory's DevTools plumbing)
from devtools import Timeout, poll  # noqa: E402


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
    devtools.set_deadline(float(os.environ.get("FLINT_TIMEOUT", "45")))
    devtools.exit_on_sigterm()
    try:
        with devtools.launch(chromium) as tools:
            tools.navigate(page_url)

            def loaded():
                state = tools.try_evaluate(STATE)  # None while the navigation changes the execution context
                return settled(state) if state else None

            initial = poll(loaded, "the page to be ready")
            results = []
            for action in submissions:
                state = step(tools, action)
                results.append(state)
                if state["state"] == "done":
                    break
            print(json.dumps({"initial": initial, "submissions": results, "log": tools.log}))
        return 0
    except Timeout as error:  # its message ends with chromium's log
        print(error, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
