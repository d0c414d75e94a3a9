import FlintWire

// The Secure Token answer and the ID token's claims, written without `JSONEncoder` (see `JSONWriter`): every
// sign-in and refresh makes both. Members are written in the encoder's sorted order.

extension SecureTokenResponse: JSONWritable {
    func write(to writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.member("access_token", accessToken)
        writer.member("expires_in", expiresIn)
        writer.member("id_token", idToken)
        writer.member("project_id", projectId)
        writer.member("refresh_token", refreshToken)
        writer.member("token_type", tokenType)
        writer.member("user_id", userId)
        writer.endObject()
    }
}

extension IDTokenClaims: JSONWritable {
    func write(to writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.member("aud", aud)
        writer.member("auth_time", authTime)
        writer.member("email", email)
        writer.member("email_verified", emailVerified)
        writer.member("exp", exp)
        writer.key("firebase")
        try writer.value(firebase)
        writer.member("iat", iat)
        writer.member("iss", iss)
        writer.member("name", name)
        writer.member("phone_number", phoneNumber)
        writer.member("picture", picture)
        writer.member("provider_id", providerId)
        writer.member("sid", sid)
        writer.member("sub", sub)
        writer.member("user_id", userId)
        writer.endObject()
    }
}

extension FirebaseClaim: JSONWritable {
    func write(to writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.key("identities")
        writer.beginObject()
        for (provider, identifiers) in identities.sorted(by: { $0.key < $1.key }) {
            writer.key(provider)
            writer.beginArray()
            for identifier in identifiers { writer.string(identifier) }
            writer.endArray()
        }
        writer.endObject()
        writer.member("second_factor_identifier", secondFactorIdentifier)
        writer.member("session_epoch", sessionEpoch)
        try writer.member("sign_in_attributes", encoded: signInAttributes)
        writer.member("sign_in_provider", signInProvider)
        writer.member("sign_in_second_factor", signInSecondFactor)
        writer.member("tenant", tenant)
        writer.endObject()
    }
}

// The claims of ID tokens read back without `JSONDecoder` (see `JSONReader`): every lookup with a token the server
// has not verified yet reads them, and every call that carries a token reads its tenant. A claim of the wrong type, or
// a required one missing, makes the whole token unreadable, as it does for the Codable conformance.

extension IDTokenClaims {
    /// The claims in a token's payload JSON; nil when it is not JSON or lacks a claim Flint's tokens always carry.
    init?(json: some Collection<UInt8>) {
        guard case .object(let claims)? = try? JSONReader.parse(json),
              let iss = claims["iss"]?.stringValue, let aud = claims["aud"]?.stringValue,
              let authTime = claims["auth_time"]?.integer, let userID = claims["user_id"]?.stringValue,
              let sub = claims["sub"]?.stringValue, let iat = claims["iat"]?.integer, let exp = claims["exp"]?.integer,
              case .object(let firebase)? = claims["firebase"], let firebaseClaim = FirebaseClaim(firebase)
        else { return nil }
        var strings: [String: String] = [:]
        for name in ["email", "phone_number", "name", "picture", "provider_id", "sid"] {
            guard let value = claims[name], value != .null else { continue }
            guard let string = value.stringValue else { return nil }
            strings[name] = string
        }
        let emailVerified: Bool?
        switch claims["email_verified"] {
        case nil, .null?: emailVerified = nil
        case .bool(let value)?: emailVerified = value
        default: return nil
        }
        self.init(iss: iss, aud: aud, authTime: authTime, userId: userID, iat: iat, exp: exp, email: strings["email"],
                  emailVerified: emailVerified, phoneNumber: strings["phone_number"], name: strings["name"],
                  picture: strings["picture"], providerId: strings["provider_id"], sid: strings["sid"], firebase: firebaseClaim)
        self.sub = sub
    }

    /// Just `firebase.tenant` of a token's payload JSON, unverified (see `TokenService.unverifiedTenant`).
    static func tenant(json: some Collection<UInt8>) -> String? {
        guard case .object(let claims)? = try? JSONReader.parse(json), case .object(let firebase)? = claims["firebase"] else {
            return nil
        }
        return firebase["tenant"]?.stringValue
    }
}

extension FirebaseClaim {
    fileprivate init?(_ claim: [String: JSONValue]) {
        guard let provider = claim["sign_in_provider"]?.stringValue, case .object(let identityLists)? = claim["identities"]
        else { return nil }
        var identities: [String: [String]] = [:]
        for (providerID, list) in identityLists {
            guard let identifiers = list.arrayValue?.compactMap(\.stringValue), identifiers.count == list.arrayValue?.count
            else { return nil }
            identities[providerID] = identifiers
        }
        var strings: [String: String] = [:]
        for name in ["sign_in_second_factor", "second_factor_identifier", "tenant"] {
            guard let value = claim[name], value != .null else { continue }
            guard let string = value.stringValue else { return nil }
            strings[name] = string
        }
        var sessionEpoch: Int64?
        if let value = claim["session_epoch"], value != .null {
            guard let epoch = value.integer else { return nil }
            sessionEpoch = epoch
        }
        let attributes = claim["sign_in_attributes"].flatMap { $0 == .null ? nil : $0 }
        self.init(identities: identities, signInProvider: provider, signInSecondFactor: strings["sign_in_second_factor"],
                  secondFactorIdentifier: strings["second_factor_identifier"], tenant: strings["tenant"],
                  sessionEpoch: sessionEpoch, signInAttributes: attributes)
    }
}

extension JSONValue {
    /// A whole number that an `Int64` holds exactly, as `JSONDecoder` reads one into an `Int64`.
    fileprivate var integer: Int64? {
        guard case .number(let value) = self, value.rounded(.towardZero) == value, abs(value) <= 9_007_199_254_740_992 else {
            return nil
        }
        return Int64(value)
    }
}
