/**
 * Fault injection: rules pick requests by method and path and make them fail with an HTTP status, hang
 * until the simulator closes, or have their connection reset — before the request is applied, or after
 * (the write happened, the answer is lost) — trickle the real answer a byte at a time, or apply it late.
 * Probabilistic rules draw from a seeded PRNG, so the same seed and the same request sequence fail the
 * same way on every run.
 */
import { seededRandom } from './prng.js';

export interface FaultRule {
  /** e.g. 'POST'; any method when omitted. */
  method?: string;
  /** A string is an exact pathname, or a prefix when it ends in '*'; a RegExp is tested on the pathname. */
  path: string | RegExp;
  /**
   * status: answer with `status` and the system's error body; hang: never answer (until close); reset:
   * destroy the socket; trickle: apply the request, send the headers, then the body one byte every
   * `intervalMs`; late: hold the request `delayMs`, then apply and answer it (the client may be gone).
   */
  kind: 'status' | 'hang' | 'reset' | 'trickle' | 'late';
  /** For kind 'status'; default 500. */
  status?: number;
  /**
   * For kind 'status': the answer's Retry-After header, in seconds (UISP's form), as a rate-limited or
   * overloaded UISP sends it with a 429 or 503; no header when omitted.
   */
  retryAfter?: number;
  /**
   * For status, hang and reset: 'before' (default) fails the request without applying it; 'after'
   * applies it first, as a UISP whose answer is lost on the way back.
   */
  phase?: 'before' | 'after';
  /** For kind 'trickle': ms between bytes; default 100. */
  intervalMs?: number;
  /** For kind 'late': ms before the request is applied; default 1000. */
  delayMs?: number;
  /** 0..1 probability per matching request, drawn from the seeded PRNG. */
  rate?: number;
  /** Only the first N matching requests; after that the rule is spent. */
  times?: number;
}

interface ArmedRule {
  rule: FaultRule;
  matched: number;
}

export class FaultInjector {
  private rules: ArmedRule[] = [];
  private random!: () => number;

  constructor(
    rules: readonly FaultRule[],
    private readonly seed: number,
  ) {
    this.set(rules);
  }

  /** Replaces the rules, resets their `times` counters and restarts the PRNG from the seed. */
  set(rules: readonly FaultRule[]): void {
    rules.forEach(validate);
    this.rules = rules.map((rule) => ({ rule, matched: 0 }));
    this.random = seededRandom(this.seed);
  }

  /** The fault for this request, if any: the first live rule that matches and (by its rate) fires. */
  pick(method: string, path: string): FaultRule | undefined {
    for (const armed of this.rules) {
      const { rule } = armed;
      if (rule.method !== undefined && rule.method.toUpperCase() !== method.toUpperCase()) continue;
      if (!pathMatches(rule.path, path)) continue;
      if (rule.times !== undefined && armed.matched >= rule.times) continue;
      armed.matched++;
      if (rule.rate === undefined || this.random() < rule.rate) return rule;
    }
    return undefined;
  }
}

function pathMatches(pattern: string | RegExp, path: string): boolean {
  if (pattern instanceof RegExp) return pattern.test(path);
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern;
}

function validate(rule: FaultRule): void {
  if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1)) throw new RangeError(`fault rate must be from 0 to 1 (got ${rule.rate})`);
  if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 0)) throw new RangeError(`fault times must be a whole number ≥ 0 (got ${rule.times})`);
  if (rule.status !== undefined && !(Number.isInteger(rule.status) && rule.status >= 100 && rule.status <= 599)) {
    throw new RangeError(`fault status must be an HTTP status code (got ${rule.status})`);
  }
  if (rule.retryAfter !== undefined && (rule.kind !== 'status' || !(Number.isInteger(rule.retryAfter) && rule.retryAfter >= 0))) {
    throw new RangeError(`fault retryAfter is whole seconds ≥ 0, for status faults (got ${rule.retryAfter} on ${rule.kind})`);
  }
  if (rule.phase !== undefined && !['status', 'hang', 'reset'].includes(rule.kind)) throw new RangeError(`fault phase applies to status, hang and reset faults (not ${rule.kind})`);
  for (const key of ['intervalMs', 'delayMs'] as const) {
    const value = rule[key];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) throw new RangeError(`fault ${key} must be a number of ms ≥ 0 (got ${value})`);
  }
}

/** When a fault strikes: before the request is applied, or after it (its effect stays). */
export function faultPhase(rule: FaultRule): 'before' | 'after' {
  return rule.kind === 'trickle' || rule.kind === 'late' ? 'after' : (rule.phase ?? 'before');
}
