/**
 * The one script of the built-in pages: the passkey buttons of the sign-in page. WebAuthn runs in the browser
 * (`navigator.credentials`), so the page asks `<mount>/webauthn-options/<id>` for options, lets the browser create
 * or use a passkey, and posts the result to `<mount>/callback/<id>` with the CSRF token. It is inline and allowed by
 * its hash in the Content-Security-Policy, so no other script can run on the page. The page renders the passkey
 * buttons disabled with a note that they need JavaScript; the script enables them and clears the note.
 */
import { createHash } from 'node:crypto';

// Plain ES2020 for every browser with passkeys; base64url conversions by hand because
// PublicKeyCredential.parseCreationOptionsFromJSON is not in every such browser yet.
export const passkeyScript = String.raw`(() => {
  'use strict';
  const toBytes = (text) => {
    const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
    return Uint8Array.from(binary, (character) => character.charCodeAt(0));
  };
  const toText = (buffer) => {
    let binary = '';
    for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };
  const descriptors = (list) => (list || []).map((item) => ({ ...item, id: toBytes(item.id) }));
  const common = (credential) => ({
    id: credential.id,
    rawId: toText(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
  });
  const register = async (options) => {
    const publicKey = { ...options, challenge: toBytes(options.challenge), user: { ...options.user, id: toBytes(options.user.id) }, excludeCredentials: descriptors(options.excludeCredentials) };
    const credential = await navigator.credentials.create({ publicKey });
    const response = credential.response;
    return {
      ...common(credential),
      response: {
        clientDataJSON: toText(response.clientDataJSON),
        attestationObject: toText(response.attestationObject),
        transports: typeof response.getTransports === 'function' ? response.getTransports() : [],
      },
    };
  };
  const authenticate = async (options) => {
    const publicKey = { ...options, challenge: toBytes(options.challenge), allowCredentials: descriptors(options.allowCredentials) };
    const credential = await navigator.credentials.get({ publicKey });
    const response = credential.response;
    return {
      ...common(credential),
      response: {
        clientDataJSON: toText(response.clientDataJSON),
        authenticatorData: toText(response.authenticatorData),
        signature: toText(response.signature),
        userHandle: response.userHandle ? toText(response.userHandle) : undefined,
      },
    };
  };
  for (const form of document.querySelectorAll('form[data-webauthn-options]')) {
    const status = form.querySelector('[data-webauthn-status]');
    const buttons = form.querySelectorAll('button');
    const say = (text) => { status.textContent = text; };
    // The buttons are rendered disabled with a note for browsers without JavaScript; here they can work.
    if (!window.isSecureContext) {
      say('Passkeys need a secure (https) connection. Use another way to sign in.');
      continue;
    }
    if (!window.PublicKeyCredential || !navigator.credentials) {
      say('This browser does not support passkeys. Use another way to sign in.');
      continue;
    }
    say('');
    for (const button of buttons) button.disabled = false;
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const action = event.submitter && event.submitter.dataset.webauthnAction === 'register' ? 'register' : 'authenticate';
      const fields = new FormData(form);
      const query = new URLSearchParams({ action });
      const email = String(fields.get('email') || '').trim();
      if (action === 'register' && email) query.set('email', email);
      for (const button of buttons) button.disabled = true;
      say(action === 'register' ? 'Follow your browser to create a passkey.' : 'Follow your browser to use your passkey.');
      try {
        const answer = await fetch(form.getAttribute('data-webauthn-options') + '?' + query, { credentials: 'same-origin', headers: { accept: 'application/json' } });
        const body = await answer.json();
        // Adding a passkey to an account needs a recent sign-in: the server names the page that asks for one.
        if (body.error === 'reauthentication_required' && typeof body.url === 'string') return window.location.assign(body.url);
        if (!answer.ok) throw new Error(body.message || 'The passkey request was refused.');
        const data = body.action === 'register' ? await register(body.options) : await authenticate(body.options);
        const post = new URLSearchParams({ csrfToken: String(fields.get('csrfToken') || ''), action: body.action, data: JSON.stringify(data) });
        const callbackUrl = fields.get('callbackUrl');
        if (callbackUrl) post.set('callbackUrl', String(callbackUrl));
        const result = await fetch(form.getAttribute('action'), {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'x-auth-return-redirect': '1' },
          body: post,
        });
        const outcome = await result.json();
        if (!result.ok || typeof outcome.url !== 'string') throw new Error(outcome.message || 'Passkey sign-in failed.');
        window.location.assign(outcome.url);
      } catch (error) {
        say(error && error.name === 'NotAllowedError' ? 'The passkey request was cancelled or timed out.' : (error && error.message) || 'Passkey sign-in failed.');
        for (const button of buttons) button.disabled = false;
      }
    });
  }
})();`;

/** The script's CSP source expression (`sha256-<base64>`), computed once. */
export const passkeyScriptHash = `sha256-${createHash('sha256').update(passkeyScript).digest('base64')}`;
