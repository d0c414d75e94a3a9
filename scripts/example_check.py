"""What the checks of the examples against a live production `flint serve` share (check_admin_example.py,
check_mcp_example.py): processes whose output is awaited line by line, a Flint server with a service-account key file
in a throwaway data directory, one HTTP call, and a check that prints `ok:` or ends the run with `FAILED:`.

Everything listens on 127.0.0.1, ports picked free; each process must start within DEADLINE seconds and each request
answer within TIMEOUT.
"""
import base64
import json
import os
import queue
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

DEADLINE = 60  # seconds any one process may take to start
TIMEOUT = 30  # seconds any one request may take


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def expect(condition, what):
    if not condition:
        raise SystemExit("FAILED: " + what)
    print("ok:", what)


def call(method, url, body=None, token=None, form=None, basic=None, accept=None):
    """(status, headers, body) of one request: a JSON `body`, or a `form`, with a bearer `token` or `basic` (id, secret)
    client authentication, and `accept` as the Accept header. A success's body is its JSON (None when empty); an error's
    is its JSON, or its text where it is none."""
    data, content_type = None, None
    if body is not None:
        data, content_type = json.dumps(body).encode(), "application/json"
    elif form is not None:
        data, content_type = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
    request = urllib.request.Request(url, data=data, method=method)
    if content_type:
        request.add_header("Content-Type", content_type)
    if accept:
        request.add_header("Accept", accept)
    if token:
        request.add_header("Authorization", "Bearer " + token)
    if basic:
        pair = urllib.parse.quote(basic[0], safe="") + ":" + urllib.parse.quote(basic[1], safe="")
        request.add_header("Authorization", "Basic " + base64.b64encode(pair.encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            text = response.read().decode()
            return response.status, response.headers, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        text = error.read().decode()
        try:
            return error.code, error.headers, json.loads(text) if text else None
        except ValueError:
            return error.code, error.headers, text


def start(arguments, **options):
    """A process whose output lines are read into a queue by a thread of their own, so waiting for one can time out."""
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **options)
    process.lines = queue.Queue()

    def read():
        for line in process.stdout:
            process.lines.put(line)
        process.lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return process


def wait_for_line(process, text):
    """The first line of the process's output that holds `text`, within DEADLINE seconds."""
    deadline = time.monotonic() + DEADLINE
    while True:
        try:
            line = process.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise SystemExit(f"{process.args[0]} did not say {text!r} within {DEADLINE} s")
        if line is None:
            raise SystemExit(f"{process.args[0]} exited before saying {text!r}")
        if text in line:
            return line


class Flint:
    """A production `flint serve` (the binary `flint`) on a free port, its data in a new temporary directory (named
    with `prefix`), and a service-account key file made with `flint service-accounts create`: `url`, `api_key`,
    `key_file`, `project`, and `common`, the options that name the server to the CLI. Every process started with
    `start` (the server among them) is stopped, and the directory removed, by `stop`."""

    def __init__(self, flint, prefix):
        self.data = tempfile.mkdtemp(prefix=prefix)
        self.processes = []
        try:
            port = free_port()
            self.url = f"http://127.0.0.1:{port}"
            self.common = ["--data-dir", self.data, "--public-url", self.url]
            server = self.start([flint, "serve", *self.common, "--port", str(port), "--management-port", "0"])
            wait_for_line(server, "Flint is listening")
            self.api_key = wait_for_line(server, "API key").split(":", 1)[1].split()[0]
            self.key_file = os.path.join(self.data, "admin-key.json")
            subprocess.run([flint, "service-accounts", "create", *self.common, self.key_file], check=True,
                           timeout=DEADLINE, stdout=subprocess.DEVNULL)
            with open(self.key_file) as file:
                self.project = json.load(file)["project_id"]
        except BaseException:
            self.stop()
            raise

    def start(self, arguments, **options):
        process = start(arguments, **options)
        self.processes.append(process)
        return process

    def stop(self):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self.data, ignore_errors=True)
