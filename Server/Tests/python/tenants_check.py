"""firebase-admin's tenant management and tenant-aware auth against Flint, in either mode.

Run by FlintServerTests.PythonClientTests with FLINT_URL, FLINT_API_KEY and FLINT_PROJECT, and either
FIREBASE_AUTH_EMULATOR_HOST (emulator mode) or FLINT_KEY_FILE (production: a service-account key file `flint` made).
The SDK's Google addresses are pointed at Flint (`tenant_mgt` has no emulator support of its own, and production
Flint is not at googleapis.com); everything else is the SDK as shipped. Exits non-zero on the first failed check.
"""
import json
import os
import urllib.error
import urllib.request

import firebase_admin
import jwt
from firebase_admin import _auth_providers, _user_mgt, _utils, auth, credentials, tenant_mgt

import saml_provider_checks

base = os.environ["FLINT_URL"]
api_key = os.environ["FLINT_API_KEY"]
project = os.environ["FLINT_PROJECT"]
emulated = "FIREBASE_AUTH_EMULATOR_HOST" in os.environ


class EmulatorOwner(credentials.Base):
    """The emulator's admin credential (`Bearer owner`) for the services that do not switch to it themselves."""

    def get_credential(self):
        return _utils.EmulatorAdminCredentials()


prefix = f"{base}/identitytoolkit.googleapis.com"
tenant_mgt._TenantManagementService.TENANT_MGT_URL = f"{prefix}/v2"
if emulated:
    app = firebase_admin.initialize_app(EmulatorOwner(), options={"projectId": project})
else:
    _user_mgt.UserManager.ID_TOOLKIT_URL = f"{prefix}/v1"
    _auth_providers.ProviderConfigClient.PROVIDER_CONFIG_URL = f"{prefix}/v2"
    app = firebase_admin.initialize_app(credentials.Certificate(os.environ["FLINT_KEY_FILE"]), options={"projectId": project})


def rest(name, body):
    request = urllib.request.Request(f"{base}/v1/accounts:{name}?key={api_key}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def claims(id_token):
    """The token's claims: verified by the SDK in emulator mode; in production against Flint's published keys."""
    if emulated:
        return None
    keys = jwt.PyJWKClient(f"{base}/.well-known/jwks.json")
    return jwt.decode(id_token, keys.get_signing_key_from_jwt(id_token).key, algorithms=["RS256"], audience=project)


# Two tenants, made, read, listed and changed through tenant_mgt.
acme = tenant_mgt.create_tenant("Acme", allow_password_sign_up=True, enable_email_link_sign_in=True, app=app)
globex = tenant_mgt.create_tenant("Globex", allow_password_sign_up=True, app=app)
assert acme.tenant_id != globex.tenant_id and acme.display_name == "Acme", acme.tenant_id
assert acme.allow_password_sign_up and acme.enable_email_link_sign_in and not globex.enable_email_link_sign_in
assert tenant_mgt.get_tenant(acme.tenant_id, app=app).display_name == "Acme"
listed = {tenant.tenant_id for tenant in tenant_mgt.list_tenants(app=app).iterate_all()}
assert {acme.tenant_id, globex.tenant_id} <= listed, listed
renamed = tenant_mgt.update_tenant(acme.tenant_id, display_name="AcmeCorp", app=app)
assert renamed.display_name == "AcmeCorp" and renamed.allow_password_sign_up, renamed

# The same email and the same uid in both tenants: two unrelated accounts, none in the project.
in_acme = tenant_mgt.auth_for_tenant(acme.tenant_id, app=app)
in_globex = tenant_mgt.auth_for_tenant(globex.tenant_id, app=app)
alice_acme = in_acme.create_user(uid="alice", email="alice@example.com", password="acme-secret", display_name="Alice of Acme")
alice_globex = in_globex.create_user(uid="alice", email="alice@example.com", password="globex-secret")
assert alice_acme.tenant_id == acme.tenant_id and alice_globex.tenant_id == globex.tenant_id
assert in_acme.get_user_by_email("alice@example.com").display_name == "Alice of Acme"
assert in_globex.get_user_by_email("alice@example.com").display_name is None
try:
    auth.get_user_by_email("alice@example.com", app=app)
    raise AssertionError("the project has no alice")
except auth.UserNotFoundError:
    pass
assert [user.uid for user in in_globex.list_users().iterate_all()] == ["alice"]

# SAML provider configs of a tenant: integration/test_tenant_mgt.py's cases through its client (in production the
# project's integration/test_auth.py cases too; admin_sdk_check.py runs those in emulator mode). A tenant's provider
# is neither the project's nor another tenant's.
saml_provider_checks.check_saml_provider_configs(in_acme)
if not emulated:
    saml_provider_checks.check_saml_provider_configs(auth)
acme_saml = saml_provider_checks.create_saml_provider_config(in_acme)
for elsewhere in (auth, in_globex):
    try:
        elsewhere.get_saml_provider_config(acme_saml.provider_id)
        raise AssertionError("a tenant's SAML provider is found outside it")
    except auth.ConfigurationNotFoundError:
        pass
assert acme_saml.provider_id not in {config.provider_id for config in auth.list_saml_provider_configs().iterate_all()}
in_acme.delete_saml_provider_config(acme_saml.provider_id)

# Each signs in through the REST API in its own tenant; the tokens carry it.
status, signed_in = rest("signInWithPassword", {"email": "alice@example.com", "password": "acme-secret",
                                                "tenantId": acme.tenant_id, "returnSecureToken": True})
assert status == 200, signed_in
status, wrong = rest("signInWithPassword", {"email": "alice@example.com", "password": "acme-secret",
                                            "tenantId": globex.tenant_id, "returnSecureToken": True})
assert status == 400, wrong
if emulated:
    decoded = in_acme.verify_id_token(signed_in["idToken"])
    try:
        in_globex.verify_id_token(signed_in["idToken"])
        raise AssertionError("a token of one tenant verifies in another")
    except tenant_mgt.TenantIdMismatchError:
        pass
else:
    decoded = claims(signed_in["idToken"])
assert decoded["firebase"]["tenant"] == acme.tenant_id and decoded["sub"] == "alice", decoded

# A tenant's custom token signs in to that tenant.
custom = in_globex.create_custom_token("bob", {"plan": "pro"})
custom = custom.decode() if isinstance(custom, bytes) else custom
status, bob = rest("signInWithCustomToken", {"token": custom, "tenantId": globex.tenant_id, "returnSecureToken": True})
assert status == 200, bob
bob_claims = claims(bob["idToken"]) if not emulated else in_globex.verify_id_token(bob["idToken"])
assert bob_claims["firebase"]["tenant"] == globex.tenant_id and bob_claims["plan"] == "pro", bob_claims

# Deleting a tenant deletes it and its accounts.
tenant_mgt.delete_tenant(globex.tenant_id, app=app)
if emulated:
    # The emulator makes a tenant again on first use, as the official one does: an empty one.
    assert list(in_globex.list_users().iterate_all()) == []
else:
    try:
        tenant_mgt.get_tenant(globex.tenant_id, app=app)
        raise AssertionError("the tenant is still there")
    except tenant_mgt.TenantNotFoundError:
        pass
assert in_acme.get_user("alice").email == "alice@example.com"
print("tenants: ok")
