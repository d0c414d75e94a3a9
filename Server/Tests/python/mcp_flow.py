"""The official MCP Python SDK (PyPI `mcp`) signing a user in through Flint, end to end: its OAuth client against an
MCP server built with the same SDK and protected by Flint's access tokens, the user on Flint's own hosted page in
Debian's headless Chromium.

Two MCP servers (MCPServer, streamable HTTP, on 127.0.0.1 ephemeral ports) are registered as Flint resources (RFC 8707)
through the admin API: `tools` (scope tools:call) and `files` (scope files:read). Each is an SDK resource server
(AuthSettings: Flint's issuer, its own URL, its scope) whose TokenVerifier checks Flint's RS256 JWT access tokens with
PyJWT against Flint's JWKS: `typ: at+jwt`, `iss` Flint's issuer, `aud` containing its own URL, `exp`. Its tool
`whoami` answers the token's `sub`, `client_id`, `scope` and `aud`.

The SDK's client (OAuthClientProvider in an httpx2 client, streamable_http_client, Client in the initialize handshake)
is configured with nothing but the MCP server's URL, a client name and a loopback redirect URI: it gets the 401, reads
the protected resource metadata (RFC 9728) it names, then Flint's metadata (RFC 8414), and gets a client:
- FLINT_MODE=dcr: through dynamic registration (RFC 7591) at the registration endpoint the metadata names;
- FLINT_MODE=cimd: as a Client ID Metadata Document, an https URL on 127.0.0.1 served here (ssl, FLINT_TLS_CERT and
  FLINT_TLS_KEY, a certificate Flint trusts) that Flint fetches;
its redirect handler opens the authorization URL in Chromium, where the user signs up on Flint's page and allows on
the consent page (which names the client, and for a document its host); the browser lands on a loopback callback
server here, whose code, state and iss the callback handler hands back; the SDK exchanges the code (PKCE, resource),
and `initialize`, `list_tools` and `call_tool("whoami")` go through with the token.

Then the other resource: the same client (its registration reused), a second authorization for `files` (single
sign-on: straight to the consent page for files:read), whose token `files` takes and `tools` refuses with a 401
(its TokenVerifier: the audience is not its URL), and the other way round; a refresh of the `tools` token asking for
`files` is refused (invalid_target: a refresh never widens).

Run by FlintServerTests.MCPClientTests (through BrowserDriver) with FLINT_CHROMIUM, FLINT_TIMEOUT, FLINT_URL,
FLINT_PROJECT, FLINT_KEY_FILE (a service-account key file whose admin API registers the resources) and FLINT_MODE.
Every wait is bounded by FLINT_TIMEOUT. Prints one JSON object: `checks` passed (in order), `requests` (what the SDK's
HTTP client sent, with the answers' statuses), `navigations`, the browser's log, `whoami`, `client_id`, and `error`
(with `last_url`) on the first failed check.
"""

import asyncio
import json
import logging
import os
import queue
import socket
import ssl
import sys
import threading
import time
import uuid
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

try:
    import anyio
    import httpx2
    import jwt
    import requests
    import uvicorn
    from mcp.client import Client
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.server.auth.middleware.auth_context import get_access_token
    from mcp.server.auth.provider import AccessToken
    from mcp.server.auth.settings import AuthSettings
    from mcp.server.mcpserver import MCPServer
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

    from oauth_checks import TIMEOUT, admin_session, check
except ImportError as missing:
    print(f"{missing}: the PyPI package mcp (and PyJWT, google-auth, authlib) is missing: "
          "pip install -r Server/Tests/python/requirements.txt", file=sys.stderr)
    sys.exit(3)

import devtools

base = os.environ["FLINT_URL"].rstrip("/")
project = os.environ["FLINT_PROJECT"]
key_file = os.environ["FLINT_KEY_FILE"]
mode = os.environ.get("FLINT_MODE", "dcr")
issuer = f"{base}/{project}"
client_name = "MCP SDK agent"
password = "mcp-sdk-browser-7"


def listening_socket():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock


# ---------------------------------------------------------------------------------------------------------------
# The resource servers

class FlintTokenVerifier:
    """The SDK's TokenVerifier for one resource: Flint's RFC 9068 JWT, checked with PyJWT against Flint's JWKS."""

    def __init__(self, resource, jwks_uri, refusals):
        self.resource = resource
        self.keys = jwt.PyJWKClient(jwks_uri, cache_keys=True, timeout=TIMEOUT)
        self.refusals = refusals

    async def verify_token(self, token):
        try:
            header = jwt.get_unverified_header(token)
            if str(header.get("typ", "")).lower() not in ("at+jwt", "application/at+jwt"):
                raise jwt.InvalidTokenError(f"typ is {header.get('typ')!r}, not at+jwt")
            key = await asyncio.to_thread(self.keys.get_signing_key_from_jwt, token)
            claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=self.resource, issuer=issuer,
                                options={"require": ["exp", "iat", "iss", "aud", "sub"]}, leeway=5)
        except jwt.PyJWTError as error:
            self.refusals.append({"resource": self.resource, "reason": f"{type(error).__name__}: {error}"})
            return None
        audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
        return AccessToken(token=token, client_id=claims.get("client_id", ""), scopes=claims.get("scope", "").split(),
                           expires_at=int(claims["exp"]), resource=self.resource if self.resource in audiences else None,
                           subject=claims["sub"], claims=claims)


def resource_server(name, resource, scopes, jwks_uri, refusals):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = MCPServer(
            name=name, token_verifier=FlintTokenVerifier(resource, jwks_uri, refusals),
            auth=AuthSettings(issuer_url=issuer, resource_server_url=resource, required_scopes=scopes,
                              validate_token_resource=True))

    @server.tool()
    def whoami() -> dict:
        """Who the bearer token is for."""
        token = get_access_token()
        claims = (token.claims or {}) if token else {}
        return {"server": name, "sub": claims.get("sub"), "client_id": claims.get("client_id"),
                "scope": claims.get("scope"), "aud": claims.get("aud")}

    return server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")


class ResourceServers:
    """Both MCP servers in one uvicorn event loop on a thread of their own, stopped by `stop`."""

    def __init__(self, apps):
        self.servers = [(uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")), sock)
                        for app, sock in apps]
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.failure = None

    def _run(self):
        async def both():
            await asyncio.gather(*(server.serve(sockets=[sock]) for server, sock in self.servers))
        try:
            asyncio.run(both())
        except BaseException as error:  # reported by start/stop
            self.failure = error

    def start(self):
        self.thread.start()
        devtools.poll(lambda: self.failure or all(server.started for server, _ in self.servers), "the MCP servers")
        if self.failure:
            raise RuntimeError(f"the MCP servers did not start: {self.failure!r}")

    def stop(self):
        for server, _ in self.servers:
            server.should_exit = True
        self.thread.join(timeout=10)


# ---------------------------------------------------------------------------------------------------------------
# Loopback HTTP: the redirect URI, and the client ID metadata document

class Loopback:
    """A threaded HTTP(S) server on 127.0.0.1; `routes` maps a path to a function of the query returning
    (status, content type, body), sent with `cache_control`. Every request is recorded in `hits`."""

    def __init__(self, routes, tls=None, cache_control="no-store"):
        hits = self.hits = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                parts = urlsplit(self.path)
                hits.append({"path": parts.path, "query": parts.query, "agent": self.headers.get("User-Agent"),
                             "accept": self.headers.get("Accept")})
                route = routes.get(parts.path)
                status, kind, body = route(parse_qs(parts.query)) if route else (404, "text/plain", b"not found")
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", cache_control)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class MemoryStorage:
    """The SDK's TokenStorage, in memory."""

    def __init__(self, client_info=None):
        self.tokens = None
        self.client_info = client_info

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


# ---------------------------------------------------------------------------------------------------------------
# The run

def main(result):
    devtools.set_deadline(float(os.environ["FLINT_TIMEOUT"]))
    devtools.exit_on_sigterm()
    for name in ("mcp", "httpx", "httpx2", "uvicorn"):
        logging.getLogger(name).setLevel(logging.WARNING)
    stops = []
    try:
        scenario(result, stops)
    finally:
        for stop in reversed(stops):
            try:
                stop()
            except Exception:
                pass


def scenario(result, stops):
    def ok(message):
        result["checks"].append(message)

    metadata = requests.get(f"{base}/.well-known/oauth-authorization-server/{project}", timeout=TIMEOUT).json()
    jwks_uri = metadata["jwks_uri"]

    # The loopback redirect URI, whose query the callback handler hands back.
    callbacks = queue.Queue()

    def landed(query):
        callbacks.put({key: values[0] for key, values in query.items()})
        return 200, "text/html; charset=utf-8", b"<!doctype html><title>Signed in</title><p>You may close this window."

    callback_server = Loopback({"/callback": landed})
    stops.append(callback_server.stop)
    redirect_uri = f"http://127.0.0.1:{callback_server.port}/callback"

    # The client ID metadata document, over https on loopback.
    client_metadata_url = None
    document_server = None
    if mode == "cimd":
        document = {}

        def serve_document(_):
            return 200, "application/json", json.dumps(document).encode()

        document_server = Loopback({"/mcp-agent/client.json": serve_document},
                                   tls=(os.environ["FLINT_TLS_CERT"], os.environ["FLINT_TLS_KEY"]),
                                   cache_control="public, max-age=300")
        stops.append(document_server.stop)
        client_metadata_url = f"https://127.0.0.1:{document_server.port}/mcp-agent/client.json"
        document.update({
            "client_id": client_metadata_url, "client_name": client_name, "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        })

    # The two resources, registered through the admin API, then served.
    sockets = {name: listening_socket() for name in ("tools", "files")}
    urls = {name: f"http://127.0.0.1:{sock.getsockname()[1]}/mcp" for name, sock in sockets.items()}
    scopes = {"tools": ["tools:call"], "files": ["files:read"]}
    admin = admin_session(key_file)
    for name, display in (("tools", "MCP tools"), ("files", "MCP files")):
        response = admin.post(f"{base}/v2/projects/{project}/oauthResources", timeout=TIMEOUT, json={
            "resource": urls[name], "displayName": display, "scopes": scopes[name]})
        check(response.status_code == 200, f"the admin API did not register the {name} resource",
              (response.status_code, response.text))
    result["resources"] = urls
    ok(f"admin API registered the resources {urls['tools']} and {urls['files']}")

    refusals = result["refusals"]
    servers = ResourceServers([(resource_server(name, urls[name], scopes[name], jwks_uri, refusals), sockets[name])
                               for name in ("tools", "files")])
    servers.start()
    stops.append(servers.stop)

    # Without a token: the SDK server's 401 names its protected resource metadata, which names Flint.
    answer = requests.post(urls["tools"], timeout=TIMEOUT, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                           headers={"Accept": "application/json, text/event-stream"})
    challenge = answer.headers.get("WWW-Authenticate", "")
    check(answer.status_code == 401 and "resource_metadata=" in challenge, "no 401 naming the resource metadata",
          (answer.status_code, challenge))
    prm_url = challenge.split('resource_metadata="', 1)[1].split('"', 1)[0]
    prm = requests.get(prm_url, timeout=TIMEOUT).json()
    check(prm.get("resource") == urls["tools"] and prm.get("authorization_servers") == [issuer],
          "the protected resource metadata names another resource or authorization server", prm)
    ok("the MCP server's 401 names its resource metadata, which names Flint's issuer")

    email = f"mcp-sdk-{uuid.uuid4().hex[:10]}@example.com"
    seen = {"signed_up": False}
    with devtools.launch(os.environ["FLINT_CHROMIUM"]) as tools:
        result["tools"] = tools
        devtools.record_navigations(tools, result["navigations"])
        browser_lock = threading.Lock()
        browser = devtools.Page(tools, devtools.SIGN_IN_AND_CONSENT, result, "last_url")
        poll, state = browser.poll, browser.state

        def drive(url, what):
            """The browser through Flint's pages to the redirect URI; returns the callback's query and the consent
            page's state."""
            check(url.startswith(issuer + "/authorize?"), f"{what}: the SDK's authorization URL is not Flint's", url)
            query = parse_qs(urlsplit(url).query)
            result["authorizations"].append({key: values[0] for key, values in query.items()})
            while not callbacks.empty():
                callbacks.get_nowait()
            tools.call("Page.navigate", url=url)

            def where():
                current = state()
                if current and current["path"] in ("/__/oauth/signin", "/__/oauth/consent") \
                        and (current["open"] or current["consent"]):
                    return current
                return None
            current = poll(where, f"{what}: Flint's sign-in or consent page")
            if current["path"] == "/__/oauth/signin":
                check(not seen["signed_up"], f"{what}: Flint asked for a sign-in again", current)
                browser.sign_up(email, password)
                seen["signed_up"] = True
                ok(f"{what}: signed up {email} on Flint's page")
            consent = poll(lambda: (lambda s: s if s and s["path"] == "/__/oauth/consent" and "allow" in s["consent"]
                                    else None)(state()), f"{what}: the consent page")
            check(client_name in (consent["heading"] or ""), f"{what}: the consent page names another client", consent)
            check(email in (consent["account"] or ""), f"{what}: the consent page names another account", consent)
            if mode == "cimd":
                host = urlsplit(client_metadata_url).hostname
                check(host in consent["text"], f"{what}: the consent page does not show the document's host {host}",
                      consent["text"])
            result["consent_pages"].append({key: consent[key] for key in ("heading", "scopes", "text")})
            ok(f"{what}: the consent page names {client_name!r} and asks for {consent['scopes']}")
            tools.evaluate("document.querySelector('button[name=consent][value=allow]').click()")
            landed_query = devtools.poll(lambda: (state(), None)[1] if callbacks.empty() else callbacks.get_nowait(),
                                         f"{what}: the loopback redirect URI")
            ok(f"{what}: allowing sent the browser to the loopback redirect URI")
            return landed_query

        def provider(name, storage, what):
            codes = {}

            async def redirect_handler(url):
                def in_browser():
                    with browser_lock:
                        return drive(url, what)
                codes["query"] = await anyio.to_thread.run_sync(in_browser)

            async def callback_handler():
                query = codes.pop("query")
                check("code" in query and "state" in query, f"{what}: the redirect has no code or state", query)
                return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

            return OAuthClientProvider(
                server_url=urls[name],
                client_metadata=OAuthClientMetadata(client_name=client_name, redirect_uris=[redirect_uri],
                                                    token_endpoint_auth_method="none"),
                storage=storage, redirect_handler=redirect_handler, callback_handler=callback_handler,
                client_metadata_url=client_metadata_url)

        async def connect(name, storage, what):
            """The SDK's client against one MCP server: initialize, list_tools, call_tool("whoami")."""
            sent = []

            async def on_response(response):
                request = response.request
                sent.append({"method": request.method, "url": str(request.url).split("?")[0],
                             "status": response.status_code})

            auth = provider(name, storage, what)
            async with httpx2.AsyncClient(auth=auth, timeout=TIMEOUT, event_hooks={"response": [on_response]}) as http:
                async with Client(streamable_http_client(urls[name], http_client=http), mode="legacy",
                                  read_timeout_seconds=TIMEOUT) as client:
                    listed = await client.list_tools()
                    names = [tool.name for tool in listed.tools]
                    check("whoami" in names, f"{what}: list_tools has no whoami", names)
                    called = await client.call_tool("whoami", {})
                    check(not called.is_error, f"{what}: whoami failed", called.model_dump(mode="json"))
                    answer = called.structured_content
                    if answer is None:
                        answer = json.loads(called.content[0].text)
                    answer = answer.get("result", answer) if isinstance(answer, dict) else answer
            result["requests"][what] = sent
            return answer, storage, auth

        async def flows():
            # 1. The tools server: discovered from the 401, a client got (registered or a document), signed in.
            first, storage, auth = await connect("tools", MemoryStorage(), "tools")
            sent = result["requests"]["tools"]
            statuses = [(hop["method"], hop["url"], hop["status"]) for hop in sent]
            check(statuses[0] == ("POST", urls["tools"], 401), "the SDK's first request did not get the 401", statuses)
            check(("GET", prm_url, 200) in statuses, "the SDK did not read the protected resource metadata", statuses)
            check(any(m == "GET" and u.startswith(base + "/.well-known/") and project in u and s == 200
                      for m, u, s in statuses), "the SDK did not read Flint's metadata", statuses)
            registered = [hop for hop in statuses if hop[1] == issuer + "/register"]
            client_id = storage.client_info.client_id
            result["client_id"] = client_id
            if mode == "dcr":
                check(registered == [("POST", issuer + "/register", 201)], "the SDK did not register at Flint", statuses)
                check(client_id and not client_id.startswith("https://"), "the registered client's ID", client_id)
                ok(f"the SDK discovered Flint from the 401 and registered itself: client {client_id}")
            else:
                check(not registered, "the SDK registered instead of using its metadata document", statuses)
                check(client_id == client_metadata_url, "the SDK's client ID is not its document's URL", client_id)
                check(any(hit["path"] == "/mcp-agent/client.json" for hit in document_server.hits),
                      "Flint never fetched the client ID metadata document", document_server.hits)
                ok(f"the SDK discovered Flint from the 401 and used its metadata document {client_id}, which Flint fetched")
            check(("POST", issuer + "/token", 200) in statuses, "the SDK's code exchange failed", statuses)
            authorization = result["authorizations"][0]
            check(authorization.get("resource") == urls["tools"] and authorization.get("code_challenge_method") == "S256",
                  "the SDK's authorization asked for another resource or without PKCE", authorization)
            token = storage.tokens.access_token
            claims = jwt.decode(token, options={"verify_signature": False})
            check(claims.get("aud") in (urls["tools"], [urls["tools"]]) and claims.get("client_id") == client_id,
                  "the access token's audience or client", claims)
            check(first.get("sub") == claims["sub"] and first.get("server") == "tools"
                  and first.get("client_id") == client_id and "tools:call" in (first.get("scope") or "").split(),
                  "whoami answered another user, client or scope", first)
            result["whoami"] = first
            ok(f"initialize, list_tools and call_tool('whoami') went through the tools server: sub {first['sub']}")

            # 2. The files server, the same client: a second authorization (single sign-on, its own consent).
            reused = OAuthClientInformationFull.model_validate(storage.client_info.model_dump())
            second, other_storage, _ = await connect("files", MemoryStorage(reused), "files")
            check(other_storage.client_info.client_id == client_id, "the files flow used another client",
                  other_storage.client_info.client_id)
            check(not any(hop["url"] == issuer + "/register" for hop in result["requests"]["files"]),
                  "the files flow registered again", result["requests"]["files"])
            check(second.get("sub") == first["sub"] and second.get("server") == "files",
                  "the files server's whoami differs", second)
            ok("the same client got a token for the files server, which takes it")
            result["whoami_files"] = second

            # 3. Each token at the other server: a 401, the verifier refusing its audience.
            other_token = other_storage.tokens.access_token
            for token_value, at, what in ((other_token, "tools", "the files token"), (token, "files", "the tools token")):
                before = len(refusals)
                answer = requests.post(urls[at], timeout=TIMEOUT, json={
                    "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                        "protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "curl", "version": "1"}}},
                    headers={"Authorization": f"Bearer {token_value}",
                             "Accept": "application/json, text/event-stream"})
                check(answer.status_code == 401 and "invalid_token" in answer.headers.get("WWW-Authenticate", ""),
                      f"the {at} server took {what}", (answer.status_code, answer.headers.get("WWW-Authenticate"),
                                                        answer.text[:300]))
                check(any("Audience" in r["reason"] for r in refusals[before:]),
                      f"the {at} server refused {what} for another reason", refusals[before:])
                ok(f"the {at} server refused {what} with a 401 (its audience)")

            # 4. A refresh of the tools token asking for the files resource: refused, a refresh never widens.
            refresh_token = storage.tokens.refresh_token
            if refresh_token:
                answer = requests.post(issuer + "/token", timeout=TIMEOUT, data={
                    "grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id,
                    "resource": urls["files"]})
                check(answer.status_code == 400 and answer.json().get("error") == "invalid_target",
                      "a refresh for the other resource was not refused with invalid_target", (answer.status_code, answer.text))
                ok("a refresh of the tools token asking for the files resource is refused (invalid_target)")
            else:
                result["notes"].append("no refresh token was issued; the refresh check was skipped")

        async def bounded():
            with anyio.fail_after(devtools.remaining()):
                await flows()

        anyio.run(bounded)
        result["log"] = tools.log
    if document_server is not None:
        result["document_requests"] = document_server.hits


def run():
    result = {"checks": [], "navigations": [], "requests": {}, "refusals": [], "authorizations": [],
              "consent_pages": [], "notes": []}
    try:
        main(result)
    except BaseException as error:  # reported, for the test to show
        if isinstance(error, BaseExceptionGroup):
            error = flatten(error)
        result["error"] = f"{type(error).__name__}: {error}"
        if isinstance(error, SystemExit):
            json.dump(jsonable(result), sys.stdout)
            raise
    tools = result.pop("tools", None)
    if tools is not None:
        result["log"] = tools.log
    json.dump(jsonable(result), sys.stdout)


def flatten(group):
    """The first leaf of an exception group (anyio's task groups wrap what failed)."""
    while isinstance(group, BaseExceptionGroup) and group.exceptions:
        group = group.exceptions[0]
    return group


def jsonable(value):
    return json.loads(json.dumps(value, default=str))


if __name__ == "__main__":
    run()
