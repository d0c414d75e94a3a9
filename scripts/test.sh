#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs what the tests need (PostgreSQL, Chromium, Apache and the SQLite
# headers from Debian, the official Python clients from PyPI) when missing; builds and tests the client package
# at the root, builds an app at FlintAuth's platform floors against it (scripts/check-client-app.sh) and its
# documentation (scripts/docs.sh); then starts a private PostgreSQL on 127.0.0.1, runs the server package's
# tests (Server/), runs the Hummingbird example on FlintAdmin against a live server (scripts/check-admin-example.sh),
# and fuzzes a live server against its OpenAPI document (scripts/fuzz.sh, bounded: about two minutes).
#
#   scripts/test.sh                    # everything
#   scripts/test.sh --filter Phone     # only the server package's tests, with swift test's arguments
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
[ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
[ -f /usr/include/openssl/evp.h ] || missing+=(libssl-dev pkg-config)   # RS256 signing through OpenSSL 3
[ -f /usr/include/xmlsec1/xmlsec/xmldsig.h ] || missing+=(libxmlsec1-dev libxml2-dev pkg-config)   # SAML signatures (xmlsec1)
[ -x /usr/bin/systemd-analyze ] || missing+=(systemd)   # checks deploy/flint.service
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing+=(chromium)   # the captcha page's browser test
[ -x /usr/sbin/apache2 ] || missing+=(apache2)   # an app's own web server, with its stock limits (SAMLAppServerTests)
[ -f /usr/lib/apache2/modules/mod_auth_openidc.so ] || missing+=(libapache2-mod-auth-openidc)   # a relying party nobody here wrote (OIDCApacheTests)
[ -x /usr/bin/oidc-gen ] || missing+=(oidc-agent)   # a device flow client nobody here wrote (OIDCAgentTests)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then echo "Please install: ${missing[*]} (apt-get)" >&2; exit 1; fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
python3 -c "import firebase_admin, jwt, cryptography, aiosmtpd, websocket, bcrypt, schemathesis, fido2, signxml, lxml, authlib, mcp" 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check -r Server/Tests/python/requirements.txt

if [ $# -eq 0 ]; then
    # The client: no dependencies, so this is quick.
    swift build --build-tests
    swift test --skip-build
    scripts/check-client-app.sh
    scripts/docs.sh
fi

FLINT_TEST_DATABASE_URL="$(scripts/postgres.sh start)"
FLINT_TEST_PG_CA="$(scripts/postgres.sh ca)"   # the CA of the server's certificate, for the TLS tests
export FLINT_TEST_DATABASE_URL FLINT_TEST_PG_CA
trap 'scripts/postgres.sh stop' EXIT

# At most this many tests run at once. Unbounded, every suite's servers, browsers and Python clients start together
# and a two-core machine answers some of them after their deadlines (a provider fetch, a browser's page load).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${FLINT_TEST_WIDTH:-$(( $(nproc) * 3 ))}"

# Build everything first, the `flint` executable included: CLITests run the binary.
swift build --package-path Server --build-tests
# Bounded (FLINT_TEST_LIMIT seconds, about three times a two-core machine's run): a test that hangs ends the run with
# the test processes' stacks and the tests that never finished, instead of holding it until CI's own limit.
scripts/bounded-tests.sh "${FLINT_TEST_LIMIT:-1800}" swift test --package-path Server --skip-build "$@"
if [ $# -eq 0 ]; then
    scripts/check-admin-example.sh
    scripts/check-mcp-example.sh
    scripts/fuzz.sh
fi
