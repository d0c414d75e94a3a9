import FlintAuth

/// Error handling as apps wrote it for FirebaseAuth 11 (`error.code` on an `AuthErrorCode`) and 10
/// (`AuthErrorCode.Code`).
final class ErrorCodeViewController: SnippetViewController {
    func signIn(email: String, password: String) async {
        do {
            try await Auth.auth().signIn(withEmail: email, password: password)
        } catch let error as AuthErrorCode {
            switch error.code {
            case .userNotFound: showMessagePrompt("No account for \(email)")
            case .wrongPassword, .invalidCredential: showMessagePrompt("Wrong email or password")
            default: showMessagePrompt(error.localizedDescription)
            }
        } catch {
            showMessagePrompt(error.localizedDescription)
        }
    }

    func signInWithCompletion(email: String, password: String) {
        Auth.auth().signIn(withEmail: email, password: password) { _, error in
            guard let error = error as NSError?, let code = AuthErrorCode(rawValue: error.code) else { return }
            switch code {
            case .tooManyRequests: self.showMessagePrompt("Try again later")
            default: self.showMessagePrompt(error.localizedDescription)
            }
        }
    }

    func shouldSignOut(after error: any Error) -> Bool {
        if let authError = error as? AuthErrorCode, authError.code == .networkError {
            return false
        }
        return (error as NSError).code != AuthErrorCode.Code.networkError.rawValue
    }
}
