import FlintWire

// The account answers every sign-in and lookup sends, written without `JSONEncoder` (see `JSONWriter`). Members are
// written in the encoder's sorted order.

extension SignInResponse: JSONWritable {
    func write(to writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.member("displayName", displayName)
        writer.member("email", email)
        writer.member("expiresIn", expiresIn)
        writer.member("idToken", idToken)
        writer.member("isNewUser", isNewUser)
        writer.member("kind", kind)
        writer.member("localId", localId)
        try writer.member("mfaInfo", encoded: mfaInfo)
        writer.member("mfaPendingCredential", mfaPendingCredential)
        writer.member("refreshToken", refreshToken)
        writer.member("registered", registered)
        writer.endObject()
    }
}

extension LookupResponse: JSONWritable {
    func write(to writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.member("kind", kind)
        try writer.member("users", users)
        writer.endObject()
    }
}

extension UserRecord: JSONWritable {
    func write(to writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.member("createdAt", createdAt)
        writer.member("customAttributes", customAttributes)
        writer.member("disabled", disabled)
        writer.member("displayName", displayName)
        writer.member("email", email)
        writer.member("emailLinkSignin", emailLinkSignin)
        writer.member("emailVerified", emailVerified)
        writer.member("lastLoginAt", lastLoginAt)
        writer.member("lastRefreshAt", lastRefreshAt)
        writer.member("localId", localId)
        try writer.member("mfaInfo", encoded: mfaInfo)
        try writer.member("passkeyInfo", encoded: passkeyInfo)
        writer.member("passwordHash", passwordHash)
        if let passwordUpdatedAt {
            // Milliseconds, whole in practice: written as the encoder writes a whole Double.
            if let whole = Int64(exactly: passwordUpdatedAt), abs(whole) < 1 << 53 {
                writer.member("passwordUpdatedAt", whole)
            } else {
                try writer.member("passwordUpdatedAt", encoded: passwordUpdatedAt)
            }
        }
        writer.member("phoneNumber", phoneNumber)
        writer.member("photoUrl", photoUrl)
        try writer.member("providerUserInfo", providerUserInfo)
        writer.member("rawPassword", rawPassword)
        writer.member("salt", salt)
        writer.member("screenName", screenName)
        writer.member("tenantId", tenantId)
        writer.member("validSince", validSince)
        writer.endObject()
    }
}

extension ProviderUserInfo: JSONWritable {
    func write(to writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.member("displayName", displayName)
        writer.member("email", email)
        writer.member("federatedId", federatedId)
        writer.member("phoneNumber", phoneNumber)
        writer.member("photoUrl", photoUrl)
        writer.member("providerId", providerId)
        writer.member("rawId", rawId)
        writer.member("screenName", screenName)
        writer.endObject()
    }
}
