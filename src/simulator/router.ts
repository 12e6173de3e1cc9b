/**
 * The contract between the HTTP plumbing (server.ts) and the per-system route tables (crm-routes.ts,
 * nms-routes.ts): a tiny method + path router, what a handler receives and returns, and ApiError, which a
 * handler throws to answer early with an error reply.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { SimulatorData } from './data.js';
import type { Indexes } from './indexes.js';
import type { WebhookChange, WebhookEventRecord } from './webhooks.js';
import type { SimulatorFilter, SimulatorWorld } from './world.js';

export interface RouteRequest {
  data: SimulatorData;
  /** Which UISP the simulator plays (./world.ts). */
  world: SimulatorWorld;
  /** `:name` segments of the matched pattern, URI-decoded. */
  params: Record<string, string>;
  query: Record<string, string>;
  /** Every value of a repeated query parameter (`?id=a&id=b`), in order. */
  queryValues: (name: string) => string[];
  /** Whether this simulator honours an official list filter (./world.ts); one it does not is ignored. */
  honours: (filter: SimulatorFilter) => boolean;
  /** The state's indexes, checked for this request. */
  indexes: Indexes;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
  /** Reports a change the CRM sends a webhook about; delivered only if the request succeeds. */
  emit: (change: WebhookChange) => void;
  /** The webhook events recorded so far. */
  webhookEvents: readonly WebhookEventRecord[];
  /** The id of a site being created: a random UUID, as NMS gives, unless a test chose it (`nextSiteIds`). */
  newSiteId: () => string;
}

export interface Reply {
  status: number;
  /** Sent as JSON; omitted means an empty body. */
  body?: unknown;
}

export type Handler = (request: RouteRequest) => Reply;

export class ApiError extends Error {
  constructor(readonly reply: Reply) {
    super(`HTTP ${reply.status}`);
  }
}

/** One UISP system under the simulator's base URL. */
export interface Api {
  /** e.g. /crm/api/v1.0 */
  base: string;
  router: Router;
  authenticates(headers: IncomingHttpHeaders, token: string): boolean;
  /** An error reply in the system's own body shape. */
  error(status: number, message?: string): Reply;
}

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

/** Patterns are matched segment by segment; `:name` captures one segment. The first match wins. */
export class Router {
  private readonly routes: Route[] = [];

  on(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method, segments: pattern.split('/').filter(Boolean), handler });
    return this;
  }

  match(method: string, path: string): { handler: Handler; params: Record<string, string> } | undefined {
    const segments = path.split('/').filter(Boolean);
    for (const route of this.routes) {
      if (route.method !== method || route.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      const matched = route.segments.every((part, i) => {
        const actual = segments[i]!;
        if (part.startsWith(':')) {
          params[part.slice(1)] = safeDecode(actual);
          return true;
        }
        return part === actual;
      });
      if (matched) return { handler: route.handler, params };
    }
    return undefined;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * zod issues grouped by dotted field path. A missing field gets `missingMessage` instead of zod's
 * "expected string, received undefined".
 */
export function issuesByField(error: z.ZodError, input: unknown, missingMessage: string): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const field = issue.path.join('.') || 'body';
    const missing = issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined;
    (fields[field] ??= []).push(missing ? missingMessage : issue.message);
  }
  return fields;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
