/**
 * The composition root for the services layer: one dispatcher, one HTTP core per UISP system, the
 * per-system clients and the operations on top. Front ends (CLI, Slack app) receive this object; tests
 * build it against the simulator or pass their own dispatcher.
 */
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { CoreConfig } from '../config.js';
import { StatusNumbering } from './activation/numbering.js';
import { SHARED_STATUSES } from './activation/service-status.js';
import { ActivationService } from './activation/workflow.js';
import { SheetService } from './sheets/service.js';
import { KeyedLock } from './converge.js';
import { SharedLocks, type SharedLockOptions } from './shared-locks.js';
import { DuplicateService } from './duplicates.js';
import { LookupService } from './lookups/index.js';
import { PaymentService } from './payments.js';
import { SuspensionService } from './suspensions.js';
import { CrmClient } from './uisp/crm-client.js';
import { createUispDispatcher, UispHttp } from './uisp/http.js';
import { NmsClient } from './uisp/nms-client.js';
import { NmsFilters } from './uisp/nms-filters.js';
import { NetworkReads } from './network.js';
import { OutageService } from './outages.js';
import { shownUrl } from './uisp/shown-url.js';
import { todayIn } from './dates.js';
import { OwnChanges } from './events/own-changes.js';
import { allOf, type UispObserver } from './uisp/exchange.js';

export interface Services {
  crm: CrmClient;
  nms: NmsClient;
  /** The NMS questions narrowed to the records asked for, with what this UISP's NMS turned out to honour. */
  network: NetworkReads;
  activation: ActivationService;
  /** Install sheets: many activations, checked first, run at a pace UISP accepts (issue #41). */
  sheets: SheetService;
  suspensions: SuspensionService;
  payments: PaymentService;
  lookups: LookupService;
  /** Late duplicates: found for a client, removed only on a person's click (issue §5). */
  duplicates: DuplicateService;
  /** The outages in progress and the customers each affects (issue #40). */
  outages: OutageService;
  /** SubOps' own recent CRM writes, noted by the HTTP core: webhooks about them are not reported again. */
  ownChanges: OwnChanges;
  /** Which service status numbering UISP uses: set, or detected once from the CRM. */
  numbering: StatusNumbering;
  /** The UISP base URL in use, for links to the CRM web interface. */
  uispUrl: string;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  /** undici dispatcher (a MockAgent in tests); by default a keep-alive Agent owned by the container. */
  dispatcher?: Dispatcher;
  /** Clock, for tests that pin "today" or move time past the services' cache TTLs. */
  now?: () => Date;
  /** Told of every UISP request (metrics). */
  observer?: UispObserver;
  /** A store shared with other processes (DATABASE_URL): runs on the same device or client take turns across them too. */
  sharedLocks?: SharedLockOptions;
  /** Where the services say what the operator should know (a UISP that ignores a filter); the bot passes its own. */
  logger?: Logger;
  /** What UISP turned out not to do as asked, said once (the Slack app's log, the CLI's stderr). */
  notice?: (line: string) => void;
  /**
   * Where an NMS filter this UISP does not honour is said (./uisp/nms-filters.ts); default `notice`. The
   * CLI says it only at LOG_LEVEL=debug: one process per command would say it on every command.
   */
  nmsNotice?: (line: string) => void;
}

/** `uisp.url` and both tokens must be present: callers resolve the embedded simulator before this. */
export function createServices(config: CoreConfig, overrides: ServiceOverrides = {}): Services {
  const { uisp } = config;
  if (!uisp.url || !uisp.crmToken || !uisp.nmsToken) throw new Error('createServices needs a UISP URL and tokens');
  const timeouts = { connectMs: uisp.connectTimeoutMs, requestMs: uisp.requestTimeoutMs, deadlineMs: uisp.deadlineMs };
  const ownDispatcher = overrides.dispatcher ? undefined : createUispDispatcher(timeouts, uisp.poolConnections);
  const dispatcher = overrides.dispatcher ?? ownDispatcher!;
  const ownChanges = new OwnChanges();
  const common = {
    dispatcher,
    observer: allOf([ownChanges, ...(overrides.observer ? [overrides.observer] : [])]),
    timeouts,
    retry: { retries: uisp.retries, backoffMs: uisp.retryBackoffMs },
  };
  const crm = new CrmClient(
    new UispHttp({
      ...common,
      system: 'crm',
      baseUrl: `${uisp.url}/crm/api/v1.0`,
      // Stock UISP CRM authenticates with X-Auth-App-Key; the spec says X-Auth-Token. Send both.
      headers: { 'X-Auth-Token': uisp.crmToken, 'X-Auth-App-Key': uisp.crmToken },
    }),
    { pagesInFlight: uisp.pagesInFlight },
  );
  const nms = new NmsClient(new UispHttp({ ...common, system: 'nms', baseUrl: `${uisp.url}/nms/api/v2.1`, headers: { 'X-Auth-Token': uisp.nmsToken } }));
  const notice = overrides.notice ?? ((line: string) => overrides.logger?.warn(line));
  const network = new NetworkReads(nms, new NmsFilters(overrides.nmsNotice ?? notice));
  const now = overrides.now ?? (() => new Date());
  const today = () => todayIn(config.activation.timeZone, now());
  const writeRetry = { retries: uisp.writeRetries, backoffMs: uisp.writeBackoffMs, windowMs: uisp.retryWindowMs };
  // One set of locks per container: the CLI and the Slack app each build one container per process;
  // with a shared store, held in it too.
  const locks = overrides.sharedLocks ? new SharedLocks(overrides.sharedLocks) : new KeyedLock();
  const numbering = new StatusNumbering(config.activation.numbering, crm);
  const outages = new OutageService({ nms, network, numbering });
  const activation = new ActivationService({ crm, nms, network, settings: config.activation, numbering, crmBaseUrl: `${shownUrl(uisp.url)}/crm`, today, writeRetry, locks });
  return {
    crm,
    nms,
    network,
    activation,
    sheets: new SheetService({ activation, concurrency: config.sheets.concurrency }),
    suspensions: new SuspensionService(crm, SHARED_STATUSES, writeRetry, numbering),
    payments: new PaymentService(crm, today, { limits: config.payments, retry: writeRetry, locks }, () => now().getTime(), notice),
    lookups: new LookupService({ crm, nms, network, numbering, outages, crmClientUrl: (id) => activation.crmClientUrl(id), logger: overrides.logger }),
    duplicates: new DuplicateService({ crm, nms, network, numbering, locks }),
    outages,
    ownChanges,
    numbering,
    uispUrl: uisp.url,
    /** Closes UISP's connections and waits for the locks let go in the shared store (a CLI run closes its store next). */
    close: async () => {
      if (locks instanceof SharedLocks) await locks.settled();
      await ownDispatcher?.close();
    },
  };
}
