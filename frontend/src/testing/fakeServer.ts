import { daySumsByDay, latestFirst, ratingSummaryOf, type RatingView } from '@joy/domain';

type FakeAnswer = { status: number; body?: unknown; headers?: Record<string, string> };

/**
 * A tiny fake of the API for component tests: routes "METHOD /path" to a status and JSON body. A key ending in `*`
 * answers every URL it is the start of (when no exact key does); a function route is given the URL asked for and may
 * answer synchronously or with a promise.
 */
export type FakeRoutes = Record<string, FakeAnswer | ((url: string) => FakeAnswer | Promise<FakeAnswer>)>;

export function installFakeServer(routes: FakeRoutes) {
  const fetchMock = jest.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const key = `${(init?.method ?? 'GET').toUpperCase()} ${String(input)}`;
    const route = routes[key] ?? Object.entries(routes).find(([k]) => k.endsWith('*') && key.startsWith(k.slice(0, -1)))?.[1];
    const { status, body, headers = {} } = route ? (typeof route === 'function' ? await route(String(input)) : route) : { status: 404, body: { statusCode: 404, code: 'request.not_found', message: 'Not Found' } };
    const text = body === undefined ? '' : JSON.stringify(body);
    return {
      ok: status >= 200 && status < 300,
      status,
      statusText: status === 401 ? 'Unauthorized' : '',
      headers: { get: (name: string) => Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1] ?? null },
      text: async () => text,
      json: async () => JSON.parse(text),
      blob: async () => new Blob([text], { type: headers['Content-Type'] ?? 'application/json' }),
    } as Response;
  });
  global.fetch = fetchMock as unknown as typeof fetch;
  return fetchMock;
}

/**
 * GET /api/joy-ratings/summary?from=&to= as the server answers it (the same rule, from @joy/domain), and GET
 * /api/joy-ratings/recent?limit= (the latest by day, `latestFirst`), over the ratings `ratings()` gives at the time of
 * the request (each on its own day).
 */
export function summaryRoute(ratings: () => readonly RatingView[]): FakeRoutes {
  return {
    'GET /api/joy-ratings/recent*': async (url) => {
      const limit = Number(new URL(url, 'http://joy.test').searchParams.get('limit') ?? 14);
      return { status: 200, body: [...ratings()].sort(latestFirst).slice(0, limit) };
    },
    'GET /api/joy-ratings/summary*': async (url) => {
      const query = new URL(url, 'http://joy.test').searchParams;
      return { status: 200, body: ratingSummaryOf(daySumsByDay(ratings()), { from: query.get('from'), to: query.get('to') }) };
    },
  };
}
