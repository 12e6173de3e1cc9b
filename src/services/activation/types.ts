/**
 * The activation workflow's public shapes: what a front end asks for, the plan it may show before
 * anything is written, and the step events it renders as they happen. No Slack or terminal knowledge.
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

export interface DeviceRef {
  id: string;
  name: string;
  ip: string | null;
  mac: string | null;
  /** Which NMS list it was found in. */
  list: 'authorized' | 'discovered';
  siteId: string | null;
  authorized: boolean;
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

/** What an activation will do, computed from reads alone. */
export interface ActivationPlan {
  device: DeviceRef;
  client: { action: 'reuse'; client: ClientRef } | { action: 'create'; firstName: string; lastName: string };
  service:
    | { action: 'reuse'; service: ServiceRef }
    | { action: 'create'; delete: ServiceRef[]; servicePlanPeriodId: number; price: number; activeFrom: string };
  site: { action: 'reuse'; site: SiteRef } | { action: 'create'; name: string; parentSiteId: string | null };
  authorize: { action: 'skip'; reason: string } | { action: 'authorize' };
  /** True when the plan deletes anything: front ends ask for confirmation first. */
  destructive: boolean;
}

export type StepName = 'discover' | 'client' | 'service' | 'site' | 'authorize' | 'manual-link';
/** manual: a step the agent must do by hand (the CRM–NMS link); the bot never performs it. */
export type StepStatus = 'done' | 'skipped' | 'failed' | 'planned' | 'manual';

export interface StepEvent {
  type: 'step';
  step: StepName;
  status: StepStatus;
  /** One human sentence, e.g. "Created client #1042 Ada Lovelace". */
  message: string;
  /** Ids involved, for audit and rendering. */
  ids: Record<string, string | number>;
}

export type ActivationOutcome = 'activated' | 'already-activated' | 'planned' | 'failed';

export interface ActivationResult {
  type: 'result';
  outcome: ActivationOutcome;
  message: string;
  device?: DeviceRef;
  client?: ClientRef;
  service?: ServiceRef;
  site?: SiteRef;
  plan?: ActivationPlan;
  /** CRM web page of the client, for the manual CRM–NMS link. */
  crmClientUrl?: string;
  /** Sentences describing what was written, and what was not, for failure reports. */
  done: string[];
  notDone: string[];
  error?: { code: ActivationErrorCode; message: string; candidates?: string[] };
}

export type ActivationEvent = StepEvent | ActivationResult;

export type ActivationErrorCode =
  | 'device-not-found'
  | 'device-ambiguous'
  | 'client-not-found'
  | 'client-ambiguous'
  | 'service-suspended'
  | 'parent-site-not-found'
  | 'uisp-error';
