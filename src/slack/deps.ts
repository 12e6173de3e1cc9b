/** What every listener receives from the composition root (src/app.ts): no singletons. */
import type { Logger } from 'pino';
import type { AccessPolicy } from '../services/access.js';
import type { ApprovalSettings } from '../services/approvals.js';
import type { Services } from '../services/container.js';
import type { EventServices } from '../services/events/index.js';
import type { Store } from '../store/index.js';
import type { StatusLabeller } from '../views/suspension.js';
import type { ApprovalSeal } from './approval-seal.js';
import type { SlackAuditor } from './audit.js';
import type { DeliveryLog } from './deliveries.js';
import type { LateDuplicateNotices } from './duplicate-notices.js';
import type { SheetRecords } from './sheet-records.js';
import type { BotIdentity } from './startup.js';
import type { ThreadReporter } from './thread-reporter.js';
import type { WorkTracker } from './work.js';

/** Approvals as configured (APPROVAL_*), where requests go, and the clock expiries are read on. */
export interface ApprovalDeps {
  settings: ApprovalSettings;
  channelId: string | undefined;
  now: () => number;
  /** The bot's seal on approval rows: a row counts only while it verifies (./approval-seal.ts). */
  seal: ApprovalSeal;
}

export interface ListenerDeps {
  services: Pick<Services, 'activation' | 'sheets' | 'suspensions' | 'payments' | 'lookups' | 'duplicates' | 'outages'>;
  audit: SlackAuditor;
  /** How an operation's thread, its audit entry and Slack's refusals reach Slack (src/slack/thread-reporter.ts). */
  reporter: ThreadReporter;
  logger: Logger;
  /** Work in flight: what a listener fires without awaiting (a view update) is counted here, so `idle()` and the drain wait for it. */
  work: WorkTracker;
  /** Names CRM service status numbers as configured (SERVICE_STATUS_*). */
  statusLabel: StatusLabeller;
  /** Deliveries already acted on: a repeated submission or button press runs nothing (see onceView, onceButton). */
  deliveries: DeliveryLog;
  /** Late-duplicate notices (audit channel, once per late record in this process): queue and go on. */
  lateDuplicates: LateDuplicateNotices;
  /** AUDIT_CHANNEL_ID: where changes made in UISP are posted. */
  auditChannelId?: string | undefined;
  /** UISP webhooks and the manual-link watch, when the bot process runs them. */
  events?: EventServices | undefined;
  /** Who may do what (ALLOWED_*, ACCESS_*): the middleware enforces it; views ask it which buttons to offer. */
  access: AccessPolicy;
  /** Which changes need a second person's approval, where requests go, and the clock (src/commands/approvals). */
  approvals: ApprovalDeps;
  /** Who SubOps is in Slack (auth.test at start): what is read back from Slack counts only when SubOps wrote it. */
  identity: BotIdentity;
  /** SubOps' own state: exactly-once claims and approval decisions, shared by replicas (src/store). */
  store: Store;
  /** Install sheets as checked and run, kept in the store under the bot's seal (./sheet-records.ts). */
  sheets: SheetRecords;
}
