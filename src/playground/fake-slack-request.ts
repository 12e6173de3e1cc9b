/**
 * Turns an HTTP request to the fake Web API into method arguments the way Slack reads them:
 * query string plus a form-encoded or JSON body, JSON-encoded rich fields decoded, and the token
 * taken from the Authorization header or, failing that, the `token` field.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { apiError, isRecord, type ApiArgs, type ApiResult } from './fake-slack-api.js';

export type ParsedApiRequest =
  | { args: ApiArgs; token: string | undefined; rejection?: undefined }
  | { rejection: ApiResult };

// The WebClient JSON-encodes every non-scalar argument inside its form bodies.
const JSON_ENCODED_FIELDS = ['blocks', 'attachments', 'view', 'metadata'] as const;

export function parseApiRequest(headers: IncomingHttpHeaders, query: URLSearchParams, body: string): ParsedApiRequest {
  const fromBody = parseBody(headers['content-type'] ?? '', body);
  if ('rejection' in fromBody) return fromBody;
  const { token: tokenField, ...args }: ApiArgs = { ...Object.fromEntries(query), ...fromBody.fields };

  for (const field of JSON_ENCODED_FIELDS) {
    const value = args[field];
    if (typeof value !== 'string') continue;
    try {
      args[field] = JSON.parse(value);
    } catch {
      return { rejection: apiError('invalid_arguments', [`[ERROR] ${field} is not valid JSON [json-pointer:/${field}]`]) };
    }
  }

  const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
  const token = bearer ?? (typeof tokenField === 'string' && tokenField !== '' ? tokenField : undefined);
  return { args, token };
}

/** Slack answers a missing token with not_authed and anything that is no Slack token with invalid_auth. */
export function authProblem(token: string | undefined): ApiResult | undefined {
  if (token === undefined) return apiError('not_authed');
  return /^xox[a-z]-/.test(token) ? undefined : apiError('invalid_auth');
}

function parseBody(contentType: string, body: string): { fields: ApiArgs } | { rejection: ApiResult } {
  if (body === '') return { fields: {} };
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
  if (mediaType === 'application/x-www-form-urlencoded') {
    return { fields: Object.fromEntries(new URLSearchParams(body)) };
  }
  if (mediaType === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return { rejection: apiError('invalid_json') };
    }
    return isRecord(parsed) ? { fields: parsed } : { rejection: apiError('json_not_object') };
  }
  return { rejection: apiError('invalid_form_data') };
}
