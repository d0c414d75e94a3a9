/// The sign-in page's script: it calls the REST API with the project's API key, as an app would, and hands the ID token
/// it gets to the session endpoint, which answers where the browser goes next.
enum ProviderPageScript {
    static let signIn = #"""
    (() => {
      const config = JSON.parse(document.getElementById('flint-config').textContent);
      const byID = (id) => document.getElementById(id);
      const text = config.text;
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
      async function call(path, body) {
        if (config.tenantId) body.tenantId = config.tenantId;
        const response = await fetch(path + '?key=' + encodeURIComponent(config.apiKey), {
          method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        const answer = await response.json();
        if (!response.ok) throw new Error((answer.error && answer.error.message) || 'ERROR');
        return answer;
      }
      async function finish(idToken) {
        const response = await fetch(config.sessionEndpoint, {
          method: 'POST', headers: { 'Content-Type': 'application/json' }, credentials: 'same-origin',
          body: JSON.stringify({ authorizationId: config.authorizationId, idToken, formToken: config.formToken }) });
        const answer = await response.json();
        if (!response.ok) throw new Error((answer.error && answer.error.message) || 'ERROR');
        location.assign(answer.location);
      }
      async function signedIn(answer) {
        if (answer.mfaPendingCredential) {
          const factor = (answer.mfaInfo || []).find((info) => info.totpInfo !== undefined);
          if (!factor) throw new Error('default');
          pending = { credential: answer.mfaPendingCredential, enrollmentID: factor.mfaEnrollmentId };
          show('second-factor');
          return;
        }
        await finish(answer.idToken);
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
      handle('sign-in-form', async (fields) => signedIn(await call('/v1/accounts:signInWithPassword', {
        email: fields.get('email'), password: fields.get('password'), returnSecureToken: true })));
      handle('sign-up-form', async (fields) => signedIn(await call('/v1/accounts:signUp', {
        email: fields.get('email'), password: fields.get('password'), returnSecureToken: true })));
      handle('reset-form', async (fields) => {
        await call('/v1/accounts:sendOobCode', { requestType: 'PASSWORD_RESET', email: fields.get('email') });
        show('sign-in'); say('notice', text.resetSent);
      });
      handle('second-factor-form', async (fields) => signedIn(await call('/v2/accounts/mfaSignIn:finalize', {
        mfaPendingCredential: pending.credential, mfaEnrollmentId: pending.enrollmentID,
        totpVerificationInfo: { verificationCode: fields.get('code') } })));
      for (const button of document.querySelectorAll('[data-show]')) {
        button.addEventListener('click', () => { say('error', ''); show(button.dataset.show); });
      }
    })();
    """#
}
