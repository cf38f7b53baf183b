import { cutToLength, DISPLAY_NAME_MAX, UNITS_PER_CHARACTER } from '@joy/domain';

/**
 * The built-in sign-in's pages: server-rendered HTML forms in Ant Design's look (the app's theme colours, its
 * card, inputs, buttons and alerts), light (no script but the passkey button's), usable from 360 px up, with real
 * labels, errors tied to their fields, and the first invalid field focused.
 */

/** The browser's maxlength counts UTF-16 units: the bound on those; the server counts the characters (text.ts). */
const FIRST_NAME_UNITS = DISPLAY_NAME_MAX * UNITS_PER_CHARACTER;
/** A refused first name is shown again cut to what the field takes, never inside a character. */
const firstNameShown = (name: string | undefined) => (name === undefined ? undefined : cutToLength(name, DISPLAY_NAME_MAX));

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:24px 16px;
background:#fff8f1;color:#2f241d;font:15px/1.5714 'Inter',system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,'Noto Sans',sans-serif}
.demo{position:fixed;top:0;left:0;right:0;background:#b45309;color:#fff;text-align:center;font-weight:600;padding:4px 8px;font-size:14px}
body.has-demo{padding-top:64px}
.brand{display:inline-block;font-size:24px;font-weight:700;color:#c8501c;margin:0 0 16px;letter-spacing:-.01em;text-decoration:none;border-radius:4px}
.brand:hover{color:#d96a36}
main{width:100%;max-width:400px;background:#fff;border-radius:16px;padding:32px 24px;
box-shadow:0 1px 2px 0 rgba(0,0,0,.03),0 1px 6px -1px rgba(0,0,0,.02),0 2px 4px 0 rgba(0,0,0,.02);border:1px solid #f0e6dc}
@media (min-width:480px){main{padding:32px}}
h1{font-size:24px;line-height:1.33;font-weight:600;margin:0 0 4px}
.lead{color:#6b5b50;margin:0 0 24px}
.item{margin-bottom:20px}
label{display:block;padding-bottom:8px;font-weight:500}
input{width:100%;height:40px;padding:7px 11px;font:inherit;font-size:16px;color:inherit;background:#fff;border:1px solid #d9d9d9;border-radius:12px;
transition:border-color .2s,box-shadow .2s}
input:hover{border-color:#e07a45}
input:focus{outline:0;border-color:#c8501c;box-shadow:0 0 0 2px rgba(200,80,28,.15)}
input[aria-invalid=true]{border-color:#b91c1c}
input[aria-invalid=true]:focus{box-shadow:0 0 0 2px rgba(185,28,28,.12)}
.help{color:#6b5b50;font-size:14px;margin-top:4px}
.field-error{color:#b91c1c;font-size:14px;margin-top:4px}
button,.button{display:inline-flex;align-items:center;justify-content:center;gap:8px;width:100%;height:40px;padding:0 15px;font:inherit;font-weight:600;
border-radius:12px;cursor:pointer;text-decoration:none;transition:background .2s,border-color .2s,color .2s}
.primary{background:#c8501c;color:#fff;border:1px solid #c8501c}
.primary:hover{background:#d96a36;border-color:#d96a36}
.default{background:#fff;color:#2f241d;border:1px solid #d9d9d9;margin-top:12px}
.default:hover{color:#c8501c;border-color:#c8501c}
button:focus-visible,.button:focus-visible,a:focus-visible{outline:3px solid #e9a27c;outline-offset:1px}
.alert{border-radius:12px;padding:8px 12px;margin:0 0 20px;border:1px solid}
.alert-error{background:#fff2f0;border-color:#ffccc7}
.alert-info{background:#fff7ef;border-color:#f6c9ad}
.alert-success{background:#f6ffed;border-color:#b7eb8f}
.divider{display:flex;align-items:center;gap:12px;color:#6b5b50;font-size:14px;margin:20px 0 8px}
.divider:before,.divider:after{content:"";flex:1;border-top:1px solid #f0e6dc}
.switch{text-align:center;margin:24px 0 0;color:#6b5b50}
.site-links{display:flex;flex-wrap:wrap;justify-content:center;gap:4px 20px;margin-top:20px;font-size:14px}
.site-links a{color:#6b5b50}
.site-links a:hover{color:#b4461a}
a{color:#b4461a}
[hidden]{display:none!important}
`;

export interface PageOptions {
  title: string;
  /** A demo install (an opt-in in production): a visible banner on every page. */
  demo: boolean;
}

export function page(options: PageOptions, body: string, script = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(options.title)} · Joy</title><style>${STYLE}</style></head><body${options.demo ? ' class="has-demo"' : ''}>
${options.demo ? '<div class="demo" role="note">Demo — development conveniences are turned on; do not use real data.</div>' : ''}
<header><a class="brand" href="/" aria-label="Joy home">Joy</a></header><main>${body}</main>
<footer><nav class="site-links" aria-label="Footer"><a href="/privacy">Privacy Policy</a><a href="/terms">Terms of Service</a></nav></footer>${script}</body></html>`;
}

export interface Field {
  name: string;
  label: string;
  type?: string;
  autocomplete: string;
  value?: string;
  error?: string;
  help?: string;
  required?: boolean;
  maxlength?: number;
  autofocus?: boolean;
  /** The form's own error (id `form-error`) read with the field where the focus lands after a refusal. */
  formError?: boolean;
}

/** What a refused form shows again of a field: never more than the field holds (an error page never echoes a flood). */
function echoed(f: Field): string {
  return f.value!.slice(0, f.maxlength ?? 320);
}

function field(f: Field): string {
  const described = [f.formError ? 'form-error' : '', f.help ? `${f.name}-help` : '', f.error ? `${f.name}-error` : ''].filter(Boolean).join(' ');
  return `<div class="item"><label for="${f.name}">${escape(f.label)}</label>
<input id="${f.name}"${f.autofocus ? ' autofocus' : ''} name="${f.name}" type="${f.type ?? 'text'}" autocomplete="${f.autocomplete}"${f.required === false ? '' : ' required'}${
    f.maxlength ? ` maxlength="${f.maxlength}"` : ''
  }${f.value !== undefined && f.type !== 'password' ? ` value="${escape(echoed(f))}"` : ''}${f.error ? ' aria-invalid="true"' : ''}${
    described ? ` aria-describedby="${described}"` : ''
  }>${f.help ? `<div class="help" id="${f.name}-help">${escape(f.help)}</div>` : ''}${f.error ? `<div class="field-error" id="${f.name}-error">${escape(f.error)}</div>` : ''}</div>`;
}

function alert(kind: 'error' | 'info' | 'success', text: string): string {
  const id = kind === 'error' ? ' id="form-error"' : '';
  return `<div class="alert alert-${kind}"${id} ${kind === 'error' ? 'role="alert"' : 'role="status"'}>${escape(text)}</div>`;
}

/** The field to focus: the first with an error, or the first empty one. */
const autofocus = (fields: Field[]) => {
  const first = fields.find((f) => f.error) ?? fields.find((f) => !f.value);
  return first ? first.name : null;
};

function form(action: string, fields: Field[], submit: string): string {
  const focus = autofocus(fields);
  return `<form method="post" action="${escape(action)}" novalidate>
${fields.map((f) => field({ ...f, autofocus: f.name === focus })).join('\n')}
<button type="submit" class="primary">${escape(submit)}</button></form>`;
}

/** Where a forgotten password is reset: there is no e-mail sending, the operator makes a reset link (README). */
export const FORGOT_PASSWORD = 'Forgot your password? Ask the person who runs Joy for a reset link.';

export interface SignInValues {
  email?: string;
  /** A field left empty or not an e-mail address: said at the field. */
  errors?: Partial<Record<'email' | 'password', string>>;
  /** The form's answer (a wrong e-mail or password, too many attempts): an alert above it. */
  error?: string;
  notice?: string;
  /** Sign-up is open: link to Create account. */
  signupOpen: boolean;
  /** The passkey button (needs the script below). */
  passkeys: boolean;
  /** AUTH_DEV_LOGIN: a link back to the password-less form. */
  devLogin: boolean;
}

export function signInPage(opts: PageOptions, uid: string, v: SignInValues): string {
  const base = `/oidc/interaction/${encodeURIComponent(uid)}`;
  const fields: Field[] = [
    { name: 'email', label: 'Email', type: 'email', autocomplete: 'username webauthn', value: v.email, error: v.errors?.email },
    // The way to a forgotten password sits with the field, so it is read out where the focus lands after a refusal,
    // with the refusal itself (an alert already in the page when it loads is not always announced).
    { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', error: v.errors?.password, help: FORGOT_PASSWORD, formError: !!v.error },
  ];
  return page(
    opts,
    `<h1>Sign in</h1><p class="lead">Welcome back to Joy.</p>
${v.notice ? alert('success', v.notice) : ''}${v.error ? alert('error', v.error) : ''}
${form(`${base}/signin`, fields, 'Sign in')}
${
  v.passkeys
    ? `<div class="divider">or</div><button type="button" class="button default" id="passkey" data-options="${base}/passkey/options" data-verify="${base}/passkey">Sign in with a passkey</button>
<div class="field-error" id="passkey-error" role="alert" hidden></div>`
    : ''
}
${v.signupOpen ? `<p class="switch">New to Joy? <a href="${base}/signup">Create account</a></p>` : ''}
${v.devLogin ? `<p class="switch"><a href="${base}">Development sign-in (no password)</a></p>` : ''}`,
    v.passkeys ? '<script src="/oidc/assets/passkey-sign-in.js"></script>' : '',
  );
}

export interface SignUpValues {
  firstName?: string;
  email?: string;
  errors?: Partial<Record<'firstName' | 'email' | 'password' | 'confirm', string>>;
  error?: string;
}

export function signUpPage(opts: PageOptions, uid: string, v: SignUpValues): string {
  const base = `/oidc/interaction/${encodeURIComponent(uid)}`;
  const e = v.errors ?? {};
  const fields: Field[] = [
    { name: 'firstName', label: 'First name', autocomplete: 'given-name', value: firstNameShown(v.firstName), error: e.firstName, maxlength: FIRST_NAME_UNITS },
    { name: 'email', label: 'Email', type: 'email', autocomplete: 'email', value: v.email, error: e.email },
    // Where the focus lands after a refusal of the whole form (passwords are never shown again): read with it.
    { name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', error: e.password, help: 'At least 10 characters; not a common password.', formError: !!v.error },
    { name: 'confirm', label: 'Confirm password', type: 'password', autocomplete: 'new-password', error: e.confirm },
  ];
  return page(
    { ...opts, title: 'Create account' },
    `<h1>Create account</h1><p class="lead">Start tracking what brings you joy.</p>
${v.error ? alert('error', v.error) : ''}
${form(`${base}/signup`, fields, 'Create account')}
<p class="switch">Already have an account? <a href="${base}/signin">Sign in</a></p>`,
  );
}

export function signUpClosedPage(opts: PageOptions, uid: string): string {
  return page(
    { ...opts, title: 'Create account' },
    `<h1>Create account</h1>${alert('info', 'Sign-up is closed on this install. Ask the person who runs it to create an account for you.')}
<a class="button default" href="/oidc/interaction/${encodeURIComponent(uid)}/signin">Back to Sign in</a>`,
  );
}

export function devSignInPage(opts: PageOptions, uid: string, v: { email?: string; firstName?: string; error?: string }): string {
  const base = `/oidc/interaction/${encodeURIComponent(uid)}`;
  return page(
    { ...opts, title: 'Development sign-in' },
    `<h1>Development sign-in</h1>
<p class="lead">No password is asked (AUTH_DEV_LOGIN=1). Use it only on your own machine or a demo install.</p>
${v.error ? alert('error', v.error) : ''}
<form method="post" action="${base}/login">
${field({ name: 'email', label: 'Email', type: 'email', autocomplete: 'email', value: v.email })}
${field({ name: 'firstName', label: 'First name', autocomplete: 'given-name', value: firstNameShown(v.firstName), required: false, maxlength: FIRST_NAME_UNITS })}
<button type="submit" class="primary">Sign in</button></form>
<p class="switch"><a href="${base}/signin">Use an account with a password</a></p>`,
  );
}

export function resetPage(opts: PageOptions, token: string, v: { errors?: { password?: string; confirm?: string } }): string {
  const e = v.errors ?? {};
  return page(
    { ...opts, title: 'Choose a new password' },
    `<h1>Choose a new password</h1><p class="lead">This link works once.</p>
${form(`/oidc/reset/${encodeURIComponent(token)}`, [
  { name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', error: e.password, help: 'At least 10 characters; not a common password.' },
  { name: 'confirm', label: 'Confirm password', type: 'password', autocomplete: 'new-password', error: e.confirm },
], 'Set password')}`,
  );
}

export function messagePage(opts: PageOptions, heading: string, text: string, link?: { href: string; label: string }): string {
  return page(
    { ...opts, title: heading },
    `<h1>${escape(heading)}</h1><p class="lead">${escape(text)}</p>${link ? `<a class="button primary" href="${escape(link.href)}">${escape(link.label)}</a>` : ''}`,
  );
}
