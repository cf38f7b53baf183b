import { addressAllowed, ENDPOINT_MESSAGES, endpointProblem, endpointUrlProblem } from './push-endpoint';

describe('push endpoints the server may send to', () => {
  it.each(['10.1.2.3', '172.16.0.1', '192.168.1.1', '127.0.0.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '::1', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1', '224.0.0.1',
    '::7f00:1', '::10.0.0.1', 'fec0::1', '64:ff9b::10.0.0.1', '64:ff9b:1::a00:1', '64:ff9b::7f00:1', '198.18.0.1', '198.19.255.254', '::ffff:198.18.0.1', '100::1'])(
    'refuses the non-public address %s',
    (address) => expect(addressAllowed(address, false)).toBe(false),
  );

  it('allows public addresses, and loopback only in the insecure test mode', () => {
    expect(addressAllowed('142.250.74.10', false)).toBe(true);
    expect(addressAllowed('2a00:1450:4001::200e', false)).toBe(true);
    // An IPv4 address carried in IPv6 (NAT64) is as public as it is.
    expect(addressAllowed('64:ff9b::8efa:4a0a', false)).toBe(true);
    expect(addressAllowed('127.0.0.1', true)).toBe(true);
    expect(addressAllowed('::1', true)).toBe(true);
    expect(addressAllowed('10.0.0.1', true)).toBe(false);
    expect(addressAllowed('169.254.169.254', true)).toBe(false);
  });

  it('asks for https without credentials', () => {
    expect(endpointUrlProblem('https://push.example.com/send/abc', false)).toBeNull();
    expect(endpointUrlProblem('http://push.example.com/send/abc', false)).toBe(ENDPOINT_MESSAGES.notHttps);
    expect(endpointUrlProblem('http://push.example.com/send/abc', true)).toBeNull();
    expect(endpointUrlProblem('ftp://push.example.com/x', true)).toBe(ENDPOINT_MESSAGES.notHttps);
    expect(endpointUrlProblem('https://user:pw@push.example.com/x', false)).toBe(ENDPOINT_MESSAGES.notUrl);
    expect(endpointUrlProblem('not a url', false)).toBe(ENDPOINT_MESSAGES.notUrl);
    expect(endpointUrlProblem('https://[::1]/x', false)).toBe(ENDPOINT_MESSAGES.notPublic);
    expect(endpointUrlProblem('https://10.0.0.8/x', false)).toBe(ENDPOINT_MESSAGES.notPublic);
  });

  it('checks every address the host resolves to, not the name', async () => {
    const resolvesTo = (...addresses: string[]) => async () => addresses;
    expect(await endpointProblem('https://push.example.com/x', false, resolvesTo('142.250.74.10'))).toBeNull();
    expect(await endpointProblem('https://push.example.com/x', false, resolvesTo('142.250.74.10', '10.0.0.5'))).toBe(ENDPOINT_MESSAGES.notPublic);
    expect(await endpointProblem('https://looks-public.example/x', false, resolvesTo('127.0.0.1'))).toBe(ENDPOINT_MESSAGES.notPublic);
    expect(await endpointProblem('https://nowhere.invalid/x', false, async () => Promise.reject(new Error('ENOTFOUND')))).toBe(ENDPOINT_MESSAGES.unresolved);
  });

  // The refusals a real install (no PUSH_ALLOW_INSECURE_ENDPOINTS) answers at POST /api/push/subscriptions with 400
  // push.endpoint_refused naming endpoint; push.api.spec.ts keeps one of them over HTTP.
  it.each([
    ['http', 'http://8.8.8.8/push/x', ENDPOINT_MESSAGES.notHttps],
    ['a private address', 'https://10.0.0.7/push/x', ENDPOINT_MESSAGES.notPublic],
    ['the cloud metadata address', 'https://169.254.169.254/latest', ENDPOINT_MESSAGES.notPublic],
    ['IPv6 loopback', 'https://[::1]:8443/push/x', ENDPOINT_MESSAGES.notPublic],
    ['a name that resolves to loopback', 'https://localhost/push/x', ENDPOINT_MESSAGES.notPublic],
    ['a URL with credentials', 'https://user:pw@8.8.8.8/push/x', ENDPOINT_MESSAGES.notUrl],
  ])('refuses an endpoint on %s', async (_label, endpoint, message) => {
    // What localhost resolves to, without asking a resolver (a unit test does no I/O).
    const resolve = async (host: string) => (host === 'localhost' ? ['127.0.0.1', '::1'] : Promise.reject(new Error(`unexpected lookup of ${host}`)));
    expect(await endpointProblem(endpoint, false, resolve)).toBe(message);
  });
});
