import FlintWire

/// The RPCs of email action codes.
extension AuthBackend {
    /// `accounts:sendOobCode`: emails an action link.
    func sendOobCode(_ request: SendOobCodeRequest) async throws {
        let _: LenientResponse = try await post(.sendOobCode, request)
    }

    /// `accounts:signInWithEmailLink`: signs in (or, with `idToken`, links) with an email and the code
    /// of a sign-in link.
    func signInWithEmailLink(email: String, oobCode: String, idToken: String?) async throws -> SignInResponse {
        let request = SignInWithEmailLinkRequest(email: email, oobCode: oobCode, idToken: idToken)
        let response: SignInWithEmailLinkResponse = try await postFirstFactor(.signInWithEmailLink, request)
        guard let token = response.idToken, !token.isEmpty, let localID = response.localId, !localID.isEmpty else {
            throw AuthErrorUtils.internalError(response: "accounts:signInWithEmailLink answered without an ID token or localId")
        }
        return SignInResponse(localId: localID, email: response.email, idToken: token, refreshToken: response.refreshToken,
                              expiresIn: response.expiresIn, isNewUser: response.isNewUser)
    }

    /// `accounts:resetPassword`: with `newPassword`, applies a password-reset code; without, says what a
    /// code is for.
    func resetPassword(oobCode: String, newPassword: String?) async throws -> ResetPasswordResponse {
        let request = ResetPasswordRequest(oobCode: oobCode, newPassword: newPassword)
        return try await post(.resetPassword, request)
    }

    /// `accounts:update` with only an action code (verify email, recover email, verify and change email).
    func applyActionCode(_ oobCode: String) async throws {
        var request = UpdateAccountRequest(returnSecureToken: nil)
        request.oobCode = oobCode
        let _: LenientResponse = try await post(.update, request)
    }

    /// An answer whose content does not matter, as long as it is a JSON object.
    private struct LenientResponse: Decodable {}
}
