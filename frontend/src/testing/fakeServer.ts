/** A tiny fake of the API for component tests: routes "METHOD /path" to a status and JSON body. */
export type FakeRoutes = Record<string, { status: number; body?: unknown } | (() => Promise<{ status: number; body?: unknown }>)>;

export function installFakeServer(routes: FakeRoutes) {
  const fetchMock = jest.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const key = `${(init?.method ?? 'GET').toUpperCase()} ${String(input)}`;
    const route = routes[key];
    const { status, body } = route ? (typeof route === 'function' ? await route() : route) : { status: 404, body: { statusCode: 404, code: 'request.not_found', message: 'Not Found' } };
    const text = body === undefined ? '' : JSON.stringify(body);
    return {
      ok: status >= 200 && status < 300,
      status,
      statusText: status === 401 ? 'Unauthorized' : '',
      text: async () => text,
      json: async () => JSON.parse(text),
    } as Response;
  });
  global.fetch = fetchMock as unknown as typeof fetch;
  return fetchMock;
}
