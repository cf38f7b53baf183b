// oidc-provider ships no type declarations; the development provider uses a small, checked part of it.
declare module 'oidc-provider';
