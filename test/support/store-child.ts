/**
 * A separate process on the embedded store, for test/store/store.test.ts and test/slack/serve.test.ts. `claim <dir> <n>`: claims
 * keys 0..n-1 and prints the keys it won (JSON). `bot <dir>`: opens the store as the bot does, prints
 * "holding", and holds it until it is killed.
 */
import { openStore } from '../../src/store/index.js';

const [mode, dir, count] = process.argv.slice(2);
if (mode === 'claim') {
  const store = openStore({ engine: 'embedded', dir: dir! });
  const keys = Array.from({ length: Number(count) }, (_, i) => `race:${i}`);
  const outcomes = await Promise.all(keys.map((key) => store.claims.claim(key)));
  process.stdout.write(JSON.stringify(keys.filter((_, i) => outcomes[i]!.won)));
  await store.close();
} else {
  const store = openStore({ engine: 'embedded', dir: dir! }, { guardFolder: true });
  await store.ready();
  process.stdout.write('holding\n');
  setInterval(() => undefined, 60_000);
}
