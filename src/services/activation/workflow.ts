/**
 * The customer activation (spec §1) as a plain async sequence of typed events: read (./reads.ts) →
 * decide (the pure planner, ./planner.ts) → confirm when destructive (the front end, checked again by
 * ./confirmation.ts) → write step by step (./runner.ts, each write converging: ./writes.ts). It knows
 * nothing of Slack or terminals and chooses no words: front ends word the events (src/render/activation.ts).
 *
 * Every decision is made again from UISP's current state, so a re-run after any failure starts at once
 * and converges: no second client, service or site, and nothing to wait for.
 */
import type { ActivationConfig } from '../../config.js';
import type { LockHold, Locks, WriteRetryPolicy } from '../converge.js';
import type { CrmClient } from '../uisp/crm-client.js';
import type { NetworkReads } from '../network.js';
import type { NmsClient } from '../uisp/nms-client.js';
import { confirmationChanges, planToRun } from './confirmation.js';
import { ActivationFailure, asFailure, FAILED_STEP } from './failure.js';
import { newActivationId } from './markers.js';
import type { StatusNumbering } from './numbering.js';
import { decideActivation, type ActivationReads } from './planner.js';
import { readActivation } from './reads.js';
import { planEvents, RunLog, step } from './run-log.js';
import { leftAloneOf, writePlan } from './runner.js';
import type { ActivationConfirmation, ActivationDecision, ActivationEvent, ActivationPlan, ActivationRequest, ConfirmationChange, ShownConfirmation } from './types.js';

export { ActivationFailure } from './failure.js';

export interface ActivationDeps {
  crm: CrmClient;
  nms: NmsClient;
  /** The NMS questions narrowed to the records asked for (../network.ts). */
  network: NetworkReads;
  settings: ActivationConfig;
  numbering: StatusNumbering;
  /** e.g. https://uisp.example.net/crm — the client page is `${crmBaseUrl}/client/${id}`. */
  crmBaseUrl: string;
  /** Today's date (YYYY-MM-DD) in the ISP's time zone. */
  today: () => string;
  /** How write steps are retried after transient failures (UISP_WRITE_RETRIES and friends). */
  writeRetry: WriteRetryPolicy;
  /** This process's locks on device and client ids: the CLI and the bot share the services, so share these. */
  locks: Locks;
}

/** A decision with the reads it was made from: a run given it builds on those reads instead of reading again. */
export type ReadDecision = ActivationDecision & { reads: ActivationReads };

/** The plan a run follows, with the reads it was made from. */
interface PlanToRun {
  plan: ActivationPlan;
  reads: ActivationReads;
}

/** Keys of the in-process lock: resolved ids, never typed text (the same device typed two ways is one key). */
const lockKeys = (plan: ActivationPlan) => [`device:${plan.device.id}`, ...(plan.client.action === 'reuse' ? [`client:${plan.client.client.id}`] : [])];

export class ActivationService {
  constructor(private readonly deps: ActivationDeps) {}

  /**
   * Reads only: what `run` would do now, as a typed decision (refused, needs confirmation, or a plan),
   * with its reads: a caller that runs it at once passes it to `run` (`decided`), which reads nothing again.
   */
  async decide(request: ActivationRequest): Promise<ReadDecision> {
    const reads = await readActivation(this.deps, request);
    return { ...decideActivation(reads), reads };
  }

  /**
   * Reads again after the agent confirmed what `shown` says: the fresh decision, and what differs from
   * what they were shown (nothing: run it with `decided`; anything: show it to them again).
   */
  async recheck(request: ActivationRequest, shown: ShownConfirmation): Promise<{ decision: ReadDecision; changes: ConfirmationChange[] }> {
    const reads = await readActivation(this.deps, request, shown.clientId);
    const decision = { ...decideActivation(reads), reads };
    return { decision, changes: confirmationChanges(shown, decision, reads) };
  }

  /** Reads only: the plan `run` would follow. Throws ActivationFailure when the activation is refused. */
  async plan(request: ActivationRequest): Promise<ActivationPlan> {
    const decision = await this.decide(request);
    if (decision.kind === 'refused') throw new ActivationFailure(decision.refusal);
    return decision.plan;
  }

  crmClientUrl(clientId: number): string {
    return `${this.deps.crmBaseUrl}/client/${clientId}`;
  }

  /**
   * Yields one event per step as it happens and always ends with exactly one result event; never throws.
   * A refusal, a service deletion (`confirm.deletes`) or a device move (`confirm.moveFrom`) the caller did
   * not confirm, stops it before any write, with the plan in the result (what confirming would do).
   * Runs on the same device or client in this process take turns (a waiting run plans again once the
   * first is done); across processes the writes themselves converge (./writes.ts). `decided`: a
   * decision for this request the caller has just read (`decide` or `recheck`), used instead of reading again.
   */
  async *run(
    request: ActivationRequest,
    { dryRun = false, confirm = {}, decided }: { dryRun?: boolean; confirm?: ActivationConfirmation; decided?: ReadDecision } = {},
  ): AsyncGenerator<ActivationEvent> {
    const log = new RunLog();
    let planned: PlanToRun;
    let release = () => {};
    let confirmHold = async () => {};
    try {
      const replan = () => this.readConverging(request, confirm, dryRun);
      planned = decided ? { plan: planToRun(decided, confirm, dryRun), reads: decided.reads } : await replan();
      if (!dryRun) ({ release, confirm: confirmHold, ...planned } = await this.lock(planned, replan));
    } catch (error) {
      const failure = asFailure(error, true);
      const failedStep = FAILED_STEP[failure.code];
      yield step({ step: failedStep, status: 'failed', error: failure.error });
      yield log.failed(failedStep, failure, failure.plan && { plan: failure.plan });
      return;
    }
    try {
      const { plan, reads } = planned;
      const device = plan.device;
      yield step({ step: 'discover', status: 'done', device }, { deviceId: device.id });
      if (dryRun) {
        yield* planEvents(plan);
        yield { type: 'result', outcome: 'planned', plan, device, ...leftAloneOf(plan), done: [], notDone: [] };
        return;
      }
      const writes = { crm: this.deps.crm, nms: this.deps.nms, network: this.deps.network, settings: this.deps.settings, retry: this.deps.writeRetry, activationId: newActivationId(), confirmHold };
      yield* writePlan({ writes, request, confirm, crmClientUrl: (id) => this.crmClientUrl(id) }, plan, reads, log);
    } finally {
      release();
    }
  }

  /** The plan, read again once when another process authorized the device while the two device lists were read. */
  private async readConverging(request: ActivationRequest, confirm: ActivationConfirmation, dryRun: boolean): Promise<PlanToRun> {
    for (let again = 0; ; again++) {
      try {
        const decision = await this.decide(request);
        return { plan: planToRun(decision, confirm, dryRun), reads: decision.reads };
      } catch (error) {
        if (!(error instanceof ActivationFailure) || error.code !== 'device-not-found' || again >= 1) throw error;
      }
    }
  }

  /** Takes this process's lock on the plan's ids; a run that had to wait plans again from UISP's new state. */
  private async lock(planned: PlanToRun, replan: () => Promise<PlanToRun>): Promise<PlanToRun & Pick<LockHold, 'release' | 'confirm'>> {
    for (;;) {
      const held = lockKeys(planned.plan);
      const { release, waited, confirm } = await this.deps.locks.acquire(held);
      if (!waited) return { ...planned, release, confirm };
      try {
        planned = await replan();
      } catch (error) {
        release();
        throw error;
      }
      if (lockKeys(planned.plan).every((key) => held.includes(key))) return { ...planned, release, confirm };
      release();
    }
  }
}
