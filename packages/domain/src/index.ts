export * from './factors';
export * from './score';
export * from './time';
export * from './premium';
export * from './plans';
export * from './care';
export * from './api';
export * from './errors';
