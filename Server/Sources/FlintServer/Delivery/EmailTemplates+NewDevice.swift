import FlintWire

extension EmailTemplates {
    /// Where and how a sign-in came, as its notice shows it.
    struct SignInDevice: Sendable, Equatable {
        /// RFC 3339, UTC.
        var time: String
        var ipAddress: String?
        var userAgent: String?
    }

    /// The notice of a sign-in from a new device (`NewDeviceNotices`), in the user's language: the greeting, what
    /// happened, when, from which address and user agent, and what to do if it was not them, with the action emails'
    /// greeting and sign-off. It carries no link: a working reset link in mail nobody asked for would be one more
    /// credential lying in a mailbox, and the app's own "forgot password" is one step away.
    static func renderNewDeviceNotice(locale requested: String?, email: String, appName: String, displayName: String?,
                                      device: SignInDevice) -> Rendered {
        let locale = resolve(requested)
        let wording = wordings[locale] ?? wordings["en"]!
        let notice = newDeviceWordings[locale] ?? newDeviceWordings["en"]!
        let unknown = "–"
        let values = ["{app}": appName, "{email}": email, "{name}": displayName ?? ""]
        let subject = substitute(notice.subject, values)
        let greeting = (displayName ?? "").isEmpty ? wording.greeting : wording.namedGreeting
        let details = [(notice.when, device.time + " UTC"), (notice.address, device.ipAddress ?? unknown),
                       (notice.device, device.userAgent ?? unknown)]
        let before = [greeting, notice.intro]
        let after = [notice.notYou, wording.signoff]

        let text = (before.map { substitute($0, values) } + [details.map { "\($0): \($1)" }.joined(separator: "\n")]
            + after.map { substitute($0, values) }).joined(separator: "\n\n") + "\n"
        let escaped = values.mapValues(HTML.escape)
        let list = "<ul>\n" + details.map { "<li>\(HTML.escape($0)): \(HTML.escape($1))</li>" }.joined(separator: "\n") + "\n</ul>"
        let body = before.map { "<p>\(substitute($0, escaped))</p>" } + [list] + after.map { "<p>\(substitute($0, escaped))</p>" }
        let html = htmlDocument(subject: subject, body: body, locale: locale, rightToLeft: wording.rightToLeft)
        return (subject, text, html, locale, appName)
    }

    /// One language's notice of a new device. Placeholders: `{app}`, `{email}`.
    struct NewDeviceWording: Sendable {
        var subject: String
        var intro: String
        /// The labels of the sign-in's time, address and user agent.
        var when: String
        var address: String
        var device: String
        var notYou: String
    }

    /// The notice in every language the action emails have (`NewDeviceNoticeTests` holds the two lists equal).
    static let newDeviceWordings: [String: NewDeviceWording] = [
        "en": NewDeviceWording(
            subject: "New sign-in to your {app} account",
            intro: "Your {app} account {email} was just signed in to from a device it had not used before:",
            when: "When", address: "Address", device: "Device",
            notYou: "If this was you, there is nothing to do. If it was not, change your password now (\"Forgot password\" in {app}) and sign out of your other sessions."),
        "fr": NewDeviceWording(
            subject: "Nouvelle connexion à votre compte {app}",
            intro: "Votre compte {app} {email} vient d'être utilisé pour se connecter depuis un appareil inconnu jusqu'ici :",
            when: "Date", address: "Adresse", device: "Appareil",
            notYou: "Si c'était vous, vous n'avez rien à faire. Sinon, changez votre mot de passe dès maintenant (« Mot de passe oublié » dans {app}) et déconnectez vos autres sessions."),
        "es": NewDeviceWording(
            subject: "Nuevo inicio de sesión en tu cuenta de {app}",
            intro: "Se acaba de iniciar sesión en tu cuenta de {app} {email} desde un dispositivo que no había usado antes:",
            when: "Cuándo", address: "Dirección", device: "Dispositivo",
            notYou: "Si fuiste tú, no tienes que hacer nada. Si no, cambia tu contraseña ahora («¿Olvidaste tu contraseña?» en {app}) y cierra tus otras sesiones."),
        "de": NewDeviceWording(
            subject: "Neue Anmeldung bei Ihrem {app}-Konto",
            intro: "Bei Ihrem {app}-Konto {email} hat sich gerade ein Gerät angemeldet, das es bisher nicht benutzt hat:",
            when: "Zeitpunkt", address: "Adresse", device: "Gerät",
            notYou: "Wenn Sie das waren, ist nichts zu tun. Wenn nicht, ändern Sie jetzt Ihr Passwort („Passwort vergessen“ in {app}) und melden Sie Ihre anderen Sitzungen ab."),
        "pt": NewDeviceWording(
            subject: "Novo login na sua conta do {app}",
            intro: "Sua conta do {app} {email} acabou de ser acessada de um dispositivo que ela não tinha usado antes:",
            when: "Quando", address: "Endereço", device: "Dispositivo",
            notYou: "Se foi você, não há nada a fazer. Se não foi, troque sua senha agora (\"Esqueci minha senha\" no {app}) e encerre suas outras sessões."),
        "hi": NewDeviceWording(
            subject: "आपके {app} खाते में नया साइन-इन",
            intro: "आपके {app} खाते {email} में अभी ऐसे डिवाइस से साइन इन किया गया जिसका उपयोग पहले नहीं हुआ था:",
            when: "समय", address: "पता", device: "डिवाइस",
            notYou: "अगर यह आप थे, तो कुछ करने की ज़रूरत नहीं है। अगर नहीं, तो अभी अपना पासवर्ड बदलें ({app} में \"पासवर्ड भूल गए\") और अपने दूसरे सत्रों से साइन आउट करें।"),
        "bn": NewDeviceWording(
            subject: "আপনার {app} অ্যাকাউন্টে নতুন সাইন-ইন",
            intro: "আপনার {app} অ্যাকাউন্ট {email}-এ এইমাত্র এমন একটি ডিভাইস থেকে সাইন ইন করা হয়েছে যা আগে ব্যবহার করা হয়নি:",
            when: "সময়", address: "ঠিকানা", device: "ডিভাইস",
            notYou: "এটি আপনি হলে কিছু করার দরকার নেই। না হলে এখনই আপনার পাসওয়ার্ড বদলান ({app}-এ \"পাসওয়ার্ড ভুলে গেছেন\") এবং আপনার অন্য সেশনগুলো থেকে সাইন আউট করুন।"),
        "zh-CN": NewDeviceWording(
            subject: "您的 {app} 账号有新的登录",
            intro: "您的 {app} 账号 {email} 刚刚在一台以前未使用过的设备上登录：",
            when: "时间", address: "地址", device: "设备",
            notYou: "如果是您本人，无需任何操作。如果不是，请立即更改密码（在 {app} 中选择“忘记密码”），并退出您的其他会话。"),
        "zh-TW": NewDeviceWording(
            subject: "您的 {app} 帳戶有新的登入",
            intro: "您的 {app} 帳戶 {email} 剛剛在一台以前未使用過的裝置上登入：",
            when: "時間", address: "位址", device: "裝置",
            notYou: "如果是您本人，無需任何操作。如果不是，請立即變更密碼（在 {app} 中選擇「忘記密碼」），並登出您的其他工作階段。"),
        "ar": NewDeviceWording(
            subject: "تسجيل دخول جديد إلى حسابك في {app}",
            intro: "تم للتو تسجيل الدخول إلى حسابك في {app} ‏{email} من جهاز لم يُستخدم من قبل:",
            when: "الوقت", address: "العنوان", device: "الجهاز",
            notYou: "إذا كنت أنت، فلا داعي لأي إجراء. وإذا لم تكن أنت، فغيّر كلمة المرور الآن (\"نسيت كلمة المرور\" في {app}) وسجّل الخروج من جلساتك الأخرى."),
    ]
}
