/** What every listener receives from the composition root (src/app.ts): no singletons. */
import type { Logger } from 'pino';
import type { Services } from '../services/container.js';
import type { StatusLabeller } from '../views/suspension.js';
import type { Auditor } from './audit.js';

export interface ListenerDeps {
  services: Pick<Services, 'activation' | 'suspensions' | 'payments'>;
  audit: Auditor;
  logger: Logger;
  /** Names CRM service status numbers as configured (SERVICE_STATUS_*). */
  statusLabel: StatusLabeller;
}
