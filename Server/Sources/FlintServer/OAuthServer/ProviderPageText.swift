import FlintWire
import Foundation

/// The words of the provider's pages, in the languages Flint ships and those the project writes (`oauthServer.pageText`;
/// `ui_locales` picks one, else English). Messages for the REST API's errors are the script's to show.
struct ProviderPageText: Codable, Sendable {
    var signInHeading: String
    var email: String
    var password: String
    var newPassword: String
    var signIn: String
    var createAccount: String
    var forgotPassword: String
    var sendResetLink: String
    var resetSent: String
    var back: String
    var secondFactorHeading: String
    var authenticatorCode: String
    var verify: String
    var noMethods: String
    var emailLinkHeading: String
    var sendSignInLink: String
    var linkSent: String
    var confirmEmailHeading: String
    var continueButton: String
    var phoneHeading: String
    var phoneNumber: String
    var sendCode: String
    var smsCode: String
    var checking: String
    var usePasskey: String
    var otherMethods: String
    var continueWithFormat: String
    var codeSentFormat: String
    var useAuthenticator: String
    var useTextMessageFormat: String
    var deviceHeading: String
    var deviceCode: String
    var deviceApproved: String
    var deviceDenied: String
    var deviceExpired: String
    var deviceUnknownCode: String
    var deviceTooManyAttempts: String
    var allow: String
    var deny: String
    var continueToFormat: String
    var consentFormat: String
    var wantsToFormat: String
    var signedInAsFormat: String
    var byFormat: String
    var scopeDescriptions: [String: String]
    /// Messages for the REST API's error codes the page may meet; `default` for the rest.
    var errors: [String: String]

    func continueTo(_ client: String) -> String { continueToFormat.replacingOccurrences(of: "%@", with: client) }
    func consentHeading(_ client: String) -> String { consentFormat.replacingOccurrences(of: "%@", with: client) }
    func wantsTo(_ client: String) -> String { wantsToFormat.replacingOccurrences(of: "%@", with: client) }
    func signedInAs(_ account: String) -> String { signedInAsFormat.replacingOccurrences(of: "%@", with: account) }
    func by(_ owner: String) -> String { byFormat.replacingOccurrences(of: "%@", with: owner) }
    func continueWith(_ provider: String) -> String { continueWithFormat.replacingOccurrences(of: "%@", with: provider) }
    func describe(scope: String) -> String { scopeDescriptions[scope] ?? scope }

    /// The first of `locales` (by language: `fr-CA` is French) that Flint or the project (`custom`, by language) has
    /// words for, else English; the project's words over Flint's.
    static func forLocales(_ locales: [String], custom: [String: [String: String]] = [:])
        -> (language: String, text: ProviderPageText) {
        let language = locales.lazy.map { String($0.lowercased().prefix { $0.isLetter }) }
            .first { shipped[$0] != nil || custom[$0] != nil } ?? "en"
        return (language, (shipped[language] ?? english).overridden(by: custom[language] ?? [:]))
    }

    private static let shipped = ["en": english, "fr": french]

    /// These words with some replaced: a field by its name (`signInHeading`), an error's message or a scope's
    /// description by `errors.<CODE>` or `scopes.<scope>`. Fields are checked when the project sets them (`problem`).
    func overridden(by texts: [String: String]) -> ProviderPageText {
        guard !texts.isEmpty, case .object(var fields)? = json else { return self }
        for (name, words) in texts {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            if parts.count == 2, let group = Self.groups[parts[0]], case .object(var entries)? = fields[group] {
                entries[parts[1]] = .string(words)
                fields[group] = .object(entries)
            } else if case .string? = fields[name] {
                fields[name] = .string(words)
            }
        }
        return (try? JSONDecoder().decode(ProviderPageText.self, from: JSONEncoder().encode(JSONValue.object(fields)))) ?? self
    }

    /// The words as JSON, field by field.
    private var json: JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(self))
    }

    /// The groups a dotted field name may name, by prefix.
    private static let groups = ["errors": "errors", "scopes": "scopeDescriptions"]

    /// What is wrong with a project's words for one language, or nil: an unknown field, a format without its `%@`,
    /// empty or overlong words.
    static func problem(with texts: [String: String]) -> String? {
        guard case .object(let fields)? = english.json else { return "cannot be read" }
        for (name, words) in texts {
            let parts = name.split(separator: ".", maxSplits: 1)
            let known = parts.count == 2 ? groups[String(parts[0])] != nil && !parts[1].isEmpty && parts[1].count <= 64
                : fields[name]?.stringValue != nil
            guard known else { return "\(name) is not a field of the pages." }
            guard !words.isEmpty, words.count <= 1000 else { return "\(name) must be 1 to 1000 characters." }
            guard !name.hasSuffix("Format") || words.contains("%@") else { return "\(name) must contain %@." }
        }
        return nil
    }

    /// A primary language subtag: two or three lowercase letters.
    static func isLanguage(_ text: String) -> Bool {
        (2...3).contains(text.count) && text.allSatisfy { $0.isASCII && $0.isLowercase }
    }

    static let english = ProviderPageText(
        signInHeading: "Sign in", email: "Email", password: "Password", newPassword: "New password", signIn: "Sign in",
        createAccount: "Create an account", forgotPassword: "Forgot your password?", sendResetLink: "Send a reset link",
        resetSent: "If an account uses this email, a link to reset its password is on its way.", back: "Back",
        secondFactorHeading: "Two-step verification", authenticatorCode: "Code from your authenticator app", verify: "Verify",
        noMethods: "No sign-in method is enabled for this service.",
        emailLinkHeading: "Sign in with a link", sendSignInLink: "Email me a sign-in link",
        linkSent: "Check your email: the link we sent signs you in. Open it in this browser.",
        confirmEmailHeading: "Confirm your email", continueButton: "Continue", phoneHeading: "Sign in with your phone",
        phoneNumber: "Phone number", sendCode: "Text me a code", smsCode: "Code from the text message",
        checking: "Checking this browser…", usePasskey: "Sign in with a passkey", otherMethods: "Other ways to sign in",
        continueWithFormat: "Continue with %@", codeSentFormat: "We sent a code to %@.",
        useAuthenticator: "Use your authenticator app", useTextMessageFormat: "Text a code to %@",
        deviceHeading: "Connect a device", deviceCode: "Code shown on your device",
        deviceApproved: "Your device is connected. You can close this window.", deviceDenied: "The device was not allowed.",
        deviceExpired: "This code has expired. Start again on your device.",
        deviceUnknownCode: "That code is not valid, or has expired.", deviceTooManyAttempts: "Too many codes were tried. Wait a minute.",
        allow: "Allow", deny: "Deny",
        continueToFormat: "Sign in to continue to %@", consentFormat: "%@ wants to access your account",
        wantsToFormat: "%@ is asking to:", signedInAsFormat: "Signed in as %@", byFormat: "by %@",
        scopeDescriptions: [
            "openid": "Know who you are", "email": "See your email address", "profile": "See your name and picture",
            "phone": "See your phone number", "offline_access": "Stay connected while you are away",
        ],
        errors: [
            "INVALID_LOGIN_CREDENTIALS": "The email or password is not right.", "EMAIL_EXISTS": "An account already uses this email.",
            "WEAK_PASSWORD": "Choose a longer password.", "INVALID_EMAIL": "Enter a valid email address.",
            "INVALID_CODE": "The code is not right.", "USER_DISABLED": "This account is disabled.",
            "TOO_MANY_ATTEMPTS_TRY_LATER": "Too many attempts. Try again later.",
            "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": "Please sign in again.",
            "INVALID_PHONE_NUMBER": "Enter the number with its country code, like +14155550100.",
            "SESSION_EXPIRED": "The code has expired. Ask for a new one.", "INVALID_OOB_CODE": "This link is not valid any more.",
            "EXPIRED_OOB_CODE": "This link has expired. Ask for a new one.", "QUOTA_EXCEEDED": "Too many codes. Try again later.",
            "passkey": "No passkey was used.",
            "default": "Something went wrong. Please try again.",
        ])

    static let french = ProviderPageText(
        signInHeading: "Connexion", email: "Adresse e-mail", password: "Mot de passe", newPassword: "Nouveau mot de passe",
        signIn: "Se connecter", createAccount: "Créer un compte", forgotPassword: "Mot de passe oublié ?",
        sendResetLink: "Envoyer un lien de réinitialisation",
        resetSent: "Si un compte utilise cette adresse, un lien pour réinitialiser son mot de passe est en route.", back: "Retour",
        secondFactorHeading: "Validation en deux étapes", authenticatorCode: "Code de votre application d’authentification",
        verify: "Valider", noMethods: "Aucun moyen de connexion n’est activé pour ce service.",
        emailLinkHeading: "Se connecter par un lien", sendSignInLink: "M’envoyer un lien de connexion",
        linkSent: "Consultez vos e-mails : le lien envoyé vous connecte. Ouvrez-le dans ce navigateur.",
        confirmEmailHeading: "Confirmez votre adresse", continueButton: "Continuer", phoneHeading: "Se connecter par téléphone",
        phoneNumber: "Numéro de téléphone", sendCode: "M’envoyer un code par SMS", smsCode: "Code reçu par SMS",
        checking: "Vérification du navigateur…", usePasskey: "Se connecter avec une clé d’accès",
        otherMethods: "Autres moyens de connexion", continueWithFormat: "Continuer avec %@", codeSentFormat: "Code envoyé au %@.",
        useAuthenticator: "Utiliser votre application d’authentification", useTextMessageFormat: "Recevoir un code par SMS au %@",
        deviceHeading: "Connecter un appareil", deviceCode: "Code affiché sur votre appareil",
        deviceApproved: "Votre appareil est connecté. Vous pouvez fermer cette fenêtre.", deviceDenied: "L’appareil n’a pas été autorisé.",
        deviceExpired: "Ce code a expiré. Recommencez sur votre appareil.",
        deviceUnknownCode: "Ce code n’est pas valide, ou a expiré.", deviceTooManyAttempts: "Trop de codes essayés. Attendez une minute.",
        allow: "Autoriser", deny: "Refuser",
        continueToFormat: "Connectez-vous pour continuer vers %@", consentFormat: "%@ souhaite accéder à votre compte",
        wantsToFormat: "%@ demande à :", signedInAsFormat: "Connecté en tant que %@", byFormat: "par %@",
        scopeDescriptions: [
            "openid": "Savoir qui vous êtes", "email": "Voir votre adresse e-mail", "profile": "Voir votre nom et votre photo",
            "phone": "Voir votre numéro de téléphone", "offline_access": "Rester connecté en votre absence",
        ],
        errors: [
            "INVALID_LOGIN_CREDENTIALS": "L’adresse ou le mot de passe est incorrect.",
            "EMAIL_EXISTS": "Un compte utilise déjà cette adresse.", "WEAK_PASSWORD": "Choisissez un mot de passe plus long.",
            "INVALID_EMAIL": "Saisissez une adresse e-mail valide.", "INVALID_CODE": "Le code est incorrect.",
            "USER_DISABLED": "Ce compte est désactivé.", "TOO_MANY_ATTEMPTS_TRY_LATER": "Trop de tentatives. Réessayez plus tard.",
            "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": "Veuillez vous reconnecter.",
            "INVALID_PHONE_NUMBER": "Saisissez le numéro avec son indicatif, comme +33612345678.",
            "SESSION_EXPIRED": "Le code a expiré. Demandez-en un nouveau.", "INVALID_OOB_CODE": "Ce lien n’est plus valide.",
            "EXPIRED_OOB_CODE": "Ce lien a expiré. Demandez-en un nouveau.", "QUOTA_EXCEEDED": "Trop de codes. Réessayez plus tard.",
            "passkey": "Aucune clé d’accès n’a été utilisée.",
            "default": "Une erreur est survenue. Veuillez réessayer.",
        ])
}
