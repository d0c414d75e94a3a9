/// The sections of Flint's sign-in page, one per step of a method; the script shows one at a time. Each form is
/// labelled by its heading, has one submit button, and its fields carry the standard `autocomplete` tokens.
enum SignInSections {
    static func all(_ methods: ProviderPages.Methods, hint: String, text: ProviderPageText) -> String {
        var sections = [main(methods, hint: hint, text: text)]
        if methods.password {
            if methods.signUp {
                sections.append(section("sign-up", heading: text.createAccount, fields: [
                    emailField("new-email", hint: hint, text: text),
                    field("new-password", label: text.newPassword, attributes: "name=\"password\" type=\"password\" autocomplete=\"new-password\" minlength=\"6\""),
                ], submit: text.createAccount, back: text.back))
            }
            sections.append(section("reset", heading: text.forgotPassword, fields: [emailField("reset-email", hint: hint, text: text)],
                                    submit: text.sendResetLink, back: text.back))
        }
        if methods.emailLink {
            sections.append(section("email-link", heading: text.emailLinkHeading, fields: [emailField("link-email", hint: hint, text: text)],
                                    submit: text.sendSignInLink, back: text.back))
            sections.append(section("email-link-confirm", heading: text.confirmEmailHeading,
                                    fields: [emailField("confirm-email", hint: hint, text: text)], submit: text.continueButton))
        }
        if methods.phone {
            sections.append(section("phone", heading: text.phoneHeading, fields: [
                field("phone-number", label: text.phoneNumber,
                      attributes: "name=\"phone\" type=\"tel\" autocomplete=\"tel\" placeholder=\"+14155550100\""),
            ], submit: text.sendCode, back: text.back))
            sections.append(section("phone-code", heading: text.phoneHeading, fields: [codeField("sms-code", label: text.smsCode)],
                                    submit: text.verify, back: text.back))
        }
        // An account with several second factors chooses one (the script adds a button for each).
        sections.append("""
            <section id="factor-choice" hidden>
            <h2 id="factor-choice-heading">\(HTML.escape(text.secondFactorHeading))</h2>
            <div id="factors" class="methods" role="group" aria-labelledby="factor-choice-heading"></div>
            </section>
            """)
        // The second factor chosen: a TOTP app's code, or a code sent by SMS (the script sets the label).
        sections.append(section("second-factor", heading: text.secondFactorHeading, fields: [
            "<p id=\"factor-hint\"></p>", codeField("code", label: text.authenticatorCode),
        ], submit: text.verify))
        return sections.joined(separator: "\n")
    }

    /// The first section: the password form (if enabled), then a button for each other method.
    private static func main(_ methods: ProviderPages.Methods, hint: String, text: ProviderPageText) -> String {
        var html = "<section id=\"sign-in\">"
        if methods.password {
            // `webauthn` lets the browser offer the realm's passkeys in the username field's autofill.
            let username = methods.passkey ? "username webauthn" : "username"
            html += """
                <h2 id="sign-in-heading">\(HTML.escape(text.signInHeading))</h2>
                <form id="sign-in-form" aria-labelledby="sign-in-heading">
                \(field("email", label: text.email, attributes: "name=\"email\" type=\"email\" autocomplete=\"\(username)\" value=\"\(HTML.escape(hint))\" required"))
                \(field("password", label: text.password, attributes: "name=\"password\" type=\"password\" autocomplete=\"current-password\" required"))
                <button type="submit" id="sign-in-button">\(HTML.escape(text.signIn))</button>
                </form>
                <p>\(methods.signUp ? showButton("sign-up", text.createAccount) : "") \(showButton("reset", text.forgotPassword))</p>
                """
        }
        var others: [String] = []
        if methods.emailLink { others.append(showButton("email-link", text.sendSignInLink)) }
        if methods.phone { others.append(showButton("phone", text.phoneHeading)) }
        if methods.passkey { others.append("<button type=\"button\" id=\"passkey-button\">\(HTML.escape(text.usePasskey))</button>") }
        others += methods.providers.map { provider in
            "<button type=\"button\" data-provider=\"\(HTML.escape(provider.providerId))\">\(HTML.escape(text.continueWith(provider.name)))</button>"
        }
        if !others.isEmpty {
            let heading = methods.password ? "<h2 id=\"other-methods-heading\">\(HTML.escape(text.otherMethods))</h2>" : ""
            html += "<div id=\"other-methods\" class=\"methods\">\(heading)\(others.joined(separator: "\n"))</div>"
        }
        return html + "</section>"
    }

    /// A hidden section with one labelled form: `<id>-form`, its submit button `<id>-button`.
    private static func section(_ id: String, heading: String, fields: [String], submit: String, back: String? = nil) -> String {
        let backButton = back.map { "<p>\(showButton("sign-in", $0))</p>" } ?? ""
        return """
            <section id="\(id)" hidden>
            <h2 id="\(id)-heading">\(HTML.escape(heading))</h2>
            <form id="\(id)-form" aria-labelledby="\(id)-heading">
            \(fields.joined(separator: "\n"))
            <button type="submit" id="\(id)-button">\(HTML.escape(submit))</button>
            </form>
            \(backButton)
            </section>
            """
    }

    private static func field(_ id: String, label: String, attributes: String) -> String {
        "<label for=\"\(id)\">\(HTML.escape(label))</label>\n<input id=\"\(id)\" \(attributes)>"
    }

    private static func emailField(_ id: String, hint: String, text: ProviderPageText) -> String {
        field(id, label: text.email, attributes: "name=\"email\" type=\"email\" autocomplete=\"username\" value=\"\(HTML.escape(hint))\" required")
    }

    private static func codeField(_ id: String, label: String) -> String {
        field(id, label: label, attributes: "name=\"code\" inputmode=\"numeric\" autocomplete=\"one-time-code\" pattern=\"[0-9]{6}\" maxlength=\"6\" required")
    }

    private static func showButton(_ section: String, _ label: String) -> String {
        "<button type=\"button\" class=\"link\" data-show=\"\(section)\">\(HTML.escape(label))</button>"
    }
}
