/// The sign-in page's script: it calls the REST API with the project's API key, as an app would, and hands the ID token
/// it gets to the session endpoint, which answers where the browser goes next.
///
/// Methods that leave the page come back to it: an email link through the action page (`mode=signIn&oobCode=…` in
/// the query, the email kept in this browser's `localStorage`), a federated or SAML provider through the hosted
/// handler (the link in the fragment, the session ID kept in `sessionStorage`, only its SHA-256 sent out).
enum ProviderPageScript {
    static let signIn = CaptchaPage.solver + #"""
    (() => {
      const config = JSON.parse(document.getElementById('flint-config').textContent);
      const byID = (id) => document.getElementById(id);
      const text = config.text;
      const linkEmailKey = 'flint-oauth-link-email';
      const redirectKey = 'flint-oauth-redirect';
      let pending = null;
      const say = (id, message) => { byID('error').textContent = ''; byID('notice').textContent = ''; byID(id).textContent = message; };
      const show = (id) => {
        for (const section of document.querySelectorAll('section')) section.hidden = section.id !== id;
        const field = byID(id).querySelector('input'); if (field) field.focus();
      };
      const message = (error) => {
        const code = String(error.message || '').split(' : ')[0];
        return text.errors[code] || text.errors['default'];
      };
      const randomHex = (bytes) => [...crypto.getRandomValues(new Uint8Array(bytes))]
        .map((b) => b.toString(16).padStart(2, '0')).join('');
      const sha256Hex = async (value) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value)))]
        .map((b) => b.toString(16).padStart(2, '0')).join('');
      // WebAuthn's binary fields: Flint sends base64 or base64url, and reads base64url.
      const bytes = (value) => {
        const plain = value.replace(/-/g, '+').replace(/_/g, '/');
        return Uint8Array.from(atob(plain + '==='.slice((plain.length + 3) % 4)), (c) => c.charCodeAt(0));
      };
      const base64url = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
        .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      const thisPage = () => location.origin + location.pathname + '?authorization_id=' + encodeURIComponent(config.authorizationId);

      async function post(url, body) {
        const response = await fetch(url, {
          method: 'POST', headers: { 'Content-Type': 'application/json' }, credentials: 'same-origin', body: JSON.stringify(body) });
        const answer = await response.json();
        if (!response.ok) throw new Error((answer.error && answer.error.message) || 'ERROR');
        return answer;
      }
      async function call(path, body) {
        if (config.tenantId) body.tenantId = config.tenantId;
        return post(path + '?key=' + encodeURIComponent(config.apiKey), body);
      }
      async function finish(idToken) {
        const answer = await post(config.sessionEndpoint,
          { authorizationId: config.authorizationId, idToken, formToken: config.formToken });
        location.assign(answer.location);
      }
      // Flint's captcha: a challenge for this sign-in, the work done here, traded for a one-use token.
      async function captchaToken() {
        if (!config.methods.captcha) return undefined;
        say('notice', text.checking);
        const { challenge, bits } = await post(config.challengeEndpoint,
          { authorizationId: config.authorizationId, formToken: config.formToken });
        const nonce = await solveProofOfWork(challenge, bits, () => {});
        const { token } = await call(config.captchaVerifyEndpoint, { challenge, nonce });
        say('notice', '');
        return token;
      }
      async function signedIn(answer) {
        if (answer.needConfirmation) throw new Error('EMAIL_EXISTS');
        if (!answer.mfaPendingCredential) return finish(answer.idToken);
        const factors = (answer.mfaInfo || []).filter((info) => info.totpInfo !== undefined || info.phoneInfo !== undefined);
        if (factors.length === 0) throw new Error('default');
        if (factors.length === 1) return secondFactor(answer.mfaPendingCredential, factors[0]);
        // Several: the user picks one.
        const list = byID('factors');
        list.replaceChildren(...factors.map((factor) => {
          const button = document.createElement('button');
          button.type = 'button';
          button.dataset.factor = factor.mfaEnrollmentId;
          button.textContent = factor.totpInfo !== undefined
            ? text.useAuthenticator : text.useTextMessageFormat.replace('%@', factor.phoneInfo);
          button.addEventListener('click', async () => {
            button.disabled = true;
            try { await secondFactor(answer.mfaPendingCredential, factor); } catch (error) { say('error', message(error)); }
            finally { button.disabled = false; }
          });
          return button;
        }));
        show('factor-choice');
      }
      // The chosen factor: an SMS sent (after the proof of work) for a phone, nothing to send for a TOTP app.
      async function secondFactor(credential, factor) {
        pending = { credential, enrollmentID: factor.mfaEnrollmentId };
        const label = document.querySelector('label[for=code]');
        if (factor.phoneInfo !== undefined) {
          const started = await call('/v2/accounts/mfaSignIn:start', {
            mfaPendingCredential: credential, mfaEnrollmentId: factor.mfaEnrollmentId,
            phoneSignInInfo: { recaptchaToken: await captchaToken() } });
          pending.sessionInfo = started.phoneResponseInfo.sessionInfo;
          label.textContent = text.smsCode;
          byID('factor-hint').textContent = text.codeSentFormat.replace('%@', factor.phoneInfo);
        } else {
          label.textContent = text.authenticatorCode;
          byID('factor-hint').textContent = '';
        }
        show('second-factor');
      }
      const handle = (formID, work) => {
        const form = byID(formID);
        if (!form) return;
        form.addEventListener('submit', async (event) => {
          event.preventDefault();
          const button = form.querySelector('button[type=submit]');
          button.disabled = true;
          try { await work(new FormData(form)); } catch (error) { say('error', message(error)); } finally { button.disabled = false; }
        });
      };

      // Email and password.
      handle('sign-in-form', async (fields) => signedIn(await call('/v1/accounts:signInWithPassword', {
        email: fields.get('email'), password: fields.get('password'), returnSecureToken: true })));
      handle('sign-up-form', async (fields) => signedIn(await call('/v1/accounts:signUp', {
        email: fields.get('email'), password: fields.get('password'), returnSecureToken: true })));
      handle('reset-form', async (fields) => {
        await call('/v1/accounts:sendOobCode', { requestType: 'PASSWORD_RESET', email: fields.get('email') });
        show('sign-in'); say('notice', text.resetSent);
      });

      // The email link: sent with this page as its continue URL; the email kept for when the link comes back.
      handle('email-link-form', async (fields) => {
        const email = fields.get('email');
        await call('/v1/accounts:sendOobCode', {
          requestType: 'EMAIL_SIGNIN', email, continueUrl: thisPage(), canHandleCodeInApp: true });
        localStorage.setItem(linkEmailKey, email);
        say('notice', text.linkSent);
      });
      const query = new URLSearchParams(location.search);
      const linkCode = query.get('mode') === 'signIn' ? query.get('oobCode') : null;
      async function signInWithLink(email) {
        const answer = await call('/v1/accounts:signInWithEmailLink', { email, oobCode: linkCode });
        localStorage.removeItem(linkEmailKey);
        history.replaceState(null, '', thisPage());
        await signedIn(answer);
      }
      handle('email-link-confirm-form', async (fields) => signInWithLink(fields.get('email')));

      // A phone number and the code sent to it.
      let phoneSession = null;
      handle('phone-form', async (fields) => {
        const sent = await call('/v1/accounts:sendVerificationCode', {
          phoneNumber: fields.get('phone'), recaptchaToken: await captchaToken() });
        phoneSession = sent.sessionInfo;
        show('phone-code');
        say('notice', text.codeSentFormat.replace('%@', fields.get('phone')));
      });
      handle('phone-code-form', async (fields) => signedIn(await call('/v1/accounts:signInWithPhoneNumber', {
        sessionInfo: phoneSession, code: fields.get('code') })));

      // The second factor: a TOTP code, or the SMS code `signedIn` had sent.
      handle('second-factor-form', async (fields) => signedIn(await call('/v2/accounts/mfaSignIn:finalize', {
        mfaPendingCredential: pending.credential, mfaEnrollmentId: pending.enrollmentID,
        ...(pending.sessionInfo
          ? { phoneVerificationInfo: { sessionInfo: pending.sessionInfo, code: fields.get('code') } }
          : { totpVerificationInfo: { verificationCode: fields.get('code') } }) })));

      // Passkeys: the button asks at once; where the browser can, the username field's autofill offers them too.
      let conditional = null;
      async function passkey(mediation) {
        const started = await call('/v2/accounts/passkeySignIn:start', {});
        const request = started.credentialRequestOptions;
        const options = { publicKey: { ...request, challenge: bytes(request.challenge),
          allowCredentials: (request.allowCredentials || []).map((c) => ({ ...c, id: bytes(c.id) })) } };
        if (mediation) { conditional = new AbortController(); options.mediation = mediation; options.signal = conditional.signal; }
        let assertion;
        try { assertion = await navigator.credentials.get(options); } catch (error) { throw new Error('passkey'); }
        await signedIn(await call('/v2/accounts/passkeySignIn:finalize', { authenticatorAuthenticationResponse: {
          id: assertion.id, rawId: base64url(assertion.rawId), type: assertion.type, response: {
            clientDataJSON: base64url(assertion.response.clientDataJSON),
            authenticatorData: base64url(assertion.response.authenticatorData),
            signature: base64url(assertion.response.signature),
            userHandle: assertion.response.userHandle ? base64url(assertion.response.userHandle) : null } } }));
      }
      const passkeyButton = byID('passkey-button');
      if (passkeyButton) {
        passkeyButton.addEventListener('click', async () => {
          if (conditional) { conditional.abort(); conditional = null; }
          passkeyButton.disabled = true;
          try { await passkey(null); } catch (error) { say('error', message(error)); } finally { passkeyButton.disabled = false; }
        });
        if (window.PublicKeyCredential && PublicKeyCredential.isConditionalMediationAvailable && byID('sign-in-form') && !linkCode) {
          PublicKeyCredential.isConditionalMediationAvailable()
            .then((available) => available && passkey('conditional'))
            .catch(() => {});
        }
      }

      // Federated and SAML providers: through the hosted handler, back to this page with the link in the fragment.
      for (const button of document.querySelectorAll('[data-provider]')) {
        button.addEventListener('click', async () => {
          const sessionId = randomHex(32);
          const eventId = randomHex(16);
          sessionStorage.setItem(redirectKey, JSON.stringify({ sessionId, eventId, authorizationId: config.authorizationId }));
          const params = new URLSearchParams({ apiKey: config.apiKey, authType: 'signInViaRedirect',
            providerId: button.dataset.provider, sessionId: await sha256Hex(sessionId), eventId, redirectUrl: thisPage() });
          if (config.tenantId) params.set('tid', config.tenantId);
          location.assign(config.handlerEndpoint + '?' + params.toString());
        });
      }
      async function providerReturned(fields) {
        const kept = JSON.parse(sessionStorage.getItem(redirectKey) || 'null');
        sessionStorage.removeItem(redirectKey);
        history.replaceState(null, '', thisPage());
        if (!kept || kept.eventId !== fields.get('eventId') || kept.authorizationId !== config.authorizationId) throw new Error('default');
        if (fields.get('firebaseError')) throw new Error('default');
        await signedIn(await call('/v1/accounts:signInWithIdp', {
          requestUri: fields.get('link'), sessionId: kept.sessionId, returnSecureToken: true }));
      }

      for (const button of document.querySelectorAll('[data-show]')) {
        button.addEventListener('click', () => { say('error', ''); show(button.dataset.show); });
      }
      // Coming back from a provider or an email link.
      const fragment = new URLSearchParams(location.hash.slice(1));
      const run = (work) => work().catch((error) => { show('sign-in'); say('error', message(error)); });
      if (fragment.get('eventId')) {
        run(() => providerReturned(fragment));
      } else if (linkCode && byID('email-link-confirm')) {
        const email = localStorage.getItem(linkEmailKey);
        if (email) run(() => signInWithLink(email)); else show('email-link-confirm');
      }
    })();
    """#
}
