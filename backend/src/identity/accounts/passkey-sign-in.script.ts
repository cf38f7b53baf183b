/**
 * The Sign in page's only script (served at /oidc/assets/passkey-sign-in.js; the CSP allows no inline script):
 * "Sign in with a passkey" asks the provider for a challenge, lets the browser's authenticator answer it
 * (WebAuthn, any passkey of this site), posts the answer as JSON and follows the redirect. Plain ES2017 with the
 * base64url conversions WebAuthn needs; hidden where the browser has no WebAuthn.
 */
export const PASSKEY_SIGN_IN_SCRIPT = `(function () {
  var button = document.getElementById('passkey');
  var error = document.getElementById('passkey-error');
  if (!button) return;
  if (!window.PublicKeyCredential || !navigator.credentials) { button.hidden = true; return; }
  function decode(s) {
    var b = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
    return Uint8Array.from(b, function (c) { return c.charCodeAt(0); }).buffer;
  }
  function encode(buf) {
    var bytes = new Uint8Array(buf), s = '';
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }
  function show(text) { error.textContent = text; error.hidden = false; }
  button.addEventListener('click', async function () {
    error.hidden = true;
    button.disabled = true;
    try {
      var options = await (await fetch(button.dataset.options, { credentials: 'same-origin' })).json();
      var credential = await navigator.credentials.get({ publicKey: {
        challenge: decode(options.challenge), rpId: options.rpId, timeout: options.timeout, userVerification: options.userVerification,
        allowCredentials: (options.allowCredentials || []).map(function (c) { return { type: 'public-key', id: decode(c.id), transports: c.transports }; })
      } });
      var r = credential.response;
      var body = { id: credential.id, rawId: encode(credential.rawId), type: credential.type,
        response: { clientDataJSON: encode(r.clientDataJSON), authenticatorData: encode(r.authenticatorData), signature: encode(r.signature),
          userHandle: r.userHandle ? encode(r.userHandle) : undefined },
        clientExtensionResults: credential.getClientExtensionResults(), authenticatorAttachment: credential.authenticatorAttachment || undefined };
      var res = await fetch(button.dataset.verify, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      var answer = await res.json();
      if (res.ok) { location.assign(answer.redirect); return; }
      show(answer.message);
    } catch (e) {
      show('No passkey was used. Try again, or sign in with your e-mail and password.');
    }
    button.disabled = false;
  });
})();
`;
