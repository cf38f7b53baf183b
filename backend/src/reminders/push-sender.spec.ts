import webpush from 'web-push';
import { startPushReceiver, type PushReceiver } from '../testing/push-receiver';
import { resultOf, retryAfterMs, WebPushSender, type PushResult } from './push-sender';

jest.setTimeout(60_000);

/**
 * The real sender against push services that misbehave (endpoints are user-supplied: any host may). Its deadline
 * is short here; the bound each check allows is far longer, so that a loaded machine cannot fail it, while a send
 * with no deadline (pending for ever) still does.
 */
const DEADLINE_MS = 300;
const LIVENESS_MS = 20_000;
const message = { title: 't', body: 'b', url: '/', tag: 'x' };

let receiver: PushReceiver;
let sender: WebPushSender;
beforeAll(async () => {
  receiver = await startPushReceiver();
  const vapid = webpush.generateVAPIDKeys();
  sender = new WebPushSender({ subject: 'mailto:ops@example.org', ...vapid }, true, DEADLINE_MS);
});
afterAll(() => receiver.close());

/** The send's result, or 'pending' when it has not settled within LIVENESS_MS. */
const settle = (send: Promise<PushResult>) =>
  Promise.race([send, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), LIVENESS_MS).unref())]);
const target = (name: string, answer: Parameters<PushReceiver['answers']['set']>[1]) => {
  receiver.answers.set(name, answer);
  const { endpoint, keys } = receiver.subscription(name);
  return { endpoint, ...keys };
};

describe('a push send is bounded as a whole', () => {
  it('gives up on a push service that never answers, at the deadline, as worth retrying', async () => {
    expect(await settle(sender.send(target('silent', 'hang'), message))).toEqual({ outcome: 'failed', status: null, retryable: true, retryAfterMs: null, reason: 'timed out' });
  });

  it('takes the status of a service that trickles its body a byte a second, without waiting for the body', async () => {
    expect(await settle(sender.send(target('trickle', 'trickle'), message))).toEqual({ outcome: 'sent', status: 201 });
  });

  it('settles at once when the send is abandoned (shutdown)', async () => {
    const abort = new AbortController();
    const slow = new WebPushSender({ subject: 'mailto:ops@example.org', ...webpush.generateVAPIDKeys() }, true, 10 * LIVENESS_MS);
    const send = slow.send(target('stuck', 'hang'), message, abort.signal);
    while (!receiver.received.some((r) => r.path === '/push/stuck')) await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    expect(await settle(send)).toMatchObject({ outcome: 'failed', reason: 'aborted' });
  });
});

describe('what a push service\'s answer means', () => {
  it('passes on a 503\'s or 429\'s Retry-After, and says it is worth retrying', async () => {
    expect(await settle(sender.send(target('busy', { status: 503, headers: { 'retry-after': '120' } }), message))).toEqual({
      outcome: 'failed',
      status: 503,
      retryable: true,
      retryAfterMs: 120_000,
      reason: 'HTTP 503',
    });
    expect(resultOf(429, undefined)).toMatchObject({ retryable: true, retryAfterMs: null });
  });

  it('takes 404 and 410 as gone, and other 4xx as not worth retrying today', () => {
    expect(resultOf(410, undefined)).toEqual({ outcome: 'gone', status: 410 });
    expect(resultOf(404, undefined)).toEqual({ outcome: 'gone', status: 404 });
    expect(resultOf(403, '60')).toEqual({ outcome: 'failed', status: 403, retryable: false, retryAfterMs: null, reason: 'HTTP 403' });
  });

  it('reads Retry-After as seconds or as a date', () => {
    const now = Date.parse('2026-03-10T19:00:00Z');
    expect(retryAfterMs('30', now)).toBe(30_000);
    expect(retryAfterMs('Tue, 10 Mar 2026 19:02:00 GMT', now)).toBe(120_000);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });
});
