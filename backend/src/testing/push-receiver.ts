import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A push service stand-in for tests: a browser's subscription (its own P-256 key pair and auth secret) and an
 * HTTP endpoint that receives what the server pushes, decrypts it as the browser would (RFC 8291, aes128gcm) and
 * checks the VAPID authorization (RFC 8292: an ES256 JWT for the endpoint's origin, and the key it is signed with).
 */

export interface ReceivedPush {
  path: string;
  headers: IncomingHttpHeaders;
  /** The decrypted payload (throws at receipt when it does not decrypt: recorded as `error`). */
  payload: string | null;
  error: string | null;
  vapid: { key: string; claims: Record<string, unknown>; signatureValid: boolean } | null;
}

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/** RFC 8291 §3.4 / RFC 8188: decrypts one aes128gcm body with the subscription's private key and auth secret. */
export function decryptAes128gcm(body: Buffer, receiver: ECDH, authSecret: Buffer): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20];
  const senderPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  if (ciphertext.length > rs) throw new Error('more than one record');
  const receiverPublic = receiver.getPublicKey();
  const ecdhSecret = receiver.computeSecret(senderPublic);
  const prkKey = hmac(authSecret, ecdhSecret);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), receiverPublic, senderPublic, Buffer.from([1])]);
  const ikm = hmac(prkKey, keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end).toString('utf8');
}

/** Parses `vapid t=<jwt>, k=<key>` and checks the JWT's ES256 signature with that key. */
export function checkVapid(authorization: string | undefined): ReceivedPush['vapid'] {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!m) return null;
  const [, jwt, key] = m;
  const [header, claims, signature] = jwt.split('.');
  const point = Buffer.from(key, 'base64url');
  const publicKey = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') },
    format: 'jwk',
  });
  const signatureValid =
    JSON.parse(Buffer.from(header, 'base64url').toString()).alg === 'ES256' &&
    verify('sha256', Buffer.from(`${header}.${claims}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  return { key, claims: JSON.parse(Buffer.from(claims, 'base64url').toString()), signatureValid };
}

/**
 * How the "push service" answers a push: a status (with headers, e.g. Retry-After), or a misbehaving service:
 * `hang` never answers; `trickle` answers 201 and then sends its body one byte a second, never finishing.
 */
export type PushAnswer = number | { status: number; headers?: Record<string, string> } | 'hang' | 'trickle';

export interface PushReceiver {
  url: string;
  received: ReceivedPush[];
  /** The status the "push service" answers (201 by default; 410 for a subscription that is gone). */
  answer: number;
  /** Answers for particular subscriptions (by the name given to `subscription`), over `answer`. */
  answers: Map<string, PushAnswer>;
  /** A browser subscription on this receiver, as PushSubscription.toJSON() gives it. */
  subscription(name: string): { endpoint: string; keys: { p256dh: string; auth: string } };
  close(): Promise<void>;
}

export async function startPushReceiver(): Promise<PushReceiver> {
  const browsers = new Map<string, { ecdh: ECDH; auth: Buffer }>();
  const received: ReceivedPush[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const name = (req.url ?? '').split('/').pop() ?? '';
      const browser = browsers.get(name);
      let payload: string | null = null;
      let error: string | null = null;
      try {
        if (!browser) throw new Error(`unknown subscription ${name}`);
        payload = decryptAes128gcm(Buffer.concat(chunks), browser.ecdh, browser.auth);
      } catch (err) {
        error = (err as Error).message;
      }
      received.push({ path: req.url ?? '', headers: req.headers, payload, error, vapid: checkVapid(req.headers.authorization) });
      const answer = receiver.answers.get(name) ?? receiver.answer;
      if (answer === 'hang') return;
      if (answer === 'trickle') {
        res.writeHead(201, { 'content-length': '100000' });
        res.flushHeaders();
        const timer = setInterval(() => res.write('x'), 1000);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (typeof answer === 'number') res.writeHead(answer).end();
      else res.writeHead(answer.status, answer.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const receiver: PushReceiver = {
    url,
    received,
    answer: 201,
    answers: new Map(),
    subscription(name) {
      let browser = browsers.get(name);
      if (!browser) {
        const ecdh = createECDH('prime256v1');
        ecdh.generateKeys();
        browser = { ecdh, auth: randomBytes(16) };
        browsers.set(name, browser);
      }
      return { endpoint: `${url}/push/${name}`, keys: { p256dh: browser.ecdh.getPublicKey().toString('base64url'), auth: browser.auth.toString('base64url') } };
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // those left hanging or trickling
      }),
  };
  return receiver;
}
