#!/usr/bin/env python3
"""Runs Examples/MCPServer (an MCP-style resource server on FlintAdminHummingbird) against a live production
`flint serve` and checks it as an MCP client would find it: the 401's challenge leads to the protected-resource
metadata (RFC 9728), which names Flint's issuer, whose metadata (RFC 8414) gives the token endpoint; a machine
client's token (client credentials, RFC 8707's `resource`) calls the tools its scopes allow, and a missing scope is
403 `insufficient_scope` naming it; tokens for another resource, forged, of another kind or revoked are 401
`invalid_token`.

    check_mcp_example.py FLINT_BINARY MCP_SERVER_BINARY

The admin API is called with google-auth (firebase-admin's, from Server/Tests/python/requirements.txt). Everything
listens on 127.0.0.1, ports picked free; each process must start within example_check.DEADLINE seconds, each request
answer within its TIMEOUT, and the whole run ends within RUN_LIMIT.
"""
import base64
import json
import os
import signal
import sys
import time

import google.auth.transport.requests
from google.oauth2 import service_account

import example_check
from example_check import TIMEOUT, Flint, expect, free_port, wait_for_line

RUN_LIMIT = 240  # seconds the whole check may take


def call(method, url, body=None, token=None, form=None, basic=None):
    """example_check.call, accepting JSON or an event stream as an MCP client does."""
    return example_check.call(method, url, body, token=token, form=form, basic=basic,
                              accept="application/json, text/event-stream")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def claims_of(token):
    return json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))


def main():
    flint = Flint(sys.argv[1], "flint-mcp-example-")
    example = sys.argv[2]
    url, api_key, key_file, project = flint.url, flint.api_key, flint.key_file, flint.project
    try:
        issuer = f"{url}/{project}"

        # The admin API, with an access token google-auth gets from the key file's token_uri (Flint's).
        credentials = service_account.Credentials.from_service_account_file(
            key_file, scopes=["https://www.googleapis.com/auth/identitytoolkit"])
        admin = google.auth.transport.requests.AuthorizedSession(credentials)

        def create(kind, body):
            response = admin.post(f"{url}/v2/projects/{project}/{kind}", json=body, timeout=TIMEOUT)
            expect(response.status_code == 200, f"the admin API creates {kind} {body.get('displayName')} ({response.status_code})")
            return response.json()

        mcp_port = free_port()
        mcp = f"http://127.0.0.1:{mcp_port}"
        resource, other_resource = f"{mcp}/mcp", "https://other.example/api"
        metadata_url = f"{mcp}/.well-known/oauth-protected-resource/mcp"
        create("oauthResources", {"resource": resource, "displayName": "MCP example", "scopes": ["tools:read", "tools:write"]})
        create("oauthResources", {"resource": other_resource, "displayName": "Another API", "scopes": ["other:read"]})
        machine = create("oauthClients", {"displayName": "Agent", "type": "CONFIDENTIAL", "grantTypes": ["client_credentials"]})
        machine_id, machine_secret = machine["clientId"], machine["clientSecret"]
        # The resource server's own client, which it introspects with (checkRevoked).
        introspector = create("oauthClients", {"displayName": "MCP example server", "type": "CONFIDENTIAL",
                                               "grantTypes": ["client_credentials"]})

        app = flint.start([example], env=dict(
            os.environ, FLINT_SERVER_URL=url, FLINT_PROJECT_ID=project, MCP_RESOURCE_URL=resource, PORT=str(mcp_port),
            FLINT_INTROSPECTION_CLIENT_ID=introspector["clientId"],
            FLINT_INTROSPECTION_CLIENT_SECRET=introspector["clientSecret"]))
        expect(wait_for_line(app, "MCPServer is listening on port").split()[-1] == str(mcp_port),
               "the example listens on the port of its resource")

        def rpc(method, params=None, token=None, id=1):
            message = {"jsonrpc": "2.0", "method": method, **({"id": id} if id is not None else {}),
                       **({"params": params} if params is not None else {})}
            return call("POST", resource, message, token=token)

        # Discovery, as an MCP client makes it: the challenge, the resource's metadata, the issuer's.
        initialize = {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "check_mcp_example", "version": "1"}}
        status, headers, _ = rpc("initialize", initialize)
        challenge = headers.get("WWW-Authenticate")
        expect(status == 401 and challenge == f'Bearer resource_metadata="{metadata_url}"',
               f"without a token: 401 and the metadata's URL, no error ({status} {challenge})")
        expected = {"resource": resource, "authorization_servers": [issuer], "scopes_supported": ["tools:read", "tools:write"],
                    "bearer_methods_supported": ["header"], "resource_name": "Flint's MCP example"}
        for where in (metadata_url, f"{mcp}/.well-known/oauth-protected-resource"):
            status, headers, document = call("GET", where)
            expect(status == 200 and document == expected and headers.get("Content-Type") == "application/json",
                   f"GET {where[len(mcp):]}: the metadata names Flint's issuer ({status} {document})")
        status, _, server_metadata = call("GET", f"{url}/.well-known/oauth-authorization-server/{project}")
        expect(status == 200 and server_metadata["issuer"] == issuer and "client_credentials" in server_metadata["grant_types_supported"],
               "the issuer's RFC 8414 metadata offers client credentials")

        def token_for(scope, for_resource=resource):
            status, _, issued = call("POST", server_metadata["token_endpoint"], basic=(machine_id, machine_secret),
                                     form={"grant_type": "client_credentials", "resource": for_resource, "scope": scope})
            expect(status == 200 and issued.get("access_token"), f"a client-credentials token for {scope} ({status})")
            return issued["access_token"]

        reader = token_for("tools:read")
        status, _, answer = rpc("initialize", initialize, token=reader)
        result = answer.get("result", {}) if status == 200 else {}
        expect(result.get("protocolVersion") == "2025-06-18" and "tools" in result.get("capabilities", {})
               and result.get("serverInfo", {}).get("name"), f"initialize ({status} {answer})")
        status, _, _ = rpc("notifications/initialized", token=reader, id=None)
        expect(status == 202, f"notifications/initialized is accepted ({status})")
        status, _, answer = rpc("tools/list", token=reader, id=2)
        expect(status == 200 and [tool["name"] for tool in answer["result"]["tools"]] == ["whoami", "write_note"],
               f"tools/list names whoami and write_note ({status} {answer})")
        status, _, answer = rpc("tools/call", {"name": "whoami", "arguments": {}}, token=reader, id=3)
        who = answer["result"]["structuredContent"] if status == 200 else {}
        expect(who == {"subject": machine_id, "clientId": machine_id, "scopes": ["tools:read"]}
               and json.loads(answer["result"]["content"][0]["text"]) == who,
               f"whoami with tools:read names the client ({status} {answer})")

        status, headers, _ = rpc("tools/call", {"name": "write_note", "arguments": {"text": "hello"}}, token=reader, id=4)
        challenge = headers.get("WWW-Authenticate")
        expect(status == 403 and challenge == f'Bearer resource_metadata="{metadata_url}", error="insufficient_scope", scope="tools:write"',
               f"write_note with only tools:read: 403 insufficient_scope naming tools:write ({status} {challenge})")
        writer = token_for("tools:read tools:write")
        status, _, answer = rpc("tools/call", {"name": "write_note", "arguments": {"text": "hello"}}, token=writer, id=5)
        expect(status == 200 and answer["result"]["structuredContent"] == {"saved": 1},
               f"write_note with tools:write keeps the note ({status} {answer})")
        expect(call("GET", resource, token=reader)[0] == 405, "GET /mcp: 405, no event stream")
        status, _, answer = rpc("tools/delete_everything", token=reader, id=6)
        expect(status == 200 and answer.get("error", {}).get("code") == -32601, f"an unknown method is -32601 ({answer})")

        def expect_invalid(token, what):
            status, headers, _ = rpc("tools/call", {"name": "whoami", "arguments": {}}, token=token, id=7)
            challenge = headers.get("WWW-Authenticate")
            expect(status == 401 and challenge == f'Bearer resource_metadata="{metadata_url}", error="invalid_token"',
                   f"{what}: 401 invalid_token ({status} {challenge})")

        elsewhere = token_for("other:read", other_resource)
        expect(claims_of(elsewhere)["aud"] == other_resource, "the other resource's token names it alone")
        expect_invalid(elsewhere, "a genuine token asked for another registered resource")
        head, payload, signature = reader.split(".")
        expect_invalid(f"{head}.{payload}.{b64url(b'not the signature' * 16)}", "a token with a forged signature")
        stretched = b64url(json.dumps(dict(claims_of(reader), scope="tools:read tools:write")).encode())
        expect_invalid(f"{head}.{stretched}.{signature}", "a token whose scopes were widened after signing")
        expired = b64url(json.dumps(dict(claims_of(reader), iat=int(time.time()) - 7200, exp=int(time.time()) - 3600)).encode())
        expect_invalid(f"{head}.{expired}.{signature}", "an expired token (its times moved into the past after signing)")
        expect_invalid(b64url(b'{"alg":"none","typ":"at+jwt"}') + "." + payload + ".", "an unsigned token (alg none)")
        status, _, signed_up = call("POST", f"{url}/v1/accounts:signUp?key={api_key}",
                                    {"email": "user@example.com", "password": "a password", "returnSecureToken": True})
        expect(status == 200, "a user signs up with Flint")
        expect_invalid(signed_up["idToken"], "a Firebase ID token of the same project and keys")

        # Revocation (RFC 7009) is seen through introspection (checkRevoked). A token the server found active is
        # taken as active for up to 30 seconds more (its cache): this one is revoked before its first call.
        revoked = token_for("tools:read")
        status, _, _ = call("POST", server_metadata["revocation_endpoint"], basic=(machine_id, machine_secret),
                            form={"token": revoked, "token_type_hint": "access_token"})
        expect(status == 200, f"the client revokes a token ({status})")
        expect_invalid(revoked, "a revoked token")
        status, _, _ = rpc("tools/call", {"name": "whoami", "arguments": {}}, token=reader, id=8)
        expect(status == 200, f"the client's other token still works ({status})")
        print("Examples/MCPServer: discovery, scopes per tool, and every refused token answered as RFC 6750 and 9728 say.")
    finally:
        flint.stop()


def timed_out(*_):
    print(f"FAILED: the check ran over {RUN_LIMIT} seconds", flush=True)
    raise SystemExit(1)


if __name__ == "__main__":
    signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(RUN_LIMIT)
    main()
