import { MutationCache, QueryCache, QueryClient, type QueryFunction } from '@tanstack/react-query';
import { parseApiError } from './lib/apiError';
import { handleUnauthorized } from './lib/session';

/**
 * The error message of a non-OK response (SPEC §8): "status: body text", or the status text when the
 * body is empty.
 */
export function responseErrorMessage(status: number, statusText: string, bodyText: string): string {
  return `${status}: ${bodyText || statusText}`;
}

/** An expired or missing session: the server answered `auth.unauthorized`. */
export function isUnauthorizedError(error: unknown): boolean {
  return parseApiError(error).code === 'auth.unauthorized';
}

async function throwIfResNotOk(res: Response): Promise<void> {
  if (!res.ok) {
    let body = '';
    try {
      body = await res.text();
    } catch {
      body = '';
    }
    throw new Error(responseErrorMessage(res.status, res.statusText, body));
  }
}

/**
 * Sends a request with the session cookie. A JSON body and its content type are sent only when there is
 * data. Any non-OK response throws an Error with the "status: text" message.
 */
export async function apiRequest(method: string, url: string, data?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const hasBody = data !== undefined;
  const res = await fetch(url, {
    method,
    headers: hasBody ? { 'Content-Type': 'application/json', ...headers } : headers,
    body: hasBody ? JSON.stringify(data) : undefined,
    credentials: 'include',
  });
  await throwIfResNotOk(res);
  return res;
}

/** apiRequest, then the response parsed as JSON (undefined for an empty body, e.g. 204). */
export async function apiJson<T>(method: string, url: string, data?: unknown, headers?: Record<string, string>): Promise<T> {
  const res = await apiRequest(method, url, data, headers);
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export type UnauthorizedBehavior = 'returnNull' | 'throw';

/** GETs the query key joined with "/" as a path, e.g. ['/api/groups', id, 'members']. */
export function getQueryFn<T>(options: { on401: UnauthorizedBehavior }): QueryFunction<T> {
  return async ({ queryKey }) => {
    const res = await fetch(queryKey.join('/'), { credentials: 'include' });
    if (options.on401 === 'returnNull' && res.status === 401) {
      // Read the body anyway: an unread answer the browser may not cache (no-store) stays open as a request.
      await res.text().catch(() => undefined);
      return null as T;
    }
    await throwIfResNotOk(res);
    return (await res.json()) as T;
  };
}

/** Any 401 from a read or a write: toast and go to /api/login (the sign-in check itself returns null). */
function onAnyError(error: unknown): void {
  if (isUnauthorizedError(error)) handleUnauthorized();
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: onAnyError }),
    mutationCache: new MutationCache({ onError: onAnyError }),
    defaultOptions: {
      queries: {
        queryFn: getQueryFn({ on401: 'throw' }),
        refetchInterval: false,
        refetchOnWindowFocus: false,
        staleTime: Infinity,
        retry: false,
      },
      mutations: {
        retry: false,
      },
    },
  });
}

export const queryClient = createQueryClient();
