/**
 * The bot's store before it may open: nothing of the store's code (nor its engines) loads until `ready()`,
 * which `serve` calls once it listens; calls made earlier wait for it. Loading the store's modules costs
 * start-up time the bot has no use for before it listens.
 */
import type { Store } from './index.js';

type Part = 'claims' | 'approvals' | 'outbox' | 'operations';

export function storeLater(open: () => Promise<Store>): Store {
  let allow!: () => void;
  let refuse!: (error: Error) => void;
  const allowed = new Promise<void>((resolve, reject) => {
    allow = resolve;
    refuse = reject;
  });
  let store: Store | undefined;
  const loading = allowed.then(open).then((opened) => (store = opened));
  // Whoever calls sees a failure; unobserved, it must not end the process.
  loading.catch(() => undefined);
  // Each method waits for the store, then is the store's own.
  const part = <K extends Part>(name: K): Store[K] =>
    new Proxy({} as Store[K], {
      get: (_target, method) => async (...args: unknown[]) => {
        const target = (await loading)[name] as unknown as Record<PropertyKey, (...args: unknown[]) => unknown>;
        return target[method]!(...args);
      },
    });
  return {
    claims: part('claims'),
    approvals: part('approvals'),
    outbox: part('outbox'),
    operations: part('operations'),
    async ready() {
      allow();
      await (await loading).ready();
    },
    isOpen: () => store?.isOpen() ?? false,
    async close() {
      // Closed before it was let open: what waited for it is refused.
      refuse(new Error('the store was closed before it was opened'));
      await store?.close();
    },
  };
}
