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
