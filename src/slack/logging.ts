/**
 * The adapter Bolt and its WebClient log through (pino itself is set up in ../logging.ts, shared with
 * the CLI). Bolt's debug output is dropped: at debug level Bolt logs whole request bodies (response
 * URLs, the legacy verification token), which must never reach the logs.
 */
import type { Logger as BoltLogger } from '@slack/bolt';
import { LogLevel } from './bolt.js';
import type { Logger } from 'pino';

export { createLogger } from '../logging.js';

export function boltLogger(logger: Logger): BoltLogger {
  const bolt = logger.child({ component: 'bolt' });
  let level = LogLevel.INFO;
  const write = (method: 'info' | 'warn' | 'error') => (...msg: unknown[]) => bolt[method](msg.map((m) => (m instanceof Error ? m.message : typeof m === 'string' ? m : JSON.stringify(m))).join(' '));
  return {
    debug: () => undefined,
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
