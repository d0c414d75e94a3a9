#!/usr/bin/env python3
"""Fixtures for Benchmarks/run.sh's identity-provider runs, driven over HTTP as a browser and a client would.

  provider.py session BASE PROJECT CLIENT_ID SECRET EMAIL PASSWORD API_KEY STATE
      signs EMAIL in on the provider's page for CLIENT_ID (a first-party client: no consent page), exchanges the first
      code, and writes STATE (JSON): the browser's cookies, a refresh token and an access token.
  provider.py mint BASE PROJECT CLIENT_ID STATE COUNT CODES
      asks /authorize COUNT times in that browser session (single sign-on: each answer is a redirect with a code) and
      writes the codes to CODES, one a line. A code lives 60 s and is single-use.
  provider.py signin-users BASE API_KEY PREFIX PASSWORD COUNT
      creates COUNT email users PREFIX-<i>@flint.test with PASSWORD.
  provider.py custom-tokens KEY_FILE BASE API_KEY COUNT TOKENS
      signs COUNT custom tokens (uids bench-custom-<i>) with the service-account key file, signs each in once (which
      creates its user), and writes them to TOKENS, one a line. A custom token may be used again until it expires (an hour).

The server trusts 127.0.0.1 as a proxy (--trusted-proxies), so requests name a client address in X-Forwarded-For:
/authorize allows 120 authorizations per address a minute, so the codes are asked for from many addresses.
"""
import base64, hashlib, http.client, json, re, sys, time, urllib.parse

VERIFIER = "flint-benchmark-pkce-verifier-0123456789abcdefghijklmnop"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
REDIRECT_URI = "http://127.0.0.1/callback"
CUSTOM_TOKEN_AUDIENCE = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"


class Browser:
    """One keep-alive connection with a cookie jar."""

    def __init__(self, base, cookies=None):
        url = urllib.parse.urlsplit(base)
        self.connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        self.cookies = dict(cookies or {})

    def send(self, method, path, body=None, headers=None, address=None):
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if address:
            headers["X-Forwarded-For"] = address
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                pair = value.split(";", 1)[0]
                key, _, val = pair.partition("=")
                self.cookies[key.strip()] = val.strip()
        return response.status, dict((k.lower(), v) for k, v in response.getheaders()), data

    def json(self, path, body, address=None):
        status, _, data = self.send("POST", path, json.dumps(body), {"Content-Type": "application/json"}, address)
        if status != 200:
            sys.exit(f"{path} answered {status}: {data[:300]!r}")
        return json.loads(data)


def authorize_path(project, client_id):
    return f"/{project}/authorize?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT_URI,
        "scope": "openid email offline_access", "state": "bench", "nonce": "bench-nonce",
        "code_challenge": CHALLENGE, "code_challenge_method": "S256"})


def code_of(location):
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
    if "code" not in query:
        sys.exit(f"no code in the redirect to {location}")
    return query["code"][0]


def token_call(browser, project, client_id, secret, fields):
    basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    status, _, data = browser.send("POST", f"/{project}/token", urllib.parse.urlencode(fields),
                                   {"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + basic})
    if status != 200:
        sys.exit(f"the token endpoint answered {status}: {data[:300]!r}")
    return json.loads(data)


def session(base, project, client_id, secret, email, password, api_key, state_path):
    browser = Browser(base)
    status, headers, body = browser.send("GET", authorize_path(project, client_id))
    if status != 303:
        sys.exit(f"/authorize answered {status}: {body[:300]!r}")
    status, _, page = browser.send("GET", headers["location"])
    config = json.loads(re.search(rb'<script type="application/json" id="flint-config">(.*?)</script>', page, re.S).group(1))
    signed_in = browser.json(f"/v1/accounts:signInWithPassword?key={api_key}",
                             {"email": email, "password": password, "returnSecureToken": True})
    answer = browser.json("/__/oauth/session", {"authorizationId": config["authorizationId"],
                                                "idToken": signed_in["idToken"], "formToken": config["formToken"]})
    tokens = token_call(browser, project, client_id, secret, {
        "grant_type": "authorization_code", "code": code_of(answer["location"]), "redirect_uri": REDIRECT_URI,
        "code_verifier": VERIFIER})
    json.dump({"cookies": browser.cookies, "refresh_token": tokens["refresh_token"],
               "access_token": tokens["access_token"]}, open(state_path, "w"))


def mint(base, project, client_id, state_path, count, codes_path):
    browser = Browser(base, json.load(open(state_path))["cookies"])
    path = authorize_path(project, client_id)
    with open(codes_path, "w") as codes:
        for i in range(count):
            # 100 codes per address, under the 120 an address may start a minute.
            status, headers, body = browser.send("GET", path, address=f"10.77.{i // 100 // 256}.{i // 100 % 256}")
            if status != 303:
                sys.exit(f"/authorize answered {status}: {body[:300]!r}")
            codes.write(code_of(headers["location"]) + "\n")


def signin_users(base, api_key, prefix, password, count):
    browser = Browser(base)
    for i in range(count):
        browser.json(f"/v1/accounts:signUp?key={api_key}",
                     {"email": f"{prefix}-{i}@flint.test", "password": password, "returnSecureToken": True})


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def custom_tokens(key_path, base, api_key, count, tokens_path):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding, rsa
    key_file = json.load(open(key_path))
    # The emulator checks no signature: its key file names no key, and any will do.
    key = serialization.load_pem_private_key(key_file["private_key"].encode(), password=None) if key_file["private_key"] \
        else rsa.generate_private_key(public_exponent=65537, key_size=2048)
    header = b64url(json.dumps({"alg": "RS256", "typ": "JWT", "kid": key_file["private_key_id"]}).encode())
    now = int(time.time())
    browser = Browser(base)
    with open(tokens_path, "w") as tokens:
        for i in range(count):
            claims = {"iss": key_file["client_email"], "sub": key_file["client_email"], "aud": CUSTOM_TOKEN_AUDIENCE,
                      "iat": now, "exp": now + 3600, "uid": f"bench-custom-{i}"}
            signing_input = header + "." + b64url(json.dumps(claims).encode())
            token = signing_input + "." + b64url(key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256()))
            browser.json(f"/v1/accounts:signInWithCustomToken?key={api_key}", {"token": token, "returnSecureToken": True})
            tokens.write(token + "\n")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "session":
        session(*args)
    elif command == "mint":
        mint(args[0], args[1], args[2], args[3], int(args[4]), args[5])
    elif command == "signin-users":
        signin_users(args[0], args[1], args[2], args[3], int(args[4]))
    elif command == "custom-tokens":
        custom_tokens(args[0], args[1], args[2], int(args[3]), args[4])
    else:
        sys.exit(__doc__)
