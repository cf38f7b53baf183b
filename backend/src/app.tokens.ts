/** Nest injection tokens of values that are not classes. */
export const APP_CONFIG = 'AppConfig';
export const SESSION_STORE = 'SessionStore';
/** The built-in sign-in's accounts (LocalAccounts), or null with an external OIDC_ISSUER. */
export const LOCAL_ACCOUNTS = 'LocalAccounts';
/** The whole Infrastructure (health looks at every part). */
export const INFRASTRUCTURE = 'Infrastructure';
/** The install's keyed hash (LookupHash) of e-mails and provider subjects. */
export const LOOKUP_HASH = 'LookupHash';
