/**
 * Typed UISP failures. Messages name the system, method and path, never a header or token, so they are
 * safe to show in Slack, the terminal and the logs.
 */
export type UispSystem = 'crm' | 'nms';
export type UispErrorKind = 'auth' | 'not_found' | 'validation' | 'unavailable' | 'rejected' | 'bad_response';

export interface UispRequestInfo {
  system: UispSystem;
  method: string;
  path: string;
}

export class UispError extends Error {
  override readonly name: string = 'UispError';
  readonly system: UispSystem;
  readonly method: string;
  readonly path: string;

  constructor(
    readonly kind: UispErrorKind,
    request: UispRequestInfo,
    detail: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`${request.system.toUpperCase()} ${request.method} ${request.path}: ${detail}`, options);
    this.system = request.system;
    this.method = request.method;
    this.path = request.path;
  }

  /**
   * True when a write may have been applied although it failed: no answer, or a 2xx whose body we could
   * not read. Every other failure (a read, or a 4xx refusal) changed nothing in UISP.
   */
  get mayHaveApplied(): boolean {
    return this.method !== 'GET' && (this.kind === 'unavailable' || this.kind === 'bad_response');
  }
}

/** The sentence front ends show under a UISP failure: what was, or may have been, changed. */
export function changeNotice(error: UispError): string {
  return error.mayHaveApplied ? 'UISP did not confirm the change: it may or may not have been applied. Check the CRM before retrying.' : 'Nothing was changed.';
}

/** The variable holding each system's token; UISP_TOKEN stands in for both when it is not set. */
export const UISP_TOKEN_VARIABLES: Record<UispSystem, string> = { crm: 'UISP_CRM_TOKEN', nms: 'UISP_NMS_TOKEN' };

/** 401 or 403: the message names the variables to fix, never the token. */
export class UispAuthError extends UispError {
  override readonly name = 'UispAuthError';
  constructor(request: UispRequestInfo, status: number) {
    const variable = UISP_TOKEN_VARIABLES[request.system];
    super('auth', request, `UISP refused the ${request.system.toUpperCase()} token (HTTP ${status}); check ${variable}, or UISP_TOKEN when ${variable} is not set`, status);
  }
}

export class UispNotFoundError extends UispError {
  override readonly name = 'UispNotFoundError';
  constructor(request: UispRequestInfo, message?: string) {
    super('not_found', request, message ?? 'not found (HTTP 404)', 404);
  }
}

export class UispValidationError extends UispError {
  override readonly name = 'UispValidationError';
  constructor(
    request: UispRequestInfo,
    readonly fieldErrors: Record<string, string[]>,
    message?: string,
    /** 422 normally; CRM also answers 400 with field errors. */
    status = 422,
  ) {
    const fields = Object.entries(fieldErrors).map(([field, errors]) => `${field}: ${errors.join(' ')}`);
    super('validation', request, `${message ?? 'validation failed'} (HTTP ${status})${fields.length ? ` — ${fields.join('; ')}` : ''}`, status);
  }
}

/** 5xx, 429, timeouts and connection failures: UISP may or may not have applied a write. */
export class UispUnavailableError extends UispError {
  override readonly name = 'UispUnavailableError';
  constructor(
    request: UispRequestInfo,
    detail: string,
    status?: number,
    options?: { cause?: unknown },
    /** From a 429's Retry-After header: how long UISP asked us to wait. */
    readonly retryAfterMs?: number,
  ) {
    super('unavailable', request, detail, status, options);
  }
}

/** Any other 4xx: UISP understood the request and said no. */
export class UispRejectedError extends UispError {
  override readonly name = 'UispRejectedError';
  constructor(request: UispRequestInfo, status: number, message?: string) {
    super('rejected', request, `${message ?? 'request rejected'} (HTTP ${status})`, status);
  }
}

/** A 2xx whose body is not what the API descriptions promise. */
export class UispBadResponseError extends UispError {
  override readonly name = 'UispBadResponseError';
  constructor(request: UispRequestInfo, detail: string, status?: number) {
    super('bad_response', request, `unexpected response: ${detail}`, status);
  }
}

/**
 * A write that got no answer (after its retries), after which reading UISP did not show it: nothing is
 * known to have changed, but UISP may still apply it late (no conditional writes), so it may appear.
 */
export class UispWriteNotAppliedError extends UispError {
  override readonly name = 'UispWriteNotAppliedError';
  constructor(
    readonly last: UispError,
    readonly attempts: number,
  ) {
    const detail = last.message.slice(`${last.system.toUpperCase()} ${last.method} ${last.path}: `.length);
    super(last.kind, last, `${detail} (tried ${attempts} time${attempts === 1 ? '' : 's'}; UISP does not show it yet, it may still appear)`, last.status, { cause: last });
  }

  /** Not seen is not "not applied": a late write can still land. */
  override get mayHaveApplied(): boolean {
    return true;
  }
}

/** For a read whose 404 means "not there": null instead of the error (any other error is thrown). */
export function nullIfNotFound(error: unknown): null {
  if (error instanceof UispNotFoundError) return null;
  throw error;
}

/** For a list whose 404 means "nothing there" (a client the CRM no longer has has no services): []. */
export function emptyIfNotFound(error: unknown): never[] {
  if (error instanceof UispNotFoundError) return [];
  throw error;
}
