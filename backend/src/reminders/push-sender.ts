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

/**
 * What one send came to. `status` is the push service's HTTP status (null: no answer: a timeout, a refused
 * connection, an endpoint refused here, a send aborted at shutdown). `retryable`: worth trying again later the same
 * day (no answer, 408, 429, 5xx); `retryAfterMs`: the service's Retry-After, when it gave one. `reason` is for logs
 * and never holds the endpoint (a credential of the person's browser).
 */
export type PushResult =
  | { outcome: 'sent'; status: number }
  | { outcome: 'gone'; status: number }
  | { outcome: 'failed'; status: number | null; retryable: boolean; retryAfterMs: number | null; reason: string };

/** The port the scheduler sends through; `WebPushSender` is the real one. `signal` abandons the send (shutdown). */
export interface PushSender {
  send(target: PushTarget, message: PushMessage, signal?: AbortSignal): Promise<PushResult>;
}

/** How long a push service keeps an undelivered reminder (a reminder for today means nothing tomorrow). */
const TTL_SECONDS = 4 * 3600;
/** The whole request, from connecting to the end of the answer's headers: endpoints are user-supplied, any host may stall. */
export const PUSH_DEADLINE_MS = 10_000;

const failed = (status: number | null, retryable: boolean, reason: string, retryAfterMs: number | null = null): PushResult => ({
  outcome: 'failed',
  status,
  retryable,
  retryAfterMs,
  reason,
});

/** Retry-After (RFC 9110 §10.2.3): seconds, or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** How a push service's answer is taken (RFC 8030 §5, §8.4): 404/410 the subscription is gone; 408, 429 and 5xx may pass. */
export function resultOf(status: number, retryAfter: string | string[] | undefined): PushResult {
  if (status >= 200 && status < 300) return { outcome: 'sent', status };
  if (status === 404 || status === 410) return { outcome: 'gone', status };
  const retryable = status === 408 || status === 429 || status >= 500;
  return failed(status, retryable, `HTTP ${status}`, retryable ? retryAfterMs(retryAfter) : null);
}

/**
 * Web Push with the `web-push` package: it encrypts the payload (RFC 8291, aes128gcm) and signs the VAPID JWT
 * (RFC 8292); the request itself is made here, so that the connection's address is checked (push-endpoint.ts)
 * and, for tests only, http works too. Every send settles within `deadlineMs` whatever the push service does
 * (silent, or a body trickled a byte at a time): the answer's status is all it needs, and a request still open at
 * the deadline is destroyed.
 */
export class WebPushSender implements PushSender {
  constructor(
    private readonly vapid: VapidKeys,
    private readonly allowInsecure: boolean,
    private readonly deadlineMs = PUSH_DEADLINE_MS,
  ) {}

  async send(target: PushTarget, message: PushMessage, signal?: AbortSignal): Promise<PushResult> {
    if (endpointUrlProblem(target.endpoint, this.allowInsecure)) return failed(null, false, 'endpoint refused');
    if (signal?.aborted) return failed(null, true, 'aborted');
    const details = webpush.generateRequestDetails({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, JSON.stringify(message), {
      vapidDetails: this.vapid,
      TTL: TTL_SECONDS,
      contentEncoding: 'aes128gcm',
      urgency: 'normal',
      topic: 'daily-reminder',
    });
    const url = new URL(details.endpoint);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<PushResult>((resolve) => {
      let settled = false;
      const settle = (result: PushResult) => {
        if (settled) return;
        settled = true;
        resolve(result);
      };
      const req = request(url, { method: details.method, headers: details.headers as Record<string, string>, lookup: guardedLookup(this.allowInsecure) }, (res: IncomingMessage) => {
        // The status decides; the body (push services send none or a short one) is read and dropped, within the deadline.
        settle(resultOf(res.statusCode ?? 0, res.headers['retry-after']));
        res.on('error', () => undefined);
        res.resume();
      });
      // Whatever happens, the request is gone by the deadline (headers and body): a timer, not the socket's idle timeout.
      const timer = setTimeout(() => {
        settle(failed(null, true, 'timed out'));
        req.destroy();
      }, this.deadlineMs);
      const abort = () => {
        settle(failed(null, true, 'aborted'));
        req.destroy();
      };
      signal?.addEventListener('abort', abort, { once: true });
      req.on('close', () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        settle(failed(null, true, 'connection closed'));
      });
      req.on('error', (err: NodeJS.ErrnoException) => settle(failed(null, true, err.code ?? 'connection failed')));
      req.end(details.body ?? undefined);
    });
  }
}
