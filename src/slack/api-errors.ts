/**
 * Slack Web API errors, counted by method: a fetch for the WebClient options that reports each call
 * Slack refused (`ok: false`, by its error code), answered with an HTTP error, or that never got an
 * answer. Every client Bolt makes (the app's, each listener's, Socket Mode's) shares these options.
 */
import type { webApi } from '@slack/bolt';

type FetchFunction = NonNullable<webApi.WebClientOptions['fetch']>;

export function countingFetch(onError: (method: string, error: string) => void, base: typeof fetch = globalThis.fetch): FetchFunction {
  return async (url, init) => {
    const method = /\/api\/([\w.]+)/.exec(String(url))?.[1] ?? 'unknown';
    let response: Response;
    try {
      response = await base(url, init);
    } catch (error) {
      onError(method, 'network');
      throw error;
    }
    if (response.status !== 200) {
      onError(method, `http_${response.status}`);
    } else {
      // Read from a copy: the WebClient reads the original.
      void response
        .clone()
        .json()
        .then((body: unknown) => {
          const { ok, error } = (body ?? {}) as { ok?: unknown; error?: unknown };
          if (ok === false) onError(method, typeof error === 'string' ? error : 'unknown');
        })
        .catch(() => undefined);
    }
    return response;
  };
}
