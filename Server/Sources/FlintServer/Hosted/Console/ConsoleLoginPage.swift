import Foundation

/// The console's sign-in page. In production its script reads the chosen service-account key file in
/// the browser, signs a five-minute JWT (RS256, WebCrypto) naming the console as audience and the
/// page's challenge as nonce, and posts only that JWT: the private key is never sent. The file input has
/// no `name`, so the form could not send it even without the script. Emulator mode needs no key.
enum ConsoleLoginPage {
    /// What the script needs.
    struct Configuration: Encodable {
        var audience: String
        var challenge: String
        /// The server's time, used as the JWT's `iat`, so a browser whose clock is off still signs in.
        var now: Int64
        var chooseFile: String
        var unreadable: String
    }

    static func html(configuration: Configuration, ownerSignIn: Bool, error: String?) throws -> String {
        let failure = "<p id=\"error\" role=\"alert\"\(error == nil ? " hidden" : "")>\(HTML.escape(error ?? ""))</p>"
        let challenge = "<input type=\"hidden\" name=\"challenge\" value=\"\(HTML.escape(configuration.challenge))\">"
        if ownerSignIn {
            return ConsoleHTML.document(page: "login", title: "Sign in", body: """
                <main class="login">
                <h1>Flint console</h1>
                <p>This server runs in emulator mode: like <code>Authorization: Bearer owner</code>, the console is
                open to whoever can reach it.</p>
                \(failure)
                <form method="post" action="/console/login" id="login-form">
                \(challenge)
                <button type="submit" id="sign-in">Sign in as owner</button>
                </form>
                </main>
                """)
        }
        return ConsoleHTML.document(page: "login", title: "Sign in", body: """
            <main class="login">
            <h1>Flint console</h1>
            <p>Sign in with a service-account key file of this server (<code>flint service-accounts create</code>).
            The key stays in your browser: it signs a one-time proof, and only the proof is sent.</p>
            \(failure)
            <form method="post" action="/console/login" id="login-form">
            \(challenge)
            <input type="hidden" name="assertion" value="">
            <label for="key-file">Service-account key file (JSON)</label>
            <input type="file" id="key-file" accept=".json,application/json">
            <button type="submit" id="sign-in">Sign in</button>
            </form>
            <noscript><p>Signing in needs JavaScript: the key file is used in the browser.</p></noscript>
            </main>
            \(try HostedPage.configurationBlock(configuration))
            """, script: script)
    }

    static let script = """
        (() => {
          const config = JSON.parse(document.getElementById('flint-config').textContent);
          const form = document.getElementById('login-form');
          const error = document.getElementById('error');
          const fail = (text) => { error.textContent = text; error.hidden = false; };
          const base64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)))
            .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
          const encode = (value) => base64url(new TextEncoder().encode(JSON.stringify(value)));
          form.addEventListener('submit', async (event) => {
            event.preventDefault();
            const file = document.getElementById('key-file').files[0];
            if (!file) { fail(config.chooseFile); return; }
            try {
              const key = JSON.parse(await file.text());
              const der = Uint8Array.from(atob(key.private_key.replace(/-----[^-]+-----/g, '').replace(/\\s+/g, '')),
                                          (c) => c.charCodeAt(0));
              const signer = await crypto.subtle.importKey(
                'pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
              const input = encode({ alg: 'RS256', typ: 'JWT', kid: key.private_key_id }) + '.' + encode({
                iss: key.client_email, sub: key.client_email, aud: config.audience,
                iat: config.now, exp: config.now + 300, nonce: config.challenge });
              const signature = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', signer, new TextEncoder().encode(input));
              form.elements.assertion.value = input + '.' + base64url(signature);
              form.submit();
            } catch (_) {
              fail(config.unreadable);
            }
          });
        })();
        """
}
