/// The scripts and style of the emulator's sign-in pages (`EmulatorSignInPages`). Constant text, so the pages'
/// Content-Security-Policy allows exactly these by hash. They read their parameters from the page's own query, as the
/// official pages do, and avoid newer JavaScript so older test browsers run them.
enum EmulatorSignInScripts {
    /// The account chooser: pick a listed account or add one, then hand the unsigned claims back the way `authType`
    /// and the app's parameters say (the SDKs' own shapes).
    static let handler = #"""
(function () {
  'use strict';
  var query = new URLSearchParams(location.search);
  function param(name) { return query.get(name) || ''; }
  function stop(message) {
    document.body.textContent = message;
    document.body.className = 'stopped';
    throw new Error(message);
  }
  if (param('error')) { stop(param('error')); }

  var apiKey = param('apiKey'), appName = param('appName'), authType = param('authType'), providerId = param('providerId');
  var tenantId = param('tid') || param('tenantId') || null, eventId = param('eventId'), redirectUrl = param('redirectUrl');
  var clientId = param('clientId'), firebaseAppId = param('appId'), apn = param('apn'), ibi = param('ibi');
  if (!(appName || clientId || firebaseAppId || apn || ibi)) {
    stop('Missing one of appName / clientId / appId / apn / ibi query params.');
  }
  var storageKey = apiKey + ':' + appName;

  // Apple and Facebook sign in through their native SDKs in production; say so where this page stands in for them.
  if ((providerId === 'facebook.com' && (apn || ibi)) || (providerId === 'apple.com' && ibi)) {
    var name = providerId === 'facebook.com' ? 'Facebook' : 'Apple';
    var warning = document.querySelector('.js-signin-warning');
    warning.querySelector('.content').textContent = 'Sign-in with ' + name + ' via generic IDP is only supported in the Auth ' +
      'Emulator; remember to switch to ' + name + (apn ? ' Android SDK' : ' iOS SDK') + ' for production Firebase projects.';
    warning.hidden = false;
  }

  // Handing the event back.
  function deliver(authEvent) {
    if (/popup/i.test(authType)) {
      if (!relayToOpener(authEvent)) { stop('No matching frame'); }
    } else if (apn) {
      toAndroid(authEvent);
    } else if (ibi || clientId || firebaseAppId) {
      toIOS(authEvent);
    } else if (redirectUrl) {
      sessionStorage.setItem('firebase:redirectEvent:' + storageKey, JSON.stringify(authEvent));
      location.assign(redirectUrl);
    } else {
      stop('This feature is not implemented in Auth Emulator yet. Please use signInWithCredential for now.');
    }
  }

  // The popup's opener holds the SDK's hidden frame, a page of this origin for the same API key and app: post to it.
  function relayToOpener(authEvent) {
    var sent = false, frames = window.opener ? window.opener.frames : [];
    for (var i = 0; i < frames.length; i++) {
      try {
        var frameQuery = new URLSearchParams(frames[i].location.search);
        if (frameQuery.get('apiKey') !== apiKey || frameQuery.get('appName') !== appName) { continue; }
        frames[i].postMessage({
          eventType: 'sendAuthEvent', eventId: String(Math.floor(Math.random() * 1e15)),
          data: { authEvent: authEvent, storageKey: storageKey }
        }, location.origin);
        sent = true;
      } catch (crossOrigin) {
        // Another origin's frame: not ours to read.
      }
    }
    return sent;
  }

  function toIOS(authEvent) {
    var inner = location.origin + '/__/auth/callback?authType=' + encodeURIComponent(authEvent.type);
    inner += authEvent.error ? '&firebaseError=' + encodeURIComponent(JSON.stringify(authEvent.error))
                             : '&link=' + encodeURIComponent(authEvent.urlResponse);
    if (authEvent.eventId) { inner += '&eventId=' + encodeURIComponent(authEvent.eventId); }
    var scheme = clientId ? clientId.split('.').reverse().join('.')
               : firebaseAppId ? 'app-' + firebaseAppId.replace(/:/g, '-') : ibi;
    var host = clientId || firebaseAppId ? 'firebaseauth' : 'google';
    location.replace(scheme + '://' + host + '/link?deep_link_id=' + encodeURIComponent(inner));
  }

  function toAndroid(authEvent) {
    var extras = 'S.authType=' + encodeURIComponent(authEvent.type) + ';';
    if (authEvent.eventId) { extras += 'S.eventId=' + encodeURIComponent(authEvent.eventId) + ';'; }
    extras += authEvent.error ? 'S.firebaseError=' + encodeURIComponent(JSON.stringify(authEvent.error)) + ';'
                              : 'S.link=' + encodeURIComponent(authEvent.urlResponse) + ';';
    var fallback = location.href + '&error=' + encodeURIComponent('App not found for intent');
    location.replace('intent://firebase.auth/#Intent;scheme=genericidp;package=' + encodeURIComponent(apn) + ';' + extras +
      'B.encryptionEnabled=false;S.browser_fallback_url=' + encodeURIComponent(fallback) + ';end;');
  }

  function event(fields) {
    var authEvent = { type: authType, eventId: eventId, sessionId: 'ValueNotUsedByAuthEmulator', postBody: '',
                      tenantId: tenantId, urlResponse: null, error: null };
    for (var key in fields) { authEvent[key] = fields[key]; }
    return authEvent;
  }

  // The credential is this page's address with the provider and the unsigned claims, as signInWithIdp reads it.
  function finish(claimsJSON, email) {
    var url = location.origin + location.pathname + '?providerId=' + encodeURIComponent(providerId) +
      '&id_token=' + encodeURIComponent(claimsJSON);
    if (/^saml\./.test(providerId)) {
      url += '&SAMLResponse=' + encodeURIComponent(JSON.stringify({ assertion: { subject: { nameId: email } } }));
    }
    deliver(event({ urlResponse: url }));
  }

  function cancel() {
    deliver(event({ error: { code: 'auth/user-cancelled', message: 'The user closed the Auth Emulator sign-in page.' } }));
  }

  // The account chooser.
  var accounts = document.querySelectorAll('.js-reuse-account');
  for (var a = 0; a < accounts.length; a++) {
    accounts[a].addEventListener('click', function (e) {
      e.preventDefault();
      var claimsJSON = decodeURIComponent(this.getAttribute('data-id-token'));
      finish(claimsJSON, JSON.parse(claimsJSON).email);
    });
    accounts[a].addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); this.click(); }
    });
  }
  document.getElementById('cancel-button').addEventListener('click', cancel);

  // Adding an account.
  function showForm(visible) {
    document.getElementById('add-user').hidden = !visible;
    document.getElementById('accounts-list').hidden = visible;
    if (visible) { document.getElementById('email-input').focus(); }
  }
  document.querySelector('.js-new-account').addEventListener('click', function (e) { e.preventDefault(); showForm(true); });
  document.getElementById('back-button').addEventListener('click', function () { showForm(false); });

  var emailInput = document.getElementById('email-input');
  function validate() {
    var value = emailInput.value, message = !value ? 'Email required' : value.indexOf('@') < 0 ? 'Missing "@"' : '';
    document.getElementById('email-error').textContent = message;
    document.getElementById('sign-in').disabled = message !== '';
    return message === '';
  }
  emailInput.addEventListener('input', validate);

  var words = ['raccoon', 'olive', 'orange', 'chicken', 'mountain', 'peach', 'panda', 'grass', 'algae', 'otter'];
  function pick() { return words[Math.floor(Math.random() * words.length)]; }
  function capitalized(word) { return word.charAt(0).toUpperCase() + word.slice(1); }
  document.getElementById('autogen-button').addEventListener('click', function () {
    var given = pick(), family = pick();
    emailInput.value = given + '.' + family + '.' + Math.floor(Math.random() * 1000) + '@example.com';
    document.getElementById('display-name-input').value = capitalized(given) + ' ' + capitalized(family);
    document.getElementById('screen-name-input').value = family + '_' + given;
    validate();
  });

  function randomRawId() {
    var digits = '';
    for (var i = 0; i < 40; i++) { digits += Math.floor(Math.random() * 10); }
    return digits;
  }
  document.getElementById('main-form').addEventListener('submit', function (e) {
    e.preventDefault();
    if (!validate()) { return; }
    var claims = { sub: document.getElementById('sub-input').value || randomRawId(), iss: '', aud: '', exp: 0, iat: 0,
                   email: emailInput.value, email_verified: true };
    var fields = { name: 'display-name-input', screen_name: 'screen-name-input', picture: 'profile-photo-input' };
    for (var claim in fields) {
      var value = document.getElementById(fields[claim]).value;
      if (value) { claims[claim] = value; }
    }
    finish(JSON.stringify(claims), claims.email);
  });
})();
"""#

    /// The SDK's hidden frame: keeps the auth event a popup relays to it (or the redirect flow left in this origin's
    /// session storage) and hands it to the SDK through Google's `gapi.iframes` when that loads; without it (offline),
    /// to the embedding page by `postMessage`.
    static let iframe = #"""
(function () {
  'use strict';
  var query = new URLSearchParams(location.search);
  var apiKey = query.get('apiKey'), appName = query.get('appName');
  if (!apiKey || !appName) { throw new Error('Missing query params apiKey or appName for the Auth Emulator iframe.'); }
  var storageKey = 'firebase:redirectEvent:' + apiKey + ':' + appName;
  var sdk = null;

  // The embedding page's origin: where the offline answer may go, and nowhere else.
  var parentOrigin = location.ancestorOrigins && location.ancestorOrigins.length ? location.ancestorOrigins[0]
                   : document.referrer ? new URL(document.referrer).origin : null;

  function hand(authEvent) {
    var message = { type: 'authEvent', authEvent: authEvent || { type: 'unknown', error: { code: 'auth/no-auth-event' } } };
    if (sdk) {
      sdk.send('authEvent', message, function () {}, gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
    } else if (parentOrigin && window.parent !== window) {
      window.parent.postMessage(message, parentOrigin);
    }
  }

  window.addEventListener('message', function (e) {
    // Only this origin's handler page relays events here.
    if (e.origin !== location.origin || !e.data || e.data.eventType !== 'sendAuthEvent') { return; }
    if (!e.data.data || e.data.data.storageKey !== apiKey + ':' + appName) { return; }
    var authEvent = e.data.data.authEvent;
    // Kept until the SDK's messaging is up to take it.
    if (!sdk) { sessionStorage.setItem(storageKey, JSON.stringify(authEvent)); }
    hand(authEvent);
  });

  function stored() {
    var text = sessionStorage.getItem(storageKey);
    sessionStorage.removeItem(storageKey);
    try { return text ? JSON.parse(text) : null; } catch (invalid) { return null; }
  }

  window.gapi_onload = function () {
    gapi.load('gapi.iframes', {
      timeout: 10000,
      callback: function () {
        sdk = gapi.iframes.getContext().getParentIframe();
        sdk.register('webStorageSupport', function () {
          return { status: 'ACK', webStorageSupport: true };
        }, gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
        hand(stored());
      }
    });
  };
  // Offline, a redirect's stored event still reaches the page (and stays for the SDK, should gapi load later).
  var pending = sessionStorage.getItem(storageKey);
  if (pending) {
    try { hand(JSON.parse(pending)); } catch (invalid) { sessionStorage.removeItem(storageKey); }
  }
})();
"""#

    static let style = """
body{font-family:Roboto,system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#202124;background:#fff}\
#content{box-sizing:border-box;margin:16px auto;max-width:515px;min-width:300px;padding:0 24px}\
#title{display:flex;align-items:center;font-size:24px;font-weight:500;margin:32px 0 16px}\
.subtitle{color:rgba(0,0,0,.56);font-size:14px;line-height:20px;margin:0 0 8px}\
ul{padding:0;margin:0}li{list-style:none}\
.mdc-list-item{display:flex;align-items:center;gap:16px;padding:8px 0;cursor:pointer;border-radius:4px}\
.mdc-list-item:hover,.mdc-list-item:focus{background:#f1f3f4;outline:none}\
.mdc-list-item__graphic{width:36px;height:36px;border-radius:50%;background:#c5c5c5;flex-shrink:0;object-fit:cover}\
.mdc-list-item__text{display:flex;flex-direction:column}.mdc-list-item__secondary-text{color:rgba(0,0,0,.56);font-size:14px}\
button{font:inherit;font-size:14px;padding:8px 16px;border-radius:4px;border:1px solid #dadce0;background:#fff;color:#1a73e8;cursor:pointer}\
button[type=submit]{background:#1a73e8;color:#fff;border-color:#1a73e8}button:disabled{opacity:.5;cursor:default}\
.callout{display:flex;padding:12px 16px;margin-bottom:16px;background:#e5eaf0;color:#476282;font-size:14px;font-weight:500}\
.callout-warning{background:#fff3e0;color:#bf360c}\
label{display:block;color:rgba(0,0,0,.54);font-size:12px;margin:12px 0 4px}\
input{box-sizing:border-box;width:100%;height:40px;padding:0 12px;font:inherit;border:1px solid #dadce0;border-radius:4px}\
.error-info{display:block;color:#c62828;font-size:12px;min-height:16px;padding-top:4px}\
#main-action{display:flex;justify-content:space-between;margin-top:16px}#cancel-button{margin-top:16px}\
body.stopped{color:#c62828;white-space:pre-wrap;padding:16px}
"""
}
