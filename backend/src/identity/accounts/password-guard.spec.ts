import type { Request } from 'express';
import { ACCOUNT_FROM_NETWORK_THROTTLE, ACCOUNT_THROTTLE, NETWORK_THROTTLE, PasswordGuard } from './password-guard';

const from = (ip: string) => ({ ip, socket: {} }) as unknown as Request;
const wrong = async () => null;
const right = async () => 'account-1';

describe('the wrong-password throttles', () => {
  // A review (11-27): 5 wrong passwords from anywhere locked the account, the right password included, and one guess
  // every 3 minutes kept its owner out for good.
  it('does not lock the owner out because of guesses from another network', async () => {
    const guard = new PasswordGuard();
    for (let i = 0; i < ACCOUNT_FROM_NETWORK_THROTTLE.limit; i++) expect(await guard.check('ada', from('203.0.113.7'), wrong)).toBeNull();
    expect(await guard.check('ada', from('203.0.113.7'), right)).toEqual({ wait: expect.any(Number) });
    expect(await guard.check('ada', from('198.51.100.20'), right)).toBe('account-1');
  });

  it('still stops guessing one account from many networks, and a reset starts it afresh', async () => {
    const guard = new PasswordGuard();
    for (let i = 0; i < ACCOUNT_THROTTLE.limit; i++) expect(await guard.check('ada', from(`192.0.2.${i}`), wrong)).toBeNull();
    expect(await guard.check('ada', from('198.51.100.20'), right)).toEqual({ wait: expect.any(Number) });
    guard.clearAccount('ada');
    expect(await guard.check('ada', from('198.51.100.20'), right)).toBe('account-1');
  });

  // The same review: each IPv6 address counted apart, so one home's /64 had endless tries.
  it('counts an IPv6 network (/56) as one, as the other limits do', async () => {
    const guard = new PasswordGuard();
    for (let i = 0; i < NETWORK_THROTTLE.limit; i++) expect(await guard.check(`someone-${i}`, from(`2001:db8:0:${i.toString(16)}::1`), wrong)).toBeNull();
    expect(await guard.check('someone-else', from('2001:db8:0:ff::1'), right)).toEqual({ wait: expect.any(Number) });
    expect(guard.waitMs(null, from('2001:db8:1::1'))).toBe(0); // another /56
  });
});
