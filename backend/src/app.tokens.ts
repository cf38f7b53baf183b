/** Nest injection tokens of values that are not classes. */
export const APP_CONFIG = 'AppConfig';
export const SESSION_STORE = 'SessionStore';
/** The whole Infrastructure (health looks at every part). */
export const INFRASTRUCTURE = 'Infrastructure';
