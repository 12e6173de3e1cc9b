/**
 * What a run has written and what its plan still expected, for honest reports: a failed run says
 * exactly what was and was not changed. Also the step events' constructors.
 */
import { UnconfirmedCreateError } from '../converge.js';
import { asFailure } from './failure.js';
import type { ActivationPlan, ActivationResult, DoneEntry, PendingEntry, RecordKind, StepEvent, StepName, StepOutcome } from './types.js';

export function step(outcome: StepOutcome, ids: StepEvent['ids'] = {}): StepEvent {
  return { type: 'step', ...outcome, ids };
}

/** A dry run's events: what each step would do. */
export function* planEvents(plan: ActivationPlan): Generator<StepEvent> {
  yield step({ step: 'client', status: 'planned', plan: plan.client });
  yield step({ step: 'service', status: 'planned', plan: plan.service }, plan.service.action === 'reuse' ? { serviceId: plan.service.service.id } : {});
  yield step({ step: 'site', status: 'planned', plan: plan.site });
  yield step({ step: 'authorize', status: 'planned', device: plan.device, authorize: plan.authorize, move: plan.move }, { deviceId: plan.device.id });
}

/** What a step reports to the run's log. */
export interface StepLog {
  did(key: string, entry: DoneEntry): void;
  settled(key: string): void;
  duplicates(kind: RecordKind, removed: Id[], refused: { id: Id; detail: string }[]): void;
}

type Id = string | number;

/** A step's log entries, kept until the run replays them in step order (steps run concurrently). */
export class BranchLog implements StepLog {
  private readonly entries: ((log: StepLog) => void)[] = [];
  did(key: string, entry: DoneEntry): void {
    this.entries.push((log) => log.did(key, entry));
  }
  settled(key: string): void {
    this.entries.push((log) => log.settled(key));
  }
  duplicates(kind: RecordKind, removed: Id[], refused: { id: Id; detail: string }[]): void {
    this.entries.push((log) => log.duplicates(kind, removed, refused));
  }
  replay(log: StepLog): void {
    for (const entry of this.entries) entry(log);
  }
}

export class RunLog implements StepLog {
  readonly done: DoneEntry[] = [];
  /** Planned writes not yet made, keyed by step name or `delete:<service id>`. */
  private readonly pending = new Map<string, PendingEntry>();

  expect(plan: ActivationPlan): void {
    if (plan.client.action === 'create') this.pending.set('client', { kind: 'create-client', firstName: plan.client.firstName, lastName: plan.client.lastName });
    if (plan.service.action === 'create') {
      for (const old of plan.service.delete) this.pending.set(`delete:${old.id}`, { kind: 'delete-service', service: old });
      this.pending.set('service', { kind: 'create-service' });
    }
    if (plan.site.action === 'create') this.pending.set('site', { kind: 'create-site', name: plan.site.name });
    if (plan.authorize.action === 'authorize') this.pending.set('authorize', { kind: 'authorize', device: plan.device });
  }

  did(key: string, entry: DoneEntry): void {
    this.done.push(entry);
    this.pending.delete(key);
  }

  /** A planned write another run made first (or a delete another run sent first): not pending, not done by this run. */
  settled(key: string): void {
    this.pending.delete(key);
  }

  /** A write that landed although its step failed afterwards (its read-back, say): it is done, and said so. */
  unconfirmed(key: string, error: unknown, entry: (id: string | number) => DoneEntry): void {
    if (error instanceof UnconfirmedCreateError) this.did(key, entry(error.id));
  }

  /** This run's own redundant records: removed (its DELETE succeeded) or refused by UISP (still there). */
  duplicates(kind: RecordKind, removed: Id[], refused: { id: Id; detail: string }[]): void {
    for (const id of removed) this.done.push({ kind: 'duplicate-removed', record: kind, id });
    for (const { id, detail } of refused) this.done.push({ kind: 'duplicate-refused', record: kind, id, detail });
  }

  failed(name: StepName, error: unknown, reached: Partial<Pick<ActivationResult, 'device' | 'client' | 'service' | 'site' | 'plan'>> = {}): ActivationResult {
    return { type: 'result', outcome: 'failed', failedStep: name, error: asFailure(error).error, ...reached, done: [...this.done], notDone: [...this.pending.values()] };
  }
}
