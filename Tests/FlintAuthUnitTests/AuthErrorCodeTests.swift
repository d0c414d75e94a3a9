import FlintAuth
import Foundation
import Testing

/// `AuthErrorCode` as code written for FirebaseAuth 10 and 11 uses it.
@Suite struct AuthErrorCodeTests {
    @Test func aServerErrorSwitchesOnItsCode() async throws {
        try await withStubAuth { auth in
            do {
                try await auth.signIn(withEmail: "nobody@example.com", password: "secret1")
                Issue.record("The sign-in succeeded")
            } catch {
                let error = error as NSError
                #expect(error.domain == AuthErrorDomain)
                #expect(error.code == AuthErrorCode.userNotFound.rawValue)
                #expect(error.code == AuthErrorCode.Code.userNotFound.rawValue)
                let code = try #require(AuthErrorCode(rawValue: error.code))
                switch code.code {
                case .userNotFound: break
                default: Issue.record("\(code.name)")
                }
                #expect(AuthErrorCode(error)?.code == .userNotFound)
                #expect(AuthErrorCode.Code(rawValue: error.code) == .userNotFound)
            }
        }
    }

    @Test func aThrownCodeIsCaughtAsAuthErrorCode() {
        do {
            throw AuthErrorCode.wrongPassword
        } catch let error as AuthErrorCode {
            #expect(error.code == .wrongPassword)
            let bridged = error as NSError
            #expect(bridged.domain == AuthErrorDomain)
            #expect(bridged.code == AuthErrorCode.Code.wrongPassword.rawValue)
            #expect(bridged.userInfo[AuthErrorUserInfoNameKey] as? String == "ERROR_WRONG_PASSWORD")
        } catch {
            Issue.record("Not caught as AuthErrorCode: \(error)")
        }
    }

    @Test func everyCodeIsItsOwnCode() {
        #expect(AuthErrorCode.allCases.allSatisfy { $0.code == $0 && AuthErrorCode.Code(rawValue: $0.rawValue) == $0 })
    }
}
