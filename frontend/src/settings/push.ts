import type { PushPublicKeyView } from '@joy/domain';
import { apiJson } from '../api';

/*
 * Reminders on this device: the browser's Web Push subscription (through the app's service worker, sw.js, which
 * shows the notification) registered with the server, which sends it the daily reminder.
 */

export type DeviceReminders = 'unsupported' | 'blocked' | 'off' | 'on';

export function pushSupported(): boolean {
  return (
    typeof window !== 'undefined' &&
    window.isSecureContext !== false &&
    // Present but undefined in some private windows (Firefox): `'serviceWorker' in navigator` is not enough.
    !!navigator.serviceWorker &&
    'PushManager' in window &&
    'Notification' in window
  );
}

/*
 * A window whose browser refused push once (a private window, a browser without a push service) refuses it every
 * time: remembered for the tab, so that Settings says so before the person tries again.
 */
const REFUSED_KEY = 'joy.push.refused';

function refusedHere(): boolean {
  try {
    return sessionStorage.getItem(REFUSED_KEY) === '1';
  } catch {
    return false;
  }
}

function rememberRefused(): void {
  try {
    sessionStorage.setItem(REFUSED_KEY, '1');
  } catch {
    // No storage (some private windows): the next visit finds out again.
  }
}

/**
 * A step only the browser takes (registering the worker, subscribing with the push service). Its failure online is
 * the browser refusing push in this window: Chromium's private windows and a browser without a push service answer
 * "AbortError: Registration failed - permission denied" even with notifications allowed, Firefox's private windows a
 * SecurityError. A retry cannot work there, so it is 'unsupported' and not an error. Offline, the push service is
 * out of reach: that error stands, and a retry once online can work.
 */
async function browserStep<T>(step: () => Promise<T>): Promise<T | 'unsupported'> {
  try {
    return await step();
  } catch (error) {
    if (navigator.onLine === false) throw error;
    rememberRefused();
    return 'unsupported';
  }
}

async function registration(): Promise<ServiceWorkerRegistration> {
  return (await navigator.serviceWorker.getRegistration('/')) ?? navigator.serviceWorker.register('/sw.js');
}

function keyBytes(base64url: string): Uint8Array {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

/** Whether this browser receives the person's reminders now. */
export async function deviceReminders(): Promise<DeviceReminders> {
  if (!pushSupported() || refusedHere()) return 'unsupported';
  if (Notification.permission === 'denied') return 'blocked';
  const existing = await (await registration()).pushManager.getSubscription();
  return existing && Notification.permission === 'granted' ? 'on' : 'off';
}

/** Asks for permission to notify, subscribes with the install's key and registers the subscription with the server. */
export async function enableDeviceReminders(): Promise<DeviceReminders> {
  if (!pushSupported()) return 'unsupported';
  const permission = await Notification.requestPermission();
  if (permission === 'denied') return 'blocked';
  if (permission !== 'granted') return 'off';
  const reg = await browserStep(async () => {
    await registration();
    return navigator.serviceWorker.ready;
  });
  if (reg === 'unsupported') return reg;
  const { publicKey } = await apiJson<PushPublicKeyView>('GET', '/api/push/public-key');
  const applicationServerKey = keyBytes(publicKey);
  let subscription = await reg.pushManager.getSubscription();
  const sameKey = (s: PushSubscription) => {
    const key = s.options.applicationServerKey;
    return key !== null && new Uint8Array(key).every((b, i) => b === applicationServerKey[i]);
  };
  if (subscription && !sameKey(subscription)) {
    // Subscribed for another key (the install's keys changed): start again.
    await subscription.unsubscribe();
    subscription = null;
  }
  if (!subscription) {
    const subscribed = await browserStep(() => reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: applicationServerKey as BufferSource }));
    if (subscribed === 'unsupported') return subscribed;
    subscription = subscribed;
  }
  const { endpoint, keys } = subscription.toJSON();
  await apiJson('POST', '/api/push/subscriptions', { endpoint, keys });
  return 'on';
}

/**
 * At Sign out: this browser stops receiving the person's reminders (the server forgets it, the browser drops the
 * subscription), so that the next person at a shared browser neither gets them nor is told "This device shows your
 * daily reminder" (a review, 11-27). Registers no service worker, and gives up after `ms`: signing out never waits on it.
 */
export async function forgetDeviceReminders(ms = 2000): Promise<void> {
  if (!pushSupported()) return;
  const forget = async () => {
    const subscription = await (await navigator.serviceWorker.getRegistration('/'))?.pushManager.getSubscription();
    if (subscription) await dropSubscription(subscription);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([forget().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Stops reminders on this browser (the server forgets it, the browser drops the subscription). */
export async function disableDeviceReminders(): Promise<DeviceReminders> {
  if (!pushSupported()) return 'unsupported';
  const subscription = await (await registration()).pushManager.getSubscription();
  if (subscription) await dropSubscription(subscription);
  return 'off';
}

/** The server forgets the subscription (whatever it answers), then the browser drops it. */
async function dropSubscription(subscription: PushSubscription): Promise<void> {
  await apiJson('DELETE', '/api/push/subscriptions', { endpoint: subscription.endpoint }).catch(() => undefined);
  await subscription.unsubscribe();
}
