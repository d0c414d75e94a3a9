import FlintWire
import Foundation

/// A phone number's proof of possession, for `Auth.signIn(with:)`, `User.link(with:)`,
/// `User.reauthenticate(with:)` and `User.updatePhoneNumber(_:)`.
///
/// Either a verification ID and the code texted to the number (from
/// `PhoneAuthProvider.credential(withVerificationID:verificationCode:)`), or a temporary proof the
/// server issued when the number turned out to belong to another account (found under
/// `AuthErrorUserInfoUpdatedCredentialKey` of a `credentialAlreadyInUse` error).
public final class PhoneAuthCredential: AuthCredential, @unchecked Sendable {
    // @unchecked Sendable: immutable, as `AuthCredential` requires (`PhoneVerificationCache` is Sendable).

    enum Kind: Sendable, Equatable {
        case verification(id: String, code: String)
        case temporaryProof(proof: String, phoneNumber: String)
    }

    let kind: Kind
    /// The cache of the provider that sent the code, told when the verification ID is used up.
    private let issuer: PhoneVerificationCache?

    init(verificationID: String, verificationCode: String, issuer: PhoneVerificationCache?) {
        kind = .verification(id: verificationID, code: verificationCode)
        self.issuer = issuer
        super.init(provider: PhoneAuthProvider.id)
    }

    init(temporaryProof: String, phoneNumber: String) {
        kind = .temporaryProof(proof: temporaryProof, phoneNumber: phoneNumber)
        issuer = nil
        super.init(provider: PhoneAuthProvider.id)
    }

    override func signInResponse(for operation: CredentialOperation, backend: AuthBackend) async throws -> SignInResponse {
        switch operation {
        case .signIn:
            try await exchange(.signUpOrIn, idToken: nil, backend: backend)
        case .link(let idToken):
            try await exchange(.link, idToken: idToken, backend: backend)
        case .reauthenticate:
            try await exchange(.reauth, idToken: nil, backend: backend)
        }
    }

    /// `accounts:signInWithPhoneNumber` for `operation`; the answer's tokens as a sign-in answer.
    ///
    /// An answer with `temporaryProof` and `phoneNumber` instead of tokens means that the number belongs
    /// to another account: that is a `credentialAlreadyInUse` error carrying a credential of the proof.
    func exchange(_ operation: PhoneOperation, idToken: String?, backend: AuthBackend) async throws -> SignInResponse {
        var request: SignInWithPhoneNumberRequest
        var verificationID: String?
        switch kind {
        case .verification(let id, let code):
            try Self.check(verificationID: id, code: code)
            request = SignInWithPhoneNumberRequest(sessionInfo: id, code: code)
            verificationID = id
        case .temporaryProof(let proof, let phoneNumber):
            request = SignInWithPhoneNumberRequest(temporaryProof: proof, phoneNumber: phoneNumber)
        }
        request.idToken = idToken
        request.operation = operation

        let response: SignInWithPhoneNumberResponse
        do {
            response = try await backend.signInWithPhoneNumber(request)
        } catch {
            // Only a wrong code (with tries left) or a lost answer may leave the verification usable;
            // otherwise the next `verifyPhoneNumber` must send a new code.
            if let verificationID, ![.invalidVerificationCode, .networkError].contains(AuthErrorCode(error)) {
                issuer?.forget(verificationID: verificationID)
            }
            throw error
        }
        // The server has consumed the code, whatever the outcome.
        if let verificationID {
            issuer?.forget(verificationID: verificationID)
        }

        guard let token = response.idToken, !token.isEmpty else {
            if let proof = response.temporaryProof, !proof.isEmpty, let phoneNumber = response.phoneNumber {
                throw AuthErrorUtils.credentialAlreadyInUse(
                    updatedCredential: PhoneAuthCredential(temporaryProof: proof, phoneNumber: phoneNumber),
                    phoneNumber: phoneNumber)
            }
            throw AuthErrorUtils.internalError(response: "accounts:signInWithPhoneNumber answered without an ID token")
        }
        guard let localID = response.localId, !localID.isEmpty else {
            throw AuthErrorUtils.internalError(response: "accounts:signInWithPhoneNumber answered without a localId")
        }
        return SignInResponse(localId: localID, idToken: token, refreshToken: response.refreshToken,
                              expiresIn: response.expiresIn, isNewUser: response.isNewUser)
    }

    /// The verification ID and code as a second factor's `phoneVerificationInfo`. A temporary proof is
    /// no second factor: `invalidCredential`.
    func verificationInfo() throws -> PhoneVerificationInfo {
        guard case .verification(let id, let code) = kind else {
            throw AuthErrorUtils.error(.invalidCredential,
                                       message: "A phone credential of a temporary proof cannot prove a second factor.")
        }
        try Self.check(verificationID: id, code: code)
        return PhoneVerificationInfo(sessionInfo: id, code: code)
    }

    private static func check(verificationID: String, code: String) throws {
        guard !verificationID.isEmpty else { throw AuthErrorUtils.error(.missingVerificationID) }
        guard !code.isEmpty else { throw AuthErrorUtils.error(.missingVerificationCode) }
    }
}
