import FlintWire

extension EmailTemplates {
    /// One language's built-in action emails. Placeholders: `{app}`, `{email}` (the address written to),
    /// `{new}` (the new address, for changes), `{name}` (the display name). The text body is the greeting,
    /// the intro, the link, the "ignore" line (not for recovery) and the sign-off, as paragraphs.
    struct Wording: Sendable {
        var subjects: [OobRequestType: String]
        var intros: [OobRequestType: String]
        /// With and without a display name.
        var namedGreeting: String
        var greeting: String
        var ignore: String
        var signoff: String
        var rightToLeft = false
    }

    static let wordings: [String: Wording] = [
        "en": Wording(
            subjects: [
                .emailSignIn: "Sign in to {app}",
                .passwordReset: "Reset your password for {app}",
                .verifyEmail: "Verify your email for {app}",
                .verifyAndChangeEmail: "Confirm your new email for {app}",
                .recoverEmail: "The email of your {app} account was changed",
            ],
            intros: [
                .emailSignIn: "We received a request to sign in to {app} as {email}. Open this link to sign in:",
                .passwordReset: "Open this link to choose a new password for the {app} account of {email}:",
                .verifyEmail: "Open this link to confirm that {email} is your address:",
                .verifyAndChangeEmail: "Open this link to confirm {new} as the new address of your {app} account:",
                .recoverEmail: "The address of your {app} account was changed to {new}. If that was not you, open this link to restore {email}:",
            ],
            namedGreeting: "Hello {name},", greeting: "Hello,",
            ignore: "If you did not ask for this, you can ignore this email.",
            signoff: "The {app} team"),
        "fr": Wording(
            subjects: [
                .emailSignIn: "Connexion à {app}",
                .passwordReset: "Réinitialisez votre mot de passe {app}",
                .verifyEmail: "Vérifiez votre adresse e-mail pour {app}",
                .verifyAndChangeEmail: "Confirmez votre nouvelle adresse e-mail pour {app}",
                .recoverEmail: "L'adresse e-mail de votre compte {app} a changé",
            ],
            intros: [
                .emailSignIn: "Nous avons reçu une demande de connexion à {app} avec l'adresse {email}. Ouvrez ce lien pour vous connecter :",
                .passwordReset: "Ouvrez ce lien pour choisir un nouveau mot de passe pour le compte {app} de {email} :",
                .verifyEmail: "Ouvrez ce lien pour confirmer que {email} est bien votre adresse :",
                .verifyAndChangeEmail: "Ouvrez ce lien pour faire de {new} la nouvelle adresse de votre compte {app} :",
                .recoverEmail: "L'adresse de votre compte {app} a été remplacée par {new}. Si ce n'était pas vous, ouvrez ce lien pour rétablir {email} :",
            ],
            namedGreeting: "Bonjour {name},", greeting: "Bonjour,",
            ignore: "Si vous n'avez rien demandé, vous pouvez ignorer cet e-mail.",
            signoff: "L'équipe {app}"),
        "es": Wording(
            subjects: [
                .emailSignIn: "Inicia sesión en {app}",
                .passwordReset: "Restablece tu contraseña de {app}",
                .verifyEmail: "Verifica tu correo electrónico para {app}",
                .verifyAndChangeEmail: "Confirma tu nuevo correo electrónico para {app}",
                .recoverEmail: "Se cambió el correo electrónico de tu cuenta de {app}",
            ],
            intros: [
                .emailSignIn: "Recibimos una solicitud para iniciar sesión en {app} con {email}. Abre este enlace para iniciar sesión:",
                .passwordReset: "Abre este enlace para elegir una nueva contraseña para la cuenta de {app} de {email}:",
                .verifyEmail: "Abre este enlace para confirmar que {email} es tu dirección:",
                .verifyAndChangeEmail: "Abre este enlace para confirmar {new} como la nueva dirección de tu cuenta de {app}:",
                .recoverEmail: "La dirección de tu cuenta de {app} se cambió a {new}. Si no fuiste tú, abre este enlace para restaurar {email}:",
            ],
            namedGreeting: "Hola, {name}:", greeting: "Hola:",
            ignore: "Si no lo solicitaste, puedes ignorar este correo.",
            signoff: "El equipo de {app}"),
        "de": Wording(
            subjects: [
                .emailSignIn: "Bei {app} anmelden",
                .passwordReset: "Passwort für {app} zurücksetzen",
                .verifyEmail: "E-Mail-Adresse für {app} bestätigen",
                .verifyAndChangeEmail: "Neue E-Mail-Adresse für {app} bestätigen",
                .recoverEmail: "Die E-Mail-Adresse Ihres {app}-Kontos wurde geändert",
            ],
            intros: [
                .emailSignIn: "Wir haben eine Anfrage erhalten, sich mit {email} bei {app} anzumelden. Öffnen Sie diesen Link, um sich anzumelden:",
                .passwordReset: "Öffnen Sie diesen Link, um ein neues Passwort für das {app}-Konto von {email} festzulegen:",
                .verifyEmail: "Öffnen Sie diesen Link, um zu bestätigen, dass {email} Ihre Adresse ist:",
                .verifyAndChangeEmail: "Öffnen Sie diesen Link, um {new} als neue Adresse Ihres {app}-Kontos zu bestätigen:",
                .recoverEmail: "Die Adresse Ihres {app}-Kontos wurde in {new} geändert. Wenn Sie das nicht waren, öffnen Sie diesen Link, um {email} wiederherzustellen:",
            ],
            namedGreeting: "Hallo {name},", greeting: "Hallo,",
            ignore: "Wenn Sie das nicht angefordert haben, können Sie diese E-Mail ignorieren.",
            signoff: "Ihr {app}-Team"),
        "pt": Wording(
            subjects: [
                .emailSignIn: "Entre no {app}",
                .passwordReset: "Redefina sua senha do {app}",
                .verifyEmail: "Verifique seu e-mail no {app}",
                .verifyAndChangeEmail: "Confirme seu novo e-mail no {app}",
                .recoverEmail: "O e-mail da sua conta do {app} foi alterado",
            ],
            intros: [
                .emailSignIn: "Recebemos um pedido para entrar no {app} com {email}. Abra este link para entrar:",
                .passwordReset: "Abra este link para escolher uma nova senha para a conta do {app} de {email}:",
                .verifyEmail: "Abra este link para confirmar que {email} é o seu endereço:",
                .verifyAndChangeEmail: "Abra este link para confirmar {new} como o novo endereço da sua conta do {app}:",
                .recoverEmail: "O endereço da sua conta do {app} foi alterado para {new}. Se não foi você, abra este link para restaurar {email}:",
            ],
            namedGreeting: "Olá, {name},", greeting: "Olá,",
            ignore: "Se você não fez este pedido, pode ignorar este e-mail.",
            signoff: "Equipe {app}"),
        "hi": Wording(
            subjects: [
                .emailSignIn: "{app} में साइन इन करें",
                .passwordReset: "{app} के लिए अपना पासवर्ड रीसेट करें",
                .verifyEmail: "{app} के लिए अपना ईमेल सत्यापित करें",
                .verifyAndChangeEmail: "{app} के लिए अपने नए ईमेल की पुष्टि करें",
                .recoverEmail: "आपके {app} खाते का ईमेल बदल दिया गया है",
            ],
            intros: [
                .emailSignIn: "हमें {email} से {app} में साइन इन करने का अनुरोध मिला है। साइन इन करने के लिए यह लिंक खोलें:",
                .passwordReset: "{email} के {app} खाते के लिए नया पासवर्ड चुनने हेतु यह लिंक खोलें:",
                .verifyEmail: "यह पुष्टि करने के लिए कि {email} आपका पता है, यह लिंक खोलें:",
                .verifyAndChangeEmail: "{new} को अपने {app} खाते के नए पते के रूप में पुष्टि करने के लिए यह लिंक खोलें:",
                .recoverEmail: "आपके {app} खाते का पता बदलकर {new} कर दिया गया है। अगर यह आपने नहीं किया, तो {email} को वापस लाने के लिए यह लिंक खोलें:",
            ],
            namedGreeting: "नमस्ते {name},", greeting: "नमस्ते,",
            ignore: "अगर आपने यह अनुरोध नहीं किया, तो इस ईमेल को अनदेखा करें।",
            signoff: "{app} टीम"),
        "bn": Wording(
            subjects: [
                .emailSignIn: "{app}-এ সাইন ইন করুন",
                .passwordReset: "{app}-এর পাসওয়ার্ড রিসেট করুন",
                .verifyEmail: "{app}-এর জন্য আপনার ইমেল যাচাই করুন",
                .verifyAndChangeEmail: "{app}-এর জন্য আপনার নতুন ইমেল নিশ্চিত করুন",
                .recoverEmail: "আপনার {app} অ্যাকাউন্টের ইমেল পরিবর্তন করা হয়েছে",
            ],
            intros: [
                .emailSignIn: "{email} দিয়ে {app}-এ সাইন ইন করার একটি অনুরোধ পেয়েছি। সাইন ইন করতে এই লিঙ্কটি খুলুন:",
                .passwordReset: "{email}-এর {app} অ্যাকাউন্টের জন্য নতুন পাসওয়ার্ড বেছে নিতে এই লিঙ্কটি খুলুন:",
                .verifyEmail: "{email} যে আপনার ঠিকানা তা নিশ্চিত করতে এই লিঙ্কটি খুলুন:",
                .verifyAndChangeEmail: "{new}-কে আপনার {app} অ্যাকাউন্টের নতুন ঠিকানা হিসেবে নিশ্চিত করতে এই লিঙ্কটি খুলুন:",
                .recoverEmail: "আপনার {app} অ্যাকাউন্টের ঠিকানা বদলে {new} করা হয়েছে। যদি এটি আপনি না করে থাকেন, {email} ফিরিয়ে আনতে এই লিঙ্কটি খুলুন:",
            ],
            namedGreeting: "নমস্কার {name},", greeting: "নমস্কার,",
            ignore: "আপনি যদি এই অনুরোধ না করে থাকেন, তাহলে এই ইমেলটি উপেক্ষা করুন।",
            signoff: "{app} টিম"),
        "zh-CN": Wording(
            subjects: [
                .emailSignIn: "登录 {app}",
                .passwordReset: "重置您的 {app} 密码",
                .verifyEmail: "验证您在 {app} 的电子邮件地址",
                .verifyAndChangeEmail: "确认您在 {app} 的新电子邮件地址",
                .recoverEmail: "您的 {app} 账号电子邮件地址已更改",
            ],
            intros: [
                .emailSignIn: "我们收到了使用 {email} 登录 {app} 的请求。请打开以下链接登录：",
                .passwordReset: "请打开以下链接，为 {email} 的 {app} 账号设置新密码：",
                .verifyEmail: "请打开以下链接，确认 {email} 是您的电子邮件地址：",
                .verifyAndChangeEmail: "请打开以下链接，确认将 {new} 作为您 {app} 账号的新地址：",
                .recoverEmail: "您的 {app} 账号地址已更改为 {new}。如果这不是您本人的操作，请打开以下链接恢复 {email}：",
            ],
            namedGreeting: "{name}，您好：", greeting: "您好：",
            ignore: "如果您没有提出此请求，请忽略这封邮件。",
            signoff: "{app} 团队"),
        "zh-TW": Wording(
            subjects: [
                .emailSignIn: "登入 {app}",
                .passwordReset: "重設您的 {app} 密碼",
                .verifyEmail: "驗證您在 {app} 的電子郵件地址",
                .verifyAndChangeEmail: "確認您在 {app} 的新電子郵件地址",
                .recoverEmail: "您的 {app} 帳戶電子郵件地址已變更",
            ],
            intros: [
                .emailSignIn: "我們收到使用 {email} 登入 {app} 的要求。請開啟以下連結登入：",
                .passwordReset: "請開啟以下連結，為 {email} 的 {app} 帳戶設定新密碼：",
                .verifyEmail: "請開啟以下連結，確認 {email} 是您的電子郵件地址：",
                .verifyAndChangeEmail: "請開啟以下連結，確認將 {new} 設為您 {app} 帳戶的新地址：",
                .recoverEmail: "您的 {app} 帳戶地址已變更為 {new}。如果這不是您本人的操作，請開啟以下連結還原 {email}：",
            ],
            namedGreeting: "{name}，您好：", greeting: "您好：",
            ignore: "如果您沒有提出此要求，請忽略這封郵件。",
            signoff: "{app} 團隊"),
        "ar": Wording(
            subjects: [
                .emailSignIn: "تسجيل الدخول إلى {app}",
                .passwordReset: "إعادة تعيين كلمة المرور في {app}",
                .verifyEmail: "تأكيد بريدك الإلكتروني في {app}",
                .verifyAndChangeEmail: "تأكيد بريدك الإلكتروني الجديد في {app}",
                .recoverEmail: "تم تغيير البريد الإلكتروني لحسابك في {app}",
            ],
            intros: [
                .emailSignIn: "تلقينا طلبًا لتسجيل الدخول إلى {app} باستخدام {email}. افتح هذا الرابط لتسجيل الدخول:",
                .passwordReset: "افتح هذا الرابط لاختيار كلمة مرور جديدة لحساب {app} المرتبط بـ {email}:",
                .verifyEmail: "افتح هذا الرابط لتأكيد أن {email} هو عنوانك:",
                .verifyAndChangeEmail: "افتح هذا الرابط لتأكيد {new} عنوانًا جديدًا لحسابك في {app}:",
                .recoverEmail: "تم تغيير عنوان حسابك في {app} إلى {new}. إذا لم تقم بذلك، فافتح هذا الرابط لاستعادة {email}:",
            ],
            namedGreeting: "مرحبًا {name}،", greeting: "مرحبًا،",
            ignore: "إذا لم تطلب ذلك، يمكنك تجاهل هذه الرسالة.",
            signoff: "فريق {app}",
            rightToLeft: true),
    ]
}
