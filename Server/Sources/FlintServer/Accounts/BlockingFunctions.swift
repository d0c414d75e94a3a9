import FlintWire
import Foundation
import NIOCore

/// Identity Platform's blocking functions: before an account is created (`beforeCreate`) and before any sign-in hands
/// out tokens (`beforeSignIn`), Flint POSTs the event to the project's function and lets it refuse or change the
/// sign-in.
///
/// The event is `{"data": {"jwt": …}}`: a JWT signed with the project's token key (so the function checks it against
/// Flint's JWKS, as Google's are checked), issuer `securetoken.google.com/{p}`-style as Flint issues, audience the
/// function's URL, the account as a user record, the sign-in method, the client's IP, user agent and locale, and the
/// provider's credentials when the project forwards them. The function answers 200 with `{"userRecord": {"updateMask":
/// "displayName,…", …}}` to change `displayName`, `photoUrl`, `emailVerified`, `disabled` or `customClaims` (and, before
/// a sign-in, the session's `sessionClaims`), or with an error status to refuse, which the client sees as
/// `BLOCKING_FUNCTION_ERROR_RESPONSE` with the function's answer. Fail closed: a function that cannot be reached, is
/// slower than `timeout` (seven seconds unless configured) or answers something unreadable refuses the sign-in too.
///
/// `beforeSendEmail` and `beforeSendSms` are asked before Flint sends a sign-in or password-reset email, or a code by
/// SMS: their event names the address or number and the kind of message (no user record, as Identity Platform's), and
/// a refusal means nothing is sent. Their answer's `recaptchaActionOverride` overrides a reCAPTCHA Enterprise verdict
/// in Identity Platform; Flint makes no such assessment, so it has nothing to override and the field is not acted on.
struct BlockingFunctions: Sendable {
    enum Event: String, Sendable, CaseIterable {
        case beforeCreate, beforeSignIn, beforeSendEmail, beforeSendSms
    }

    /// A message about to be sent, as `beforeSendEmail` and `beforeSendSms` see it.
    enum Message: Sendable {
        /// `type`: `EMAIL_SIGN_IN` or `PASSWORD_RESET`.
        case email(address: String, type: String)
        /// `type`: `SIGN_IN_OR_SIGN_UP`, `MULTI_FACTOR_ENROLLMENT` or `MULTI_FACTOR_SIGN_IN`.
        case sms(phoneNumber: String, type: String)
    }

    /// What a function decided.
    struct Verdict: Sendable {
        var change = AccountChange()
        /// Claims for this session's ID tokens (JSON object text), from `beforeSignIn` only.
        var sessionClaims: String?
    }

    /// Where the event happens: the sign-in's method and credentials, and the client (from the request).
    struct Context: Sendable {
        var signInMethod: String
        var providerTokens: ProviderTokens?
        var rawUserInfo: String?
    }

    let http: OutsideHTTP
    let keyring: SigningKeyring
    let tokens: TokenService
    let clock: any FlintClock
    let random: any RandomSource

    init(core: ServerCore, http: OutsideHTTP, keyring: SigningKeyring, tokens: TokenService) {
        self.http = http
        self.keyring = keyring
        self.tokens = tokens
        clock = core.clock
        random = core.random
    }
    /// How long a function may take (`OutsideCallLimits.blockingFunctionTimeout`).
    var timeout: TimeAmount { http.limits.blockingFunctionTimeout }

    /// Calls the project's function for `event`, if it has one, about `user`.
    func run(_ event: Event, for user: UserAccount, context: Context, settings: ProjectSettings.BlockingFunctions) async throws
        -> Verdict {
        guard let url = settings.triggers[event.rawValue] else { return Verdict() }
        var claims = Self.userClaims(user, context: context)
        if let providerTokens = context.providerTokens {
            if settings.forwardsIDToken { claims["oauth_id_token"] = providerTokens.idToken.map(JSONValue.string) }
            if settings.forwardsAccessToken { claims["oauth_access_token"] = providerTokens.accessToken.map(JSONValue.string) }
        }
        return try Self.verdict(event, try await call(event, url: url, realm: Realm(key: user.projectID), claims: claims))
    }

    /// Calls the project's `beforeSendEmail` or `beforeSendSms` function, if it has one, before `message` is sent in
    /// `realm`; throws if the function refuses (or fails), and then nothing may be sent.
    func beforeSending(_ message: Message, in realm: Realm, settings: ProjectSettings.BlockingFunctions) async throws {
        // The recipient is the subject: JWT verifiers (the Admin SDKs' among them) want a non-empty `sub`, and a message
        // may be for an address no account has yet.
        let (event, claims): (Event, [String: JSONValue]) = switch message {
        case .email(let address, let type):
            (.beforeSendEmail, ["sub": .string(address), "email": .string(address), "email_type": .string(type)])
        case .sms(let phoneNumber, let type):
            (.beforeSendSms, ["sub": .string(phoneNumber), "phone_number": .string(phoneNumber), "sms_type": .string(type)])
        }
        guard let url = settings.triggers[event.rawValue] else { return }
        _ = try await call(event, url: url, realm: realm, claims: claims)
    }

    /// POSTs `event` (its `claims` in Identity Platform's signed envelope) and returns the function's answer.
    private func call(_ event: Event, url: String, realm: Realm, claims: [String: JSONValue]) async throws -> [String: JSONValue] {
        let jwt = try await eventToken(event, url: url, realm: realm, claims: claims)
        let body = try JSONEncoder().encode(["data": ["jwt": jwt]])
        let request = DeliveryHTTP.post(url, contentType: "application/json", body: body, headers: [("accept", "application/json")])
        let answer: DeliveryHTTP.Answer
        do {
            answer = try await withDeadline(timeout) { try await http.send(request, to: .blockingFunction) }
        } catch {
            throw FlintError(.blockingFunctionErrorResponse, "((Failed to make request to \(url).))", status: .internalServerError)
                .withCause("\(error)")
        }
        guard answer.isSuccess else {
            throw FlintError(.blockingFunctionErrorResponse,
                             "((HTTP request to \(url) returned HTTP error \(answer.status): \(answer.bodyText.prefix(2000))))")
        }
        guard case .object(let response)? = try? JSONDecoder().decode(JSONValue.self, from: answer.body) else {
            throw FlintError(.blockingFunctionErrorResponse, "((Response body is not valid JSON.))", status: .internalServerError)
        }
        return response
    }

    /// The changes a function's answer asks for: only the fields its `updateMask` names.
    static func verdict(_ event: Event, _ response: [String: JSONValue]) throws -> Verdict {
        var verdict = Verdict()
        guard case .object(let record)? = response["userRecord"] else { return verdict }
        guard let mask = record["updateMask"]?.stringValue else {
            throw FlintError(.blockingFunctionErrorResponse, "((Response UserRecord is missing updateMask.))")
        }
        for field in mask.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            switch field {
            case "displayName": verdict.change.add(.displayName(record[field]?.stringValue))
            case "photoUrl": verdict.change.add(.photoURL(record[field]?.stringValue))
            case "emailVerified": verdict.change.add(.emailVerified(record[field] == .bool(true)))
            case "disabled": verdict.change.add(.disabled(record[field] == .bool(true)))
            case "customClaims":
                verdict.change.add(.customAttributes(try Validation.customClaims(try json(record[field] ?? .object([:])))))
            case "sessionClaims" where event == .beforeSignIn:
                guard case .object? = record[field] else {
                    throw FlintError(.blockingFunctionErrorResponse, "((Response has malformed session claims.))")
                }
                verdict.sessionClaims = try Validation.customClaims(try json(record[field] ?? .object([:])))
            default: break
            }
        }
        return verdict
    }

    private static func json(_ value: JSONValue) throws -> String {
        String(decoding: try JSONBody.encoder.encode(value), as: UTF8.self)
    }

    /// The claims of an event about `user`: its user record, the sign-in method and the provider's profile.
    private static func userClaims(_ user: UserAccount, context: Context) -> [String: JSONValue] {
        var record: [String: JSONValue] = [
            "uid": .string(user.localID), "email_verified": .bool(user.emailVerified), "disabled": .bool(user.disabled),
            "provider_data": .array(user.identities.map { identity in
                .object([
                    "provider_id": .string(identity.providerID), "uid": .string(identity.rawID),
                    "email": identity.email.map(JSONValue.string) ?? .null,
                    "display_name": identity.displayName.map(JSONValue.string) ?? .null,
                    "photo_url": identity.photoURL.map(JSONValue.string) ?? .null,
                ])
            }),
            "metadata": .object([
                "creation_time": .number(Double(user.createdAt)),
                "last_sign_in_time": user.lastLoginAt.map { .number(Double($0)) } ?? .null,
            ]),
        ]
        record["email"] = user.email.map(JSONValue.string)
        record["display_name"] = user.displayName.map(JSONValue.string)
        record["photo_url"] = user.photoURL.map(JSONValue.string)
        record["phone_number"] = user.phoneNumber.map(JSONValue.string)
        if let custom = user.customAttributes, case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: Data(custom.utf8)) {
            record["custom_claims"] = .object(claims)
        }
        record["tenant_id"] = Realm(key: user.projectID).tenantID.map(JSONValue.string)
        var claims: [String: JSONValue] = [
            "sub": .string(user.localID), "sign_in_method": .string(context.signInMethod), "user_record": .object(record),
        ]
        claims["raw_user_info"] = context.rawUserInfo.map(JSONValue.string)
        return claims
    }

    /// The signed event: `claims` with the envelope every event has (issuer, audience the function's URL, times,
    /// event ID and type, the client, and the tenant if any).
    private func eventToken(_ event: Event, url: String, realm: Realm, claims: [String: JSONValue]) async throws -> String {
        let now = clock.seconds
        let client = RequestClient.current
        var claims = claims
        claims.merge([
            "iss": .string(tokens.issuer(projectID: realm.projectID)), "aud": .string(url),
            "iat": .number(Double(now)), "exp": .number(Double(now + Int64(timeout.nanoseconds / 1_000_000_000) + 60)),
            "event_id": .string(random.token(byteCount: 16)), "event_type": .string(event.rawValue),
            "user_agent": .string(client.userAgent ?? ""), "ip_address": .string(client.ipAddress ?? ""),
            "locale": .string(client.locale ?? "en"),
        ]) { own, _ in own }
        claims["tenant_id"] = realm.tenantID.map(JSONValue.string)
        return try await keyring.sign(payload: try JSONBody.encoder.encode(JSONValue.object(claims)))
    }
}
