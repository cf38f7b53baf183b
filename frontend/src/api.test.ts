/**
 * @jest-environment node
 */
import { apiJson, apiRequest, createQueryClient, getQueryFn, isUnauthorizedError, responseErrorMessage } from './api';

function mockFetch(response: Response) {
  const fn = jest.fn<Promise<Response>, [RequestInfo | URL, RequestInit | undefined]>(async () => response);
  global.fetch = fn as unknown as typeof fetch;
  return fn;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('responseErrorMessage', () => {
  it('is "status: body text"', () => {
    expect(responseErrorMessage(400, 'Bad Request', '{"message":"joy is required"}')).toBe(
      '400: {"message":"joy is required"}',
    );
  });

  it('uses the status text when the body is empty', () => {
    expect(responseErrorMessage(500, 'Internal Server Error', '')).toBe('500: Internal Server Error');
  });
});

describe('isUnauthorizedError', () => {
  it('recognises the server\'s 401 by its code', () => {
    expect(isUnauthorizedError(new Error('401: {"statusCode":401,"code":"auth.unauthorized","message":"Unauthorized"}'))).toBe(true);
    expect(isUnauthorizedError(new Error('401: {"statusCode":401,"code":"auth.unauthorized","message":"Session gone"}'))).toBe(true);
  });

  it('rejects anything else, whatever its text says', () => {
    expect(isUnauthorizedError(new Error('403: {"statusCode":403,"code":"request.cross_origin","message":"Unauthorized"}'))).toBe(false);
    expect(isUnauthorizedError(new Error('401: Unauthorized'))).toBe(false); // not one of our answers: no code
    expect(isUnauthorizedError(new Error('403: Unauthorized'))).toBe(false);
    expect(isUnauthorizedError(new Error('401: Session gone'))).toBe(false);
    expect(isUnauthorizedError(new Error('Unauthorized 401:'))).toBe(false);
    expect(isUnauthorizedError('401: Unauthorized')).toBe(false);
    expect(isUnauthorizedError(null)).toBe(false);
  });
});

describe('apiRequest', () => {
  it('sends JSON with its content type and the cookies when there is a body', async () => {
    const fetchMock = mockFetch(json({ id: '1' }, 201));
    await apiRequest('POST', '/api/joy-ratings', { joy: 4 });
    expect(fetchMock).toHaveBeenCalledWith('/api/joy-ratings', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"joy":4}',
      credentials: 'include',
    });
  });

  it('sends neither body nor content type without data', async () => {
    const fetchMock = mockFetch(new Response(null, { status: 204 }));
    await apiRequest('POST', '/api/create-subscription');
    const init = fetchMock.mock.calls[0][1]!;
    expect(init.body).toBeUndefined();
    expect(init.headers).toEqual({});
    expect(init.credentials).toBe('include');
  });

  it('throws "status: body" on a non-OK response', async () => {
    mockFetch(json({ statusCode: 400, message: 'joy must be a whole number from 1 to 5' }, 400));
    await expect(apiRequest('POST', '/api/joy-ratings', {})).rejects.toThrow(
      '400: {"statusCode":400,"message":"joy must be a whole number from 1 to 5"}',
    );
  });

  it('throws "status: status text" when the body is empty', async () => {
    mockFetch(new Response('', { status: 503, statusText: 'Service Unavailable' }));
    await expect(apiRequest('GET', '/api/groups')).rejects.toThrow('503: Service Unavailable');
  });

  it('apiJson parses the body, and gives undefined for an empty one', async () => {
    mockFetch(json({ id: 'r1', overallScore: 3.4 }, 201));
    await expect(apiJson('POST', '/api/joy-ratings', {})).resolves.toEqual({ id: 'r1', overallScore: 3.4 });
    mockFetch(new Response(null, { status: 204 }));
    await expect(apiJson('POST', '/api/x')).resolves.toBeUndefined();
  });
});

describe('getQueryFn', () => {
  const context = (queryKey: readonly unknown[]) =>
    ({ queryKey, signal: new AbortController().signal, meta: undefined, client: createQueryClient() }) as never;

  it('GETs the query key joined as a path, with cookies', async () => {
    const fetchMock = mockFetch(json([{ id: 'u1' }]));
    const result = await getQueryFn({ on401: 'throw' })(context(['/api/groups', 'g1', 'members']));
    expect(fetchMock).toHaveBeenCalledWith('/api/groups/g1/members', { credentials: 'include' });
    expect(result).toEqual([{ id: 'u1' }]);
  });

  it('returns null on 401 when asked to (the sign-in check)', async () => {
    mockFetch(json({ statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' }, 401));
    await expect(getQueryFn<unknown>({ on401: 'returnNull' })(context(['/api/auth/user']))).resolves.toBeNull();
  });

  it('fails on 401 by default', async () => {
    mockFetch(json({ statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' }, 401));
    const error = await Promise.resolve(getQueryFn<unknown>({ on401: 'throw' })(context(['/api/joy-ratings']))).catch((e: unknown) => e);
    expect(isUnauthorizedError(error)).toBe(true);
  });
});

describe('query client settings', () => {
  it('never goes stale, never retries, never refetches on focus, never polls', () => {
    const defaults = createQueryClient().getDefaultOptions();
    expect(defaults.queries).toMatchObject({
      staleTime: Infinity,
      retry: false,
      refetchOnWindowFocus: false,
      refetchInterval: false,
    });
    expect(defaults.mutations).toMatchObject({ retry: false });
  });
});
