import { displayName } from './user';

describe('displayName', () => {
  it('is the first name', () => {
    expect(displayName({ firstName: 'Maya', email: 'maya@example.com' })).toBe('Maya');
  });

  it('is the part of the e-mail before the @ without a first name', () => {
    expect(displayName({ firstName: null, email: 'sam.lee@example.com' })).toBe('sam.lee');
    expect(displayName({ firstName: '  ', email: 'sam@example.com' })).toBe('sam');
  });

  it('is Friend without either', () => {
    expect(displayName({ firstName: null, email: null })).toBe('Friend');
    expect(displayName({ firstName: null, email: '@example.com' })).toBe('Friend');
    expect(displayName(undefined)).toBe('Friend');
  });
});
