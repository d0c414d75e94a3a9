import Foundation

/// The page behind `/__/auth/action` (Firebase Hosting's email action handler): HTML, style and script as
/// constants. The script reads its parameters from a JSON data block and calls the public REST API of
/// its own origin with the link's API key: `accounts:resetPassword` (check the code, then set the new
/// password), `accounts:update` (apply a verify/change/recover code) and `accounts:sendOobCode` (offer a
/// password reset after a recovery). Every word it shows comes from the data block, in the link's `lang`.
///
/// The Content-Security-Policy allows exactly this script and style, by hash, and connections to the
/// page's own origin; nothing else loads.
enum ActionPage {
    /// The modes the script handles (`signIn` is a redirect, served before any page).
    enum Mode: String, CaseIterable, Encodable {
        case resetPassword, verifyEmail, verifyAndChangeEmail, recoverEmail
    }

    /// What the script needs, rendered as JSON inside the page.
    struct Configuration: Encodable {
        var mode: Mode
        var oobCode: String
        var apiKey: String
        /// The tenant of the link, sent with every call.
        var tenantId: String?
        var messages: ScriptMessages
    }

    /// The words the script shows; `%EMAIL%` stands for the address the server answers with.
    struct ScriptMessages: Encodable {
        var resetFor: String
        var resetDone: String
        var mismatch: String
        var verifyDone: String
        var changeDone: String
        var recoverDone: String
        var resetSent: String
        var invalidCode: String
        var expiredCode: String
        var weakPassword: String
        var userDisabled: String
        var userNotFound: String
        var emailExists: String
        var tooManyAttempts: String
        var network: String
        var generic: String
    }

    /// The page's words in one language.
    struct Messages {
        var language: String
        var resetTitle: String
        var verifyTitle: String
        var changeTitle: String
        var recoverTitle: String
        var working: String
        var newPassword: String
        var confirmPassword: String
        var save: String
        var continueLink: String
        var sendReset: String
        var noScript: String
        var invalidLink: String
        var unknownMode: String
        var missingCode: String
        var missingAPIKey: String
        var invalidAPIKey: String
        var unauthorizedContinue: String
        var foreignLink: String
        var script: ScriptMessages

        func title(of mode: Mode) -> String {
            switch mode {
            case .resetPassword: resetTitle
            case .verifyEmail: verifyTitle
            case .verifyAndChangeEmail: changeTitle
            case .recoverEmail: recoverTitle
            }
        }
    }

    /// The page for a mode the script handles; `continueURL` (already checked) becomes the link shown
    /// once the action has succeeded.
    static func html(_ configuration: Configuration, continueURL: String?, messages: Messages) throws -> String {
        let title = messages.title(of: configuration.mode)
        let continueLink = continueURL.map {
            #"<p><a id="continue" href="\#(HTML.escape($0))" hidden>\#(HTML.escape(messages.continueLink))</a></p>"#
        } ?? ""
        let form = configuration.mode != .resetPassword ? "" : """
            <form id="reset-form" hidden>
            <input id="username" type="email" autocomplete="username" readonly hidden>
            <label for="new-password">\(HTML.escape(messages.newPassword))</label>
            <input id="new-password" name="new-password" type="password" autocomplete="new-password" required>
            <label for="confirm-password">\(HTML.escape(messages.confirmPassword))</label>
            <input id="confirm-password" name="confirm-password" type="password" autocomplete="new-password" required>
            <button id="save" type="submit">\(HTML.escape(messages.save))</button>
            </form>
            """
        let sendReset = configuration.mode != .recoverEmail ? "" : """
            <p><button id="send-reset" type="button" hidden>\(HTML.escape(messages.sendReset))</button></p>
            """
        return try HostedPage.scripted(
            language: messages.language, title: title, style: style, script: script, configuration: configuration,
            body: """
                <h1 id="title">\(HTML.escape(title))</h1>
                <p id="status" role="status" aria-live="polite">\(HTML.escape(messages.working))</p>
                <p id="error" role="alert" hidden></p>
                \(form)\(sendReset)\(continueLink)
                <noscript><p>\(HTML.escape(messages.noScript))</p></noscript>
                """)
    }

    /// A page explaining why the link cannot be used (no script).
    static func errorHTML(_ detail: String, messages: Messages) -> String {
        HostedPage.error(language: messages.language, heading: messages.invalidLink, detail: detail, style: style)
    }

    static let contentSecurityPolicy = HostedPage.contentSecurityPolicy(script: script, style: style)
    static let errorContentSecurityPolicy = HostedPage.errorContentSecurityPolicy(style: style)


    /// The messages for `lang` (`fr`, `fr-CA`, `fr_CA` …), English for anything else.
    static func messages(for lang: String?) -> Messages {
        let language = lang?.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? "en"
        return translations[language] ?? translations["en"]!
    }

    static let languages = ["en", "fr", "es", "de"]

    private static let translations: [String: Messages] = [
        "en": Messages(
            language: "en", resetTitle: "Reset your password", verifyTitle: "Verify your email",
            changeTitle: "Confirm your new email", recoverTitle: "Restore your email",
            working: "Checking the link…", newPassword: "New password", confirmPassword: "Confirm the new password",
            save: "Save", continueLink: "Continue", sendReset: "Send me a password reset email",
            noScript: "This page needs JavaScript. Please turn it on and reload the page.",
            invalidLink: "Invalid link", unknownMode: "This link is not valid: it does not say what to do.",
            missingCode: "This link is not valid: its code is missing.",
            missingAPIKey: "This link is not valid: its API key is missing.",
            invalidAPIKey: "This link is not valid: its API key is not known.",
            unauthorizedContinue: "This link cannot continue to its destination, which this project does not allow.",
            foreignLink: "This link does not lead to this site’s own page.",
            script: ScriptMessages(
                resetFor: "Choose a new password for %EMAIL%.",
                resetDone: "Your password has been changed. You can now sign in with your new password.",
                mismatch: "The two passwords do not match.",
                verifyDone: "Your email address has been verified. You can now sign in with your new account.",
                changeDone: "Your sign-in email address has been changed to %EMAIL%.",
                recoverDone: "Your sign-in email address has been changed back to %EMAIL%. If you did not ask for the change, someone may be using your account: consider changing your password.",
                resetSent: "A password reset email has been sent to %EMAIL%.",
                invalidCode: "This link is invalid or has already been used. Please ask for a new one.",
                expiredCode: "This link has expired. Please ask for a new one.",
                weakPassword: "This password is too weak. Please use at least 6 characters.",
                userDisabled: "This account has been disabled.",
                userNotFound: "There is no longer an account for this link.",
                emailExists: "This email address is already used by another account.",
                tooManyAttempts: "Too many attempts. Please try again later.",
                network: "The server could not be reached. Check your connection and try again.",
                generic: "Something went wrong. Please try again.")),
        "fr": Messages(
            language: "fr", resetTitle: "Réinitialisez votre mot de passe", verifyTitle: "Validez votre adresse e-mail",
            changeTitle: "Confirmez votre nouvelle adresse e-mail", recoverTitle: "Rétablissez votre adresse e-mail",
            working: "Vérification du lien…", newPassword: "Nouveau mot de passe",
            confirmPassword: "Confirmez le nouveau mot de passe", save: "Enregistrer", continueLink: "Continuer",
            sendReset: "M’envoyer un e-mail de réinitialisation du mot de passe",
            noScript: "Cette page nécessite JavaScript. Activez-le puis rechargez la page.",
            invalidLink: "Lien non valide", unknownMode: "Ce lien n’est pas valide : il n’indique pas l’action à effectuer.",
            missingCode: "Ce lien n’est pas valide : son code est absent.",
            missingAPIKey: "Ce lien n’est pas valide : sa clé d’API est absente.",
            invalidAPIKey: "Ce lien n’est pas valide : sa clé d’API est inconnue.",
            unauthorizedContinue: "Ce lien ne peut pas mener à sa destination, que ce projet n’autorise pas.",
            foreignLink: "Ce lien ne mène pas à une page de ce site.",
            script: ScriptMessages(
                resetFor: "Choisissez un nouveau mot de passe pour %EMAIL%.",
                resetDone: "Votre mot de passe a été modifié. Vous pouvez maintenant vous connecter avec le nouveau.",
                mismatch: "Les deux mots de passe ne correspondent pas.",
                verifyDone: "Votre adresse e-mail a été validée. Vous pouvez maintenant vous connecter avec votre nouveau compte.",
                changeDone: "Votre adresse e-mail de connexion est désormais %EMAIL%.",
                recoverDone: "Votre adresse e-mail de connexion est redevenue %EMAIL%. Si vous n’avez pas demandé ce changement, quelqu’un utilise peut-être votre compte : pensez à changer votre mot de passe.",
                resetSent: "Un e-mail de réinitialisation du mot de passe a été envoyé à %EMAIL%.",
                invalidCode: "Ce lien n’est pas valide ou a déjà été utilisé. Demandez-en un nouveau.",
                expiredCode: "Ce lien a expiré. Demandez-en un nouveau.",
                weakPassword: "Ce mot de passe est trop faible. Utilisez au moins 6 caractères.",
                userDisabled: "Ce compte a été désactivé.",
                userNotFound: "Il n’existe plus de compte pour ce lien.",
                emailExists: "Cette adresse e-mail est déjà utilisée par un autre compte.",
                tooManyAttempts: "Trop de tentatives. Réessayez plus tard.",
                network: "Le serveur est injoignable. Vérifiez votre connexion puis réessayez.",
                generic: "Une erreur s’est produite. Veuillez réessayer.")),
        "es": Messages(
            language: "es", resetTitle: "Restablece tu contraseña", verifyTitle: "Verifica tu correo electrónico",
            changeTitle: "Confirma tu nuevo correo electrónico", recoverTitle: "Recupera tu correo electrónico",
            working: "Comprobando el enlace…", newPassword: "Nueva contraseña",
            confirmPassword: "Confirma la nueva contraseña", save: "Guardar", continueLink: "Continuar",
            sendReset: "Enviarme un correo para restablecer la contraseña",
            noScript: "Esta página necesita JavaScript. Actívalo y vuelve a cargar la página.",
            invalidLink: "Enlace no válido", unknownMode: "Este enlace no es válido: no indica qué hacer.",
            missingCode: "Este enlace no es válido: le falta el código.",
            missingAPIKey: "Este enlace no es válido: le falta la clave de API.",
            invalidAPIKey: "Este enlace no es válido: su clave de API no es conocida.",
            unauthorizedContinue: "Este enlace no puede llevar a su destino, que este proyecto no permite.",
            foreignLink: "Este enlace no lleva a una página de este sitio.",
            script: ScriptMessages(
                resetFor: "Elige una nueva contraseña para %EMAIL%.",
                resetDone: "Tu contraseña se ha cambiado. Ya puedes iniciar sesión con la nueva contraseña.",
                mismatch: "Las dos contraseñas no coinciden.",
                verifyDone: "Tu correo electrónico se ha verificado. Ya puedes iniciar sesión con tu nueva cuenta.",
                changeDone: "Tu correo electrónico de inicio de sesión ahora es %EMAIL%.",
                recoverDone: "Tu correo electrónico de inicio de sesión vuelve a ser %EMAIL%. Si no pediste el cambio, puede que alguien esté usando tu cuenta: te recomendamos cambiar la contraseña.",
                resetSent: "Se ha enviado un correo para restablecer la contraseña a %EMAIL%.",
                invalidCode: "Este enlace no es válido o ya se ha usado. Solicita uno nuevo.",
                expiredCode: "Este enlace ha caducado. Solicita uno nuevo.",
                weakPassword: "Esta contraseña es demasiado débil. Usa al menos 6 caracteres.",
                userDisabled: "Esta cuenta se ha inhabilitado.",
                userNotFound: "Ya no existe ninguna cuenta para este enlace.",
                emailExists: "Este correo electrónico ya lo usa otra cuenta.",
                tooManyAttempts: "Demasiados intentos. Inténtalo de nuevo más tarde.",
                network: "No se ha podido contactar con el servidor. Comprueba tu conexión y vuelve a intentarlo.",
                generic: "Se ha producido un error. Inténtalo de nuevo.")),
        "de": Messages(
            language: "de", resetTitle: "Passwort zurücksetzen", verifyTitle: "E-Mail-Adresse bestätigen",
            changeTitle: "Neue E-Mail-Adresse bestätigen", recoverTitle: "E-Mail-Adresse wiederherstellen",
            working: "Link wird geprüft…", newPassword: "Neues Passwort",
            confirmPassword: "Neues Passwort bestätigen", save: "Speichern", continueLink: "Weiter",
            sendReset: "E-Mail zum Zurücksetzen des Passworts senden",
            noScript: "Diese Seite benötigt JavaScript. Bitte aktivieren Sie es und laden Sie die Seite neu.",
            invalidLink: "Ungültiger Link", unknownMode: "Dieser Link ist ungültig: Er gibt keine Aktion an.",
            missingCode: "Dieser Link ist ungültig: Der Code fehlt.",
            missingAPIKey: "Dieser Link ist ungültig: Der API-Schlüssel fehlt.",
            invalidAPIKey: "Dieser Link ist ungültig: Der API-Schlüssel ist unbekannt.",
            unauthorizedContinue: "Dieser Link kann nicht zu seinem Ziel führen, da dieses Projekt es nicht erlaubt.",
            foreignLink: "Dieser Link führt nicht zu einer Seite dieser Website.",
            script: ScriptMessages(
                resetFor: "Wählen Sie ein neues Passwort für %EMAIL%.",
                resetDone: "Ihr Passwort wurde geändert. Sie können sich jetzt mit dem neuen Passwort anmelden.",
                mismatch: "Die beiden Passwörter stimmen nicht überein.",
                verifyDone: "Ihre E-Mail-Adresse wurde bestätigt. Sie können sich jetzt mit Ihrem neuen Konto anmelden.",
                changeDone: "Ihre Anmelde-E-Mail-Adresse lautet jetzt %EMAIL%.",
                recoverDone: "Ihre Anmelde-E-Mail-Adresse lautet wieder %EMAIL%. Wenn Sie die Änderung nicht angefordert haben, verwendet möglicherweise jemand Ihr Konto: Ändern Sie am besten Ihr Passwort.",
                resetSent: "Eine E-Mail zum Zurücksetzen des Passworts wurde an %EMAIL% gesendet.",
                invalidCode: "Dieser Link ist ungültig oder wurde bereits verwendet. Bitte fordern Sie einen neuen an.",
                expiredCode: "Dieser Link ist abgelaufen. Bitte fordern Sie einen neuen an.",
                weakPassword: "Dieses Passwort ist zu schwach. Verwenden Sie mindestens 6 Zeichen.",
                userDisabled: "Dieses Konto wurde deaktiviert.",
                userNotFound: "Zu diesem Link gibt es kein Konto mehr.",
                emailExists: "Diese E-Mail-Adresse wird bereits von einem anderen Konto verwendet.",
                tooManyAttempts: "Zu viele Versuche. Bitte versuchen Sie es später erneut.",
                network: "Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.",
                generic: "Etwas ist schiefgelaufen. Bitte versuchen Sie es erneut.")),
    ]

    static let style = """
        body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:2rem 1rem;\
        color:#1f1f1f;background:#fff;line-height:1.5}main{max-width:28rem;margin:0 auto}\
        h1{font-size:1.25rem;font-weight:600}a{color:#0b57d0}#error{color:#b3261e}\
        form{display:flex;flex-direction:column;gap:.5rem}form[hidden],[hidden]{display:none}\
        input{font:inherit;padding:.5rem;border:1px solid #747775;border-radius:.25rem}\
        button{font:inherit;padding:.5rem 1rem;border:0;border-radius:.25rem;background:#0b57d0;color:#fff;cursor:pointer}\
        button:disabled{opacity:.6;cursor:default}label{font-weight:500;margin-top:.5rem}\
        @media (prefers-color-scheme:dark){body{color:#e3e3e3;background:#1f1f1f}a{color:#a8c7fa}#error{color:#f2b8b5}\
        input{background:#2b2b2b;color:#e3e3e3}}
        """

    /// Calls the REST API of the page's own origin with the link's key and shows the outcome in words.
    /// Error replies carry Firebase's `{"error":{"message":"CODE : detail"}}`; the code picks the words.
    static let script = """
        (() => {
          const config = JSON.parse(document.getElementById('flint-config').textContent);
          const words = config.messages;
          const byId = (id) => document.getElementById(id);
          const status = byId('status');
          const errorBox = byId('error');
          // data-flint-state on <html>: form (waiting for input), busy, done or error; tests and styles read it.
          const setState = (state) => { document.documentElement.dataset.flintState = state; };
          const show = (text) => { status.textContent = text; };
          const fail = (text) => {
            errorBox.textContent = text; errorBox.hidden = false; status.textContent = ''; setState('error');
          };
          const clearError = () => { errorBox.textContent = ''; errorBox.hidden = true; };
          const withEmail = (text, email) => text.split('%EMAIL%').join(email || '');
          const showContinue = () => { const link = byId('continue'); if (link) link.hidden = false; };
          const describe = (code) => {
            switch (code) {
              case 'INVALID_OOB_CODE': return words.invalidCode;
              case 'EXPIRED_OOB_CODE': return words.expiredCode;
              case 'WEAK_PASSWORD': return words.weakPassword;
              case 'USER_DISABLED': return words.userDisabled;
              case 'USER_NOT_FOUND': case 'EMAIL_NOT_FOUND': return words.userNotFound;
              case 'EMAIL_EXISTS': return words.emailExists;
              case 'TOO_MANY_ATTEMPTS_TRY_LATER': case 'RESET_PASSWORD_EXCEED_LIMIT': return words.tooManyAttempts;
              default: return words.generic;
            }
          };
          class CallError extends Error {}
          const call = async (name, body) => {
            let response, reply;
            try {
              response = await fetch('/v1/accounts:' + name + '?key=' + encodeURIComponent(config.apiKey), {
                method: 'POST', headers: { 'Content-Type': 'application/json' }, credentials: 'omit', cache: 'no-store',
                body: JSON.stringify(config.tenantId ? { ...body, tenantId: config.tenantId } : body),
              });
              reply = await response.json();
            } catch (error) {
              throw new CallError(words.network);
            }
            if (response.ok) return reply;
            const message = (reply && reply.error && reply.error.message) || '';
            throw new CallError(describe(message.split(':')[0].trim()));
          };
          const failWith = (error) => fail(error instanceof CallError ? error.message : words.generic);

          const resetPassword = async () => {
            const form = byId('reset-form');
            const first = byId('new-password');
            const second = byId('confirm-password');
            const save = byId('save');
            let email;
            try {
              email = (await call('resetPassword', { oobCode: config.oobCode })).email;
            } catch (error) {
              failWith(error);
              return;
            }
            byId('username').value = email || '';
            show(withEmail(words.resetFor, email));
            form.hidden = false;
            setState('form');
            first.focus();
            form.addEventListener('submit', async (event) => {
              event.preventDefault();
              clearError();
              if (first.value !== second.value) {
                fail(words.mismatch);
                show(withEmail(words.resetFor, email));
                setState('form');
                return;
              }
              save.disabled = true;
              setState('busy');
              try {
                await call('resetPassword', { oobCode: config.oobCode, newPassword: first.value });
              } catch (error) {
                failWith(error);
                show(withEmail(words.resetFor, email));
                save.disabled = false;
                setState('form');
                return;
              }
              form.hidden = true;
              form.reset();
              show(words.resetDone);
              showContinue();
              setState('done');
            });
          };

          const applyCode = async () => {
            let reply;
            try {
              reply = await call('update', { oobCode: config.oobCode });
            } catch (error) {
              failWith(error);
              return;
            }
            if (config.mode === 'verifyEmail') {
              show(words.verifyDone);
            } else if (config.mode === 'verifyAndChangeEmail') {
              show(withEmail(words.changeDone, reply.email));
            } else {
              show(withEmail(words.recoverDone, reply.email));
              const button = byId('send-reset');
              button.hidden = false;
              button.addEventListener('click', async () => {
                button.disabled = true;
                clearError();
                setState('busy');
                try {
                  await call('sendOobCode', { requestType: 'PASSWORD_RESET', email: reply.email });
                } catch (error) {
                  failWith(error);
                  button.disabled = false;
                  return;
                }
                button.hidden = true;
                show(withEmail(words.resetSent, reply.email));
                setState('done');
              });
            }
            showContinue();
            setState('done');
          };

          if (config.mode === 'resetPassword') resetPassword(); else applyCode();
        })();
        """
}
