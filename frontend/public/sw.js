/* Joy service worker: caches the app shell so the app opens offline.
 * - Navigations: network first; when the network fails, the cached index.html (the app then shows
 *   "You are offline"), or a small built-in offline page when nothing is cached yet.
 * - Hashed /assets/* files: cache first, filled at install and at use. Icon and manifest: network first.
 * - /api and /oidc are never cached or intercepted: sessions and data always go to the server.
 * - A new deployment (index.html loading a different entry script) drops the old hashed assets.
 * - Only the app shell is kept as index.html: the prerendered pages that signed-out visitors get at "/", "/help",
 *   "/privacy" and "/terms" load no script, and are never stored in its place (storeIndex keeps only a page with
 *   the app's entry script); offline, the app shell shows those pages as the app does.
 * Registered from src/main.tsx; the server sends this file with Cache-Control: no-cache.
 */
const CACHE = 'joy-shell-v2';
const SHELL = ['/manifest.webmanifest', '/icon.svg'];

const OFFLINE_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>You are offline · Joy</title>
<style>body{font-family:system-ui,sans-serif;background:#fff8f1;color:#3b2a1f;display:grid;place-items:center;min-height:100vh;margin:0;padding:24px;text-align:center}
h1{color:#c8501c}button{font:inherit;padding:10px 20px;border-radius:8px;border:0;background:#c8501c;color:#fff;cursor:pointer}</style></head>
<body><main><h1>You are offline</h1><p>Joy can't reach the internet right now. Check your connection and try again.</p>
<button onclick="location.reload()">Try again</button></main></body></html>`;

function assetPaths(html) {
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
}

function entryScript(html) {
  const match = html.match(/<script[^>]+src="(\/assets\/[^"]+)"/);
  return match ? match[1] : null;
}

/**
 * Stores a fresh index.html (the app shell: a page with the app's entry script); when it belongs to a new
 * deployment, deletes the previous build's assets.
 */
async function storeIndex(cache, response) {
  const html = await response.clone().text();
  if (!entryScript(html)) return;
  const previous = await cache.match('/index.html');
  const previousEntry = previous ? entryScript(await previous.text()) : null;
  await cache.put('/index.html', response);
  const entry = entryScript(html);
  if (previousEntry && entry && previousEntry !== entry) {
    const keep = new Set(assetPaths(html));
    for (const request of await cache.keys()) {
      const path = new URL(request.url).pathname;
      if (path.startsWith('/assets/') && !keep.has(path)) await cache.delete(request);
    }
  }
}

function isBypassed(url) {
  return url.pathname.startsWith('/api') || url.pathname.startsWith('/oidc');
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      try {
        const response = await fetch('/index.html', { cache: 'no-store' });
        if (response.ok) {
          const html = await response.clone().text();
          await storeIndex(cache, response);
          await cache.addAll([...new Set([...SHELL, ...assetPaths(html)])]);
        }
      } catch (err) {
        console.log('Service worker: app shell not cached', err);
      }
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const keys = await caches.keys();
      await Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key)));
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || isBypassed(url)) return;

  if (request.mode === 'navigate') {
    event.respondWith(
      (async () => {
        const cache = await caches.open(CACHE);
        try {
          const response = await fetch(request);
          if (response.ok && (response.headers.get('content-type') || '').includes('text/html')) {
            await storeIndex(cache, response.clone());
          }
          return response;
        } catch {
          const cached = await cache.match('/index.html');
          return (
            cached ||
            new Response(OFFLINE_HTML, { status: 503, headers: { 'Content-Type': 'text/html; charset=utf-8' } })
          );
        }
      })(),
    );
    return;
  }

  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      if (url.pathname.startsWith('/assets/')) {
        // Hashed file names never change content: cache first.
        const cached = await cache.match(request);
        if (cached) return cached;
        const response = await fetch(request);
        if (response.ok) await cache.put(request, response.clone());
        return response;
      }
      // Other static files (icon, manifest): network first, cache as fallback.
      try {
        const response = await fetch(request);
        if (response.ok) await cache.put(request, response.clone());
        return response;
      } catch (err) {
        const cached = await cache.match(request);
        if (cached) return cached;
        throw err;
      }
    })(),
  );
});

/* Reminders (Web Push, sent by the server's reminder scheduler with this install's VAPID key): the payload is
 * JSON { title, body, url, tag }. A click focuses an open Joy window (and takes it to `url`), or opens one. */
self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  event.waitUntil(
    self.registration.showNotification(data.title || 'Joy', {
      body: data.body || 'How was your day? Take a minute to rate it in Joy.',
      tag: data.tag || 'joy-reminder',
      icon: '/icon.svg',
      badge: '/icon.svg',
      data: { url: data.url || '/' },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  let target = new URL((event.notification.data && event.notification.data.url) || '/', self.location.origin);
  // Only ever a page of this app.
  if (target.origin !== self.location.origin) target = new URL('/', self.location.origin);
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (open) {
        await open.focus();
        if ('navigate' in open) await open.navigate(target.href).catch(() => undefined);
        return;
      }
      await self.clients.openWindow(target.href);
    })(),
  );
});
