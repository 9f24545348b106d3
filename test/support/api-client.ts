import { checkAnswer } from './api-contract.ts';

export interface ApiResult<T = any> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

/** A small JSON client for the Hookline HTTP API, as a producer or operator would call it. */
export function apiClient(baseUrl: string, key?: string) {
  const call = async <T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResult<T>> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Non-JSON answers are returned as text for the assertion to show.
    }
    // Every answer is checked against the OpenAPI document (api-contract.ts), naming the route when it disagrees.
    checkAnswer(method, path, res.status, parsed);
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
  return {
    get: <T = any>(path: string) => call<T>('GET', path),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('POST', path, body, headers),
    patch: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('PATCH', path, body, headers),
    put: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('PUT', path, body, headers),
    delete: <T = any>(path: string, headers?: Record<string, string>) => call<T>('DELETE', path, undefined, headers),
    raw: call,
  };
}
export type ApiClient = ReturnType<typeof apiClient>;
