import Foundation

/// The page behind `/__/auth/handler?authType=verifyApp`: HTML, style and script as constants (no build
/// step). The script reads its parameters from a JSON data block, finds the proof of work with
/// `crypto.subtle.digest` (a secure context: https, or http on 127.0.0.1/localhost), trades it for a
/// token at `/__/auth/handler/verify`, and returns to the app through its callback scheme.
///
/// The Content-Security-Policy allows exactly this script and style, by hash, and connections to the
/// page's own origin; nothing else loads.
enum CaptchaPage {
    /// What the script needs, rendered as JSON inside the page.
    struct Configuration: Encodable {
        /// The sealed challenge (the work is SHA-256 of `challenge:nonce`).
        var challenge: String
        var bits: Int
        /// Where to POST `{challenge, nonce}`, with the API key.
        var verifyURL: String
        /// `{scheme}://firebaseauth/link`, to which the script adds `?deep_link_id=…`.
        var callback: String
        var eventId: String
        var done: String
        var failed: String
    }

    /// The page's words in one language.
    struct Messages {
        var language: String
        var title: String
        var heading: String
        var working: String
        var progress: String
        var done: String
        var failed: String
        var returnLink: String
        var noScript: String
        var invalidRequest: String
    }

    static func html(_ configuration: Configuration, messages: Messages) throws -> String {
        try HostedPage.scripted(
            language: messages.language, title: messages.title, style: style, script: script, configuration: configuration,
            body: """
                <h1>\(HTML.escape(messages.heading))</h1>
                <p id="status" role="status" aria-live="polite">\(HTML.escape(messages.working))</p>
                <progress id="progress" max="1" value="0" aria-label="\(HTML.escape(messages.progress))"></progress>
                <p><a id="return" href="#" hidden>\(HTML.escape(messages.returnLink))</a></p>
                <noscript><p>\(HTML.escape(messages.noScript))</p></noscript>
                """)
    }

    /// A page explaining why the request cannot be served (no script: nothing to return to).
    static func errorHTML(_ detail: String, messages: Messages) -> String {
        HostedPage.error(language: messages.language, heading: messages.invalidRequest, detail: detail, style: style)
    }

    static let contentSecurityPolicy = HostedPage.contentSecurityPolicy(script: script, style: style)
    static let errorContentSecurityPolicy = HostedPage.errorContentSecurityPolicy(style: style)

    /// The messages for `hl` (`fr`, `fr-CA`, `fr_CA` …), English for anything else.
    static func messages(for hl: String?) -> Messages {
        let language = hl?.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? "en"
        return translations[language] ?? translations["en"]!
    }

    private static let translations: [String: Messages] = [
        "en": Messages(
            language: "en", title: "Verifying", heading: "Checking you are not a robot…",
            working: "Working… this takes a few seconds.", progress: "Progress", done: "Done. Returning to the app…",
            failed: "The check failed. Returning to the app…", returnLink: "Return to the app",
            noScript: "This check needs JavaScript. Please turn it on and try again.", invalidRequest: "Invalid request"),
        "fr": Messages(
            language: "fr", title: "Vérification", heading: "Nous vérifions que vous n’êtes pas un robot…",
            working: "Calcul en cours… cela prend quelques secondes.", progress: "Progression",
            done: "Terminé. Retour à l’application…", failed: "La vérification a échoué. Retour à l’application…",
            returnLink: "Revenir à l’application",
            noScript: "Cette vérification nécessite JavaScript. Activez-le puis réessayez.", invalidRequest: "Requête invalide"),
        "de": Messages(
            language: "de", title: "Überprüfung", heading: "Wir prüfen, dass Sie kein Roboter sind…",
            working: "Wird berechnet… das dauert einige Sekunden.", progress: "Fortschritt",
            done: "Fertig. Zurück zur App…", failed: "Die Prüfung ist fehlgeschlagen. Zurück zur App…",
            returnLink: "Zurück zur App",
            noScript: "Diese Prüfung benötigt JavaScript. Bitte aktivieren Sie es und versuchen Sie es erneut.",
            invalidRequest: "Ungültige Anfrage"),
        "es": Messages(
            language: "es", title: "Verificación", heading: "Comprobando que no eres un robot…",
            working: "Calculando… tarda unos segundos.", progress: "Progreso",
            done: "Listo. Volviendo a la aplicación…", failed: "La comprobación ha fallado. Volviendo a la aplicación…",
            returnLink: "Volver a la aplicación",
            noScript: "Esta comprobación necesita JavaScript. Actívalo y vuelve a intentarlo.",
            invalidRequest: "Solicitud no válida"),
    ]

    static let style = """
        body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:2rem 1rem;\
        color:#1f1f1f;background:#fff;line-height:1.5}main{max-width:28rem;margin:0 auto;text-align:center}\
        h1{font-size:1.25rem;font-weight:600}progress{width:100%;height:.75rem}a{color:#0b57d0}\
        @media (prefers-color-scheme:dark){body{color:#e3e3e3;background:#1f1f1f}a{color:#a8c7fa}}
        """

    /// `solveProofOfWork(challenge, bits, onProgress)`: finds a nonce giving SHA-256(`challenge:nonce`) `bits` leading
    /// zero bits, in batches of concurrent digests (one digest per promise is slow), telling `onProgress` the chance
    /// of being done so far. Shared by every page that asks for Flint's captcha.
    static let solver = """
        const solveProofOfWork = async (challenge, bits, onProgress) => {
          const zeroBits = (bytes) => {
            let count = 0;
            for (const byte of bytes) {
              if (byte !== 0) return count + Math.clz32(byte) - 24;
              count += 8;
            }
            return count;
          };
          const encoder = new TextEncoder();
          const prefix = challenge + ':';
          const expected = 2 ** bits;
          const batch = 256;
          for (let start = 0; ; start += batch) {
            const candidates = [];
            for (let i = 0; i < batch; i++) candidates.push((start + i).toString(36));
            const digests = await Promise.all(
              candidates.map((candidate) => crypto.subtle.digest('SHA-256', encoder.encode(prefix + candidate))));
            const index = digests.findIndex((digest) => zeroBits(new Uint8Array(digest)) >= bits);
            if (index >= 0) { onProgress(1); return candidates[index]; }
            onProgress(1 - Math.exp(-(start + batch) / expected));
          }
        };

        """

    /// Finds the nonce (`solver`), shows the chance of being done so far, then trades the nonce for a token and
    /// returns to the app. Every outcome ends at the callback URL, which is also put in the #return link first.
    static let script = solver + """
        (async () => {
          const config = JSON.parse(document.getElementById('flint-config').textContent);
          const status = document.getElementById('status');
          const progress = document.getElementById('progress');
          const callback = (params) => {
            let inner = location.origin + '/__/auth/callback?authType=verifyApp&eventId=' + encodeURIComponent(config.eventId);
            for (const [name, value] of Object.entries(params)) inner += '&' + name + '=' + encodeURIComponent(value);
            return config.callback + '?deep_link_id=' + encodeURIComponent(inner);
          };
          const finish = (url, message) => {
            const link = document.getElementById('return');
            link.href = url;
            link.hidden = false;
            status.textContent = message;
            window.location.href = url;
          };
          const failure = (code, message) =>
            callback({ firebaseError: JSON.stringify({ code: code, message: message }) });
          let nonce = null;
          try {
            nonce = await solveProofOfWork(config.challenge, config.bits, (chance) => { progress.value = chance; });
          } catch (error) {
            finish(failure('auth/internal-error', 'This browser cannot compute the check: ' + error), config.failed);
            return;
          }
          let response, body;
          try {
            response = await fetch(config.verifyURL, {
              method: 'POST', headers: { 'Content-Type': 'application/json' }, credentials: 'omit', cache: 'no-store',
              body: JSON.stringify({ challenge: config.challenge, nonce: nonce }),
            });
            body = await response.json();
          } catch (error) {
            finish(failure('auth/network-request-failed', String(error)), config.failed);
            return;
          }
          if (response.ok && typeof body.token === 'string') {
            finish(callback({ recaptchaToken: body.token }), config.done);
          } else {
            const message = (body && body.error && body.error.message) || 'The check was refused.';
            finish(failure('auth/internal-error', message), config.failed);
          }
        })();
        """
}
