/**
 * The activation workflow's public shapes: what a front end asks for, the plan it may show before
 * anything is written, the step events it renders as they happen and the result. All of it is facts:
 * the sentences are chosen by the front ends (src/render/activation.ts). No Slack or terminal knowledge.
 */
export interface ActivationRequest {
  /** IP (a stored prefix such as /24 is ignored), MAC (any separator or case) or device name. */
  device: string;
  firstName: string;
  lastName: string;
  /** An explicit CRM client id wins over the name lookup. */
  clientId?: number;
  email?: string;
  phone?: string;
}

/** The device an agent typed, parsed: an IP (prefix dropped), a MAC (12 lower-case hex digits) or a name (lower case). */
export type DeviceQuery = { kind: 'ip'; ip: string } | { kind: 'mac'; mac: string } | { kind: 'name'; name: string };

export interface DeviceRef {
  id: string;
  name: string;
  ip: string | null;
  mac: string | null;
  /** Which NMS list it was found in. */
  list: 'authorized' | 'discovered';
  siteId: string | null;
  authorized: boolean;
  /** NMS `identification.role`: only a `station` (subscriber CPE) may be activated; null when NMS reports none. */
  role: string | null;
}

export interface ClientRef {
  id: number;
  name: string;
}

export interface ServiceRef {
  id: number;
  status: number;
  statusLabel: string;
  name: string | null;
}

export interface SiteRef {
  id: string;
  name: string;
}

/** The CRM client an NMS site belongs to, as far as NMS says (a CRM binding or SubOps' note marker). */
export interface SiteOwner {
  /** null: an endpoint site of unknown owner. */
  id: number | null;
  name: string | null;
}

/** An authorized station taken off another client's endpoint site: only with the agent's explicit confirmation. */
export interface DeviceMove {
  site: SiteRef;
  client: SiteOwner;
}

/** What the agent agreed to before the run; the run re-checks it against what it reads. */
export interface ActivationConfirmation {
  /** The device may be moved off this site (the id the agent was shown), or off any site ('any': CLI --yes). */
  moveFrom?: string;
  /** These Quoted or Obsolete services may be deleted (the ids the agent was shown), or any ('any': CLI --yes). */
  deletes?: number[] | 'any';
}

/**
 * What a confirmation showed the agent, as the front end carries it back (Slack: the confirmation view's
 * private_metadata). Before the run, the services read UISP again and compare (`confirmationChanges`):
 * anything different is shown to the agent again instead of being written.
 */
export interface ShownConfirmation {
  /** The existing client the plan was for: its services are read together with the name lookup. */
  clientId?: number;
  /** The services the agent confirmed deleting, with the status they were shown with. */
  deletes: { id: number; status: number }[];
  /** The site the agent confirmed moving the device off. */
  moveFrom?: string;
}

/** What is different now from what the agent confirmed: nothing of it is written before they confirm again. */
export type ConfirmationChange =
  /** A service shown for deletion has another status now (a person made it Active, say), or is gone (`now`: null). */
  | { kind: 'service-changed'; id: number; shown: number; now: ServiceRef | null }
  /** The plan now deletes a service the agent was not shown. */
  | { kind: 'service-added'; service: ServiceRef }
  /** The device move is not the one shown (it moved, or no longer needs moving). */
  | { kind: 'move-changed'; shown: string | null; now: DeviceMove | null }
  /** The activation is refused now. */
  | { kind: 'refused'; refusal: ActivationRefusal };

/** What an activation will do, computed from reads alone. */
export interface ActivationPlan {
  device: DeviceRef;
  client: { action: 'reuse'; client: ClientRef } | { action: 'create'; firstName: string; lastName: string };
  service:
    | { action: 'reuse'; service: ServiceRef }
    | {
        action: 'create';
        delete: ServiceRef[];
        /** Quoted or Obsolete services of other plans (cable TV, VoIP) or of a type UISP does not give: never touched. */
        leftAlone: ServiceRef[];
        servicePlanPeriodId: number;
        price: number;
        activeFrom: string;
      };
  site: { action: 'reuse'; site: SiteRef } | { action: 'create'; name: string; parentSiteId: string | null };
  /** skip: the device is already authorized on the reused site. */
  authorize: { action: 'skip'; site: SiteRef } | { action: 'authorize' };
  /** Set when authorizing takes the device off another client's (or an unowned) endpoint site. */
  move: DeviceMove | null;
  /** True when the plan deletes anything: front ends ask for confirmation first. */
  destructive: boolean;
}

/** A client the name lookup found, with what tells namesakes apart. */
export interface ClientCandidate extends ClientRef {
  email: string | null;
  phone: string | null;
  address: string | null;
  archived: boolean;
}

/** Why an activation will not go ahead, with the facts a front end shows. Nothing is written. */
export type ActivationRefusal =
  | { code: 'device-not-found'; query: DeviceQuery }
  | { code: 'device-ambiguous'; query: DeviceQuery; devices: DeviceRef[] }
  /** Not a subscriber station (AP, router, switch…): refused whatever is confirmed. */
  | { code: 'device-infrastructure'; device: DeviceRef; role: string; site: SiteRef | null }
  /** NMS reports no role, so nothing shows it is a subscriber station. */
  | { code: 'device-role-unknown'; device: DeviceRef; site: SiteRef | null }
  | { code: 'client-not-found'; clientId: number }
  /** The explicit id belongs to a client of another name. */
  | { code: 'client-name-mismatch'; clientId: number; crmName: string; typedName: string }
  /** The only clients of that name (or the explicit id) are archived: never a duplicate, never a silent restore. */
  | { code: 'client-archived'; candidates: ClientCandidate[] }
  | { code: 'client-ambiguous'; typedName: string; candidates: ClientCandidate[] }
  | { code: 'service-suspended'; client: ClientRef; services: ServiceRef[] }
  | { code: 'parent-site-not-found'; parentSiteId: string }
  /** SERVICE_PLAN_PERIOD_ID is no period of the CRM's service plans: UISP would refuse the service. */
  | { code: 'service-plan-unknown'; servicePlanPeriodId: number }
  /**
   * Replacing a service needs the status numbering (../activation/numbering.ts): it is not known (`numbering`
   * null), or the client has a service whose status it does not name, so it may not be UISP's. `why`: how
   * the numbering was (or could not be) decided.
   */
  | { code: 'service-status-unknown'; client: ClientRef; services: ServiceRef[]; numbering: 'stock' | 'interface' | null; why: string };

/**
 * The planner's answer from reads alone: refused, a plan that needs the agent's confirmation first
 * (exactly which services it deletes and which device move it makes), or a plan to run as it is.
 */
export type ActivationDecision =
  | { kind: 'refused'; refusal: ActivationRefusal }
  | { kind: 'needs-confirmation'; plan: ActivationPlan; confirm: { deletes: ServiceRef[]; move: DeviceMove | null } }
  | { kind: 'plan'; plan: ActivationPlan };

export type StepName = 'discover' | 'client' | 'service' | 'site' | 'authorize' | 'manual-link';
/** manual: a step the agent must do by hand (the CRM–NMS link); the bot never performs it. */
export type StepStatus = 'done' | 'skipped' | 'failed' | 'planned' | 'manual';

/**
 * What happened at one step, as facts: front ends word it (src/render/activation.ts). `kind` tells
 * apart a record this run made from one it found, or one another activation of the same customer made
 * at the same time (`created-concurrently`: that run's record is older, so every run keeps it).
 */
export type StepOutcome =
  /** `afterWrites`: the run had written before this failure, so it cannot say that nothing was changed. */
  | { step: StepName; status: 'failed'; error: ActivationError; afterWrites?: true }
  | { step: 'discover'; status: 'done'; device: DeviceRef }
  | { step: 'client'; status: 'done' | 'skipped'; kind: 'created' | 'reused' | 'created-concurrently'; client: ClientRef }
  | { step: 'client'; status: 'planned'; plan: ActivationPlan['client'] }
  | { step: 'service'; status: 'done'; kind: 'created'; service: ServiceRef; price: number; currency: string | null; activeFrom: string; deleted: number[] }
  | { step: 'service'; status: 'skipped'; kind: 'already-active' | 'created-concurrently'; service: ServiceRef; deleted?: number[] }
  | { step: 'service'; status: 'planned'; plan: ActivationPlan['service'] }
  | { step: 'site'; status: 'done' | 'skipped'; kind: 'created' | 'reused' | 'created-concurrently'; site: SiteRef }
  | { step: 'site'; status: 'planned'; plan: ActivationPlan['site'] }
  | { step: 'authorize'; status: 'done' | 'skipped'; device: DeviceRef; site: SiteRef }
  | { step: 'authorize'; status: 'planned'; device: DeviceRef; authorize: ActivationPlan['authorize']; move: DeviceMove | null }
  /** The CRM–NMS link the agent makes by hand; `crmClientUrl` is the client's CRM page. */
  | { step: 'manual-link'; status: 'manual'; client: ClientRef; crmClientUrl: string; site: SiteRef; device: DeviceRef };

export type StepEvent = StepOutcome & {
  type: 'step';
  /** Ids involved, for audit and rendering. */
  ids: Record<string, string | number>;
};

export type ActivationOutcome = 'activated' | 'already-activated' | 'planned' | 'failed';

export type RecordKind = 'client' | 'service' | 'site';

/** A write this run made (or a duplicate of its own it removed, or could not), in the order of the steps. */
export type DoneEntry =
  /** `unconfirmed`: UISP created it but the run could not read it back as the one kept (a re-run checks). */
  | { kind: 'client-created'; client: ClientRef; unconfirmed?: true }
  | { kind: 'service-deleted'; service: ServiceRef }
  /** UISP refused to delete a confirmed service (`detail`: its answer): it is still there; the run went on. */
  | { kind: 'service-delete-refused'; service: ServiceRef; detail: string }
  | { kind: 'service-created'; service: ServiceRef; price: number; currency: string | null; activeFrom: string; deleted: number[] }
  | { kind: 'service-created-unconfirmed'; serviceId: number }
  | { kind: 'site-created'; site: { name: string }; unconfirmed?: true }
  /** A record this run made that another run's older one made redundant: removed (this run's DELETE succeeded). */
  | { kind: 'duplicate-removed'; record: RecordKind; id: number | string }
  /** Such a record UISP refused to remove (`detail`: UISP's reason): it is still there, read again. */
  | { kind: 'duplicate-refused'; record: RecordKind; id: number | string; detail: string }
  | { kind: 'authorized'; device: DeviceRef; site: SiteRef };

/**
 * Several SubOps-made Active services, or SubOps sites, for one client, or SubOps-made namesakes of it
 * with nothing under them: a create UISP applied after its run gave up, or what a run that failed midway
 * left. Nobody removes it on their own: a person decides (the audit notice's Remove duplicate).
 */
export interface LateDuplicate {
  record: 'client' | 'service' | 'site';
  client: ClientRef;
  /** The one the activation kept and reported. */
  kept: { id: number | string; name: string | null };
  /** The others, newest last. */
  others: { id: number | string; name: string | null }[];
}

/** A write the plan still expected when the run stopped. */
export type PendingEntry =
  | { kind: 'create-client'; firstName: string; lastName: string }
  | { kind: 'delete-service'; service: ServiceRef }
  | { kind: 'create-service' }
  | { kind: 'create-site'; name: string }
  | { kind: 'authorize'; device: DeviceRef }
  /** The run stopped without saying how far it got (front ends only: the workflow threw). */
  | { kind: 'unknown' };

/** UISP (or the transport) failed, or answered something the run cannot go on from. */
export type UispFailure =
  /**
   * `detail`: the UISP client's own description of the failed request. `mayHaveApplied`: the write may
   * have landed (a re-run converges). `beforeWrites`: it happened while reading, before any write.
   */
  | {
      code: 'uisp-error';
      problem: 'request';
      detail: string;
      mayHaveApplied: boolean;
      beforeWrites: boolean;
      /** UISP answered 429 or 503 (rate-limited, overloaded), with how long its Retry-After asked to wait: worth trying again later. */
      throttled?: { status: number; retryAfterMs: number | null };
    }
  /** UISP created the service in another status than Active (spec §7). */
  | { code: 'uisp-error'; problem: 'service-not-active'; service: ServiceRef };

/** Why an activation stopped, with the facts a front end words. */
export type ActivationError =
  | ActivationRefusal
  /** The plan moves the device off another client's site and the run was not confirmed for that move. */
  | { code: 'device-in-use'; device: DeviceRef; move: DeviceMove }
  /** The plan deletes services the run was not confirmed to delete (`client`: null for a new client). */
  | { code: 'delete-unconfirmed'; services: ServiceRef[]; client: ClientRef | null }
  /**
   * A service the agent confirmed deleting is not what they confirmed any more (`now`: as read just
   * before its DELETE would have gone out; a person made it Active, say): not deleted, no service created.
   */
  | { code: 'service-changed'; client: ClientRef; confirmed: ServiceRef; now: ServiceRef }
  /** The run's hold on its device and client ran out (`lost`) or could not be checked (`store`): it stopped before its next delete or authorization. */
  | { code: 'lease-lost'; reason: 'lost' | 'store' }
  | UispFailure;

export type ActivationErrorCode = ActivationError['code'];

/** Why a run failed: what the workflow reported, or (front ends only) that it ended without a result. */
export type ActivationStop = ActivationError | { code: 'stopped' };

/** The records a run reached; a failed run may have reached some of them. */
interface Reached {
  device?: DeviceRef;
  client?: ClientRef;
  service?: ServiceRef;
  site?: SiteRef;
}

export type ActivationResult = Reached & {
  type: 'result';
  /** What confirming would do: set for a dry run, and for a run stopped by a deletion or move not confirmed. */
  plan?: ActivationPlan;
  /** CRM web page of the client, for the manual CRM–NMS link. */
  crmClientUrl?: string;
  /** The confirmed move this run made: the device came off that site of that client. */
  movedFrom?: DeviceMove;
  /** Late duplicates this run met for the client (an audit notice names them, with Remove duplicate). */
  duplicates?: LateDuplicate[];
  /** Quoted or Obsolete services of other plans (cable TV…) the run left as they are. */
  leftAlone?: ServiceRef[];
  /** What was written, and what the plan still expected, for failure reports. */
  done: DoneEntry[];
  notDone: PendingEntry[];
} & (
    | { outcome: 'activated' | 'already-activated'; device: DeviceRef; client: ClientRef; service: ServiceRef; site: SiteRef }
    | { outcome: 'planned'; plan: ActivationPlan; device: DeviceRef }
    /**
     * `failedStep`: the step it stopped at; null when the workflow stopped without a result (front ends
     * only), which `error` 'stopped' says.
     */
    | { outcome: 'failed'; failedStep: StepName; error: ActivationError }
    | { outcome: 'failed'; failedStep: null; error: Extract<ActivationStop, { code: 'stopped' }> }
  );

export type ActivationEvent = StepEvent | ActivationResult;
