import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import webpush from 'web-push';
import { endpointUrlProblem, guardedLookup } from './push-endpoint';
import type { VapidKeys } from './vapid';

/** A subscription's endpoint and keys, decrypted (as the browser's PushSubscription.toJSON() gives them). */
export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** What the service worker shows (frontend/public/sw.js). */
export interface PushMessage {
  title: string;
  body: string;
  /** Opened (or focused) when the notification is clicked: Home, where the rating form and the in-app reminder are. */
  url: string;
  /** Notifications with the same tag replace each other. */
  tag: string;
}

/** sent: accepted by the push service; gone: the service says the subscription no longer exists (404/410); failed: anything else. */
export type PushOutcome = 'sent' | 'gone' | 'failed';

/** The port the scheduler sends through; `WebPushSender` is the real one. */
export interface PushSender {
  send(target: PushTarget, message: PushMessage): Promise<PushOutcome>;
}

/** How long a push service keeps an undelivered reminder (a reminder for today means nothing tomorrow). */
const TTL_SECONDS = 4 * 3600;
const TIMEOUT_MS = 10_000;

/**
 * Web Push with the `web-push` package: it encrypts the payload (RFC 8291, aes128gcm) and signs the VAPID JWT
 * (RFC 8292); the request itself is made here, so that the connection's address is checked (push-endpoint.ts)
 * and, for tests only, http works too.
 */
export class WebPushSender implements PushSender {
  constructor(
    private readonly vapid: VapidKeys,
    private readonly allowInsecure: boolean,
  ) {}

  async send(target: PushTarget, message: PushMessage): Promise<PushOutcome> {
    if (endpointUrlProblem(target.endpoint, this.allowInsecure)) return 'failed';
    const details = webpush.generateRequestDetails({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, JSON.stringify(message), {
      vapidDetails: this.vapid,
      TTL: TTL_SECONDS,
      contentEncoding: 'aes128gcm',
      urgency: 'normal',
      topic: 'daily-reminder',
    });
    const url = new URL(details.endpoint);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<PushOutcome>((resolve) => {
      const req = request(
        url,
        { method: details.method, headers: details.headers as Record<string, string>, lookup: guardedLookup(this.allowInsecure), timeout: TIMEOUT_MS },
        (res: IncomingMessage) => {
          res.resume();
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            resolve(status >= 200 && status < 300 ? 'sent' : status === 404 || status === 410 ? 'gone' : 'failed');
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('Push service timed out')));
      req.on('error', () => resolve('failed'));
      req.end(details.body ?? undefined);
    });
  }
}
