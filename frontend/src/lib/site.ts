/** Contact details shown on the Help, Privacy and Terms pages. Confirm before launch. */
export const SUPPORT_EMAIL = 'support@joy.app';
export const PRIVACY_EMAIL = 'privacy@joy.app';
export const LEGAL_LAST_UPDATED = 'August 19, 2025';
export const PREMIUM_PRICE = '$4.99';
