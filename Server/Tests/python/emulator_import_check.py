"""Whether the official Firebase Auth emulator would load an emulator data folder whole.

An independent re-statement, not the emulator: the official emulator needs Node.js and firebase-tools, which the test
machines cannot install. The rules below were read in firebase-tools' src/emulator/auth/index.ts (importData: which
files, in which order, to which endpoint), operations.ts (batchCreate, updateEmulatorProjectConfig, updateConfig) and
apiSpec.ts (the request schemas the emulator validates bodies against).

The emulator's import posts each accounts file as the body of accounts:batchCreate and only looks at the HTTP status:
an entry batchCreate refuses comes back in the 200 answer's `error` list and is silently dropped. This checker counts
such an entry as a failure too, since the folder would not load whole.

Usage: python3 emulator_import_check.py DATA_FOLDER   (exit 0: every file and every entry would load)
"""

import json
import os
import re
import sys

FORBIDDEN_CLAIMS = ["iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf",
                    "auth_time", "firebase", "at_hash", "c_hash"]

# GoogleCloudIdentitytoolkitV1UserInfo and the types apiSpec.ts gives its members (formats as JSON types).
USER_INFO_TYPES = {
    "createdAt": str, "customAttributes": str, "customAuth": bool, "dateOfBirth": str, "disabled": bool,
    "displayName": str, "email": str, "emailLinkSignin": bool, "emailVerified": bool, "initialEmail": str,
    "language": str, "lastLoginAt": str, "lastRefreshAt": str, "localId": str, "mfaInfo": list,
    "passwordHash": str, "passwordUpdatedAt": (int, float), "phoneNumber": str, "photoUrl": str,
    "providerUserInfo": list, "rawPassword": str, "salt": str, "screenName": str, "tenantId": str,
    "timeZone": str, "validSince": str, "version": int, "passkeyInfo": list,
}
PROVIDER_TYPES = {"displayName": str, "email": str, "federatedId": str, "phoneNumber": str, "photoUrl": str,
                  "providerId": str, "rawId": str, "screenName": str}
MFA_TYPES = {"displayName": str, "enrolledAt": str, "mfaEnrollmentId": str, "phoneInfo": str,
             "unobfuscatedPhoneInfo": str, "totpInfo": dict, "emailInfo": dict}
PASSWORD, PHONE = "password", "phone"


class Refused(Exception):
    pass


def check_types(value, types, where):
    if not isinstance(value, dict):
        raise Refused(f"{where}: not an object")
    for key, expected in types.items():
        if key in value and not (isinstance(value[key], expected) and not (expected is not bool and isinstance(value[key], bool))):
            raise Refused(f"{where}.{key}: not of the schema's type")


def valid_email(email):
    return re.fullmatch(r"[^@]+@[^@]+", email) is not None


def valid_phone(number):
    return number.startswith("+")


class Realm:
    """One project or tenant state: the accounts loaded so far."""

    def __init__(self):
        self.users = {}

    def by_email(self, email):
        return next((u for u in self.users.values() if u.get("email") == email.lower()), None)

    def by_raw_id(self, provider_id, raw_id):
        for user in self.users.values():
            for info in user.get("providerUserInfo", []):
                if info["providerId"] == provider_id and info["rawId"] == raw_id:
                    return user
        return None


def check_custom_claims(claims):
    if len(claims) > 1000:
        raise Refused("Custom claims provided are too large.")
    try:
        parsed = json.loads(claims)
    except ValueError:
        raise Refused("Invalid custom claims provided.")
    if not isinstance(parsed, dict):
        raise Refused("Invalid custom claims provided.")
    if any(name in parsed for name in FORBIDDEN_CLAIMS):
        raise Refused("Custom claims provided include a reserved claim.")


def batch_create_entry(realm, tenant_id, info):
    """One user as batchCreate takes it (without allowOverwrite or sanityCheck, as the import posts it)."""
    if not info.get("localId"):
        raise Refused("localId is missing")
    fields = {"localId": info["localId"]}
    if info.get("tenantId") and info["tenantId"] != tenant_id:
        raise Refused("Tenant id in userInfo does not match the tenant id in request.")
    if info.get("customAttributes"):
        check_custom_claims(info["customAttributes"])
    providers = []
    for provider in info.get("providerUserInfo") or []:
        check_types(provider, PROVIDER_TYPES, "providerUserInfo[]")
        provider_id, raw_id = provider.get("providerId"), provider.get("rawId")
        if provider_id in (PASSWORD, PHONE):
            continue
        if not raw_id or not provider_id:
            raise Refused("federatedId or (providerId & rawId) is required")
        holder = realm.by_raw_id(provider_id, raw_id)
        if holder and holder["localId"] != info["localId"]:
            raise Refused("raw id exists in other account in database")
        providers.append({"providerId": provider_id, "rawId": raw_id})
    fields["providerUserInfo"] = providers
    if info.get("phoneNumber") and not valid_phone(info["phoneNumber"]):
        raise Refused("phone number format is invalid")
    if info.get("email"):
        if not valid_email(info["email"]):
            raise Refused("email is invalid")
        holder = realm.by_email(info["email"])
        if holder and holder["localId"] != info["localId"]:
            raise Refused(f"((Auth Emulator does not support importing duplicate email: {info['email']}))")
        fields["email"] = info["email"].lower()
    if info.get("mfaInfo"):
        if not fields.get("email"):
            raise Refused("Second factor account requires email to be presented.")
        if not info.get("emailVerified"):
            raise Refused("Second factor account requires email to be verified.")
        ids = set()
        for enrollment in info["mfaInfo"]:
            check_types(enrollment, MFA_TYPES, "mfaInfo[]")
            if enrollment.get("mfaEnrollmentId"):
                if enrollment["mfaEnrollmentId"] in ids:
                    raise Refused("Enrollment id already exists.")
                ids.add(enrollment["mfaEnrollmentId"])
        for enrollment in info["mfaInfo"]:
            if not enrollment.get("phoneInfo"):
                raise Refused("Second factor not supported.")
            if not valid_phone(enrollment["phoneInfo"]):
                raise Refused("Phone number format is invalid")
    realm.users[info["localId"]] = fields


def batch_create(realm, tenant_id, body, file):
    """accounts:batchCreate: the schema, the batch's checks (HTTP errors), then each entry."""
    if not isinstance(body, dict):
        return [f"{file}: the body is not a JSON object"]
    users = body.get("users")
    if users is None or users == []:
        return []  # MISSING_USER_ACCOUNT, which the import ignores
    if not isinstance(users, list):
        return [f"{file}: users is not an array"]
    for index, user in enumerate(users):
        try:
            check_types(user, USER_INFO_TYPES, f"users[{index}]")
        except Refused as refusal:
            return [f"{file}: 400 Invalid JSON payload received. {refusal}"]
    local_ids = set()
    for user in users:
        local_id = user.get("localId") or ""
        if local_id in local_ids:
            return [f"{file}: 400 DUPLICATE_LOCAL_ID : {local_id}"]
        local_ids.add(local_id)
    failures = []
    for index, user in enumerate(users):
        try:
            batch_create_entry(realm, tenant_id, user)
        except Refused as refusal:
            failures.append(f"{file}: users[{index}] ({user.get('localId')}) dropped: {refusal}")
    return failures


def patch_config(body, file):
    """PATCH /emulator/v1/projects/{p}/config: EmulatorV1ProjectsConfig, then updateConfig's checks."""
    if not isinstance(body, dict):
        return [f"{file}: the body is not a JSON object"]
    for name, member, kind in [("signIn", "allowDuplicateEmails", bool),
                               ("emailPrivacyConfig", "enableImprovedEmailPrivacy", bool)]:
        if name in body:
            if not isinstance(body[name], dict):
                return [f"{file}: {name} is not an object"]
            if member in body[name] and not isinstance(body[name][member], kind):
                return [f"{file}: {name}.{member} is not a boolean"]
    triggers = (body.get("blockingFunctions") or {}).get("triggers") or {}
    for event, trigger in triggers.items():
        if event not in ("beforeCreate", "beforeSignIn", "beforeSendEmail", "beforeSendSms"):
            return [f"{file}: INVALID_BLOCKING_FUNCTION : ((Event type is invalid.))"]
        if not re.match(r"^[a-z][a-z0-9+.-]*://[^/]+", trigger.get("functionUri") or ""):
            return [f"{file}: INVALID_BLOCKING_FUNCTION : ((Expected an absolute URI with valid scheme and host.))"]
    return []


def load_json(path, name):
    with open(path, encoding="utf-8") as handle:
        try:
            return json.load(handle), []
        except ValueError as error:
            return None, [f"{name}: 400 Invalid JSON payload received. {error}"]


def check(folder):
    failures = []
    metadata_path = os.path.join(folder, "firebase-export-metadata.json")
    auth_path = "auth_export"
    if os.path.exists(metadata_path):
        metadata, problems = load_json(metadata_path, "firebase-export-metadata.json")
        if problems:
            return problems
        if not isinstance(metadata.get("auth"), dict) or not isinstance(metadata["auth"].get("path"), str):
            return ["firebase-export-metadata.json: no auth entry, so the emulator imports no auth data"]
        auth_path = metadata["auth"]["path"]
    auth = os.path.join(folder, auth_path)
    config = os.path.join(auth, "config.json")
    if os.path.isfile(config):
        body, problems = load_json(config, "config.json")
        failures += problems or patch_config(body, "config.json")
    realms = {}
    for name in sorted(os.listdir(auth)):
        if "accounts" not in name or not os.path.isfile(os.path.join(auth, name)):
            continue
        tenant_id = re.sub(r"accounts(-|)|\.json", "", name)
        body, problems = load_json(os.path.join(auth, name), name)
        failures += problems or batch_create(realms.setdefault(tenant_id, Realm()), tenant_id or None, body, name)
    return failures


if __name__ == "__main__":
    found = check(sys.argv[1])
    for failure in found:
        print(failure)
    print("would load whole" if not found else f"{len(found)} problem(s)")
    sys.exit(1 if found else 0)
