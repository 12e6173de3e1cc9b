/**
 * The store's behaviour, the same on every engine (issue #28 §1): the embedded LMDB, a real PostgreSQL
 * server started for the test run, and the memory of the demo. Two Store objects on one database are two
 * processes; the embedded store is also raced by real processes (./store-child.ts).
 */
import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished, vi } from 'vitest';
import { Memory, openStore, storeOnKv, StoreError, type ForeignClaim, type Store } from '../../src/store/index.js';
import { checkStore } from '../../src/store/check.js';
import { migrate, SCHEMA_VERSION } from '../../src/store/migrations.js';
import { OpeningSql } from '../../src/store/sql.js';
import { openPostgres } from '../../src/store/postgres.js';
import { startPasswordCatcher } from '../support/password-catcher.js';
import { holdingBot, holdWrites, postgresStore, storeChild, testStore } from '../support/store.js';

/** The unprivileged account every Linux system has (test/support/postgres-server.ts runs PostgreSQL as it). */
const NOBODY = 65_534;

/** A folder every account may enter (not change): only the store folder's own mode keeps others out. */
async function sharedParent(): Promise<string> {
  const parent = await mkdtemp(join(embeddedDir, 'shared-'));
  await chmod(embeddedDir, 0o755);
  await chmod(parent, 0o755);
  return parent;
}

/** Runs `code` in Node as `nobody` (root only): its error, or 'ok'. */
function asNobody(code: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', code], { uid: NOBODY, gid: NOBODY, cwd: '/', env: { PATH: process.env.PATH ?? '' } }, (error, _stdout, stderr) => resolve(error ? stderr || error.message : 'ok'));
  });
}

/** A moving clock shared by the two "processes" of a test. */
function clock(start = 1_800_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

interface Engine {
  name: string;
  /** Two processes on one fresh database, on this clock. */
  pair(now: () => number): Promise<[Store, Store]>;
}

const opened: Store[] = [];
let embeddedDir: string;
/** Claim rows SubOps did not write that a store took over, as each store tells them. */
const foreign: ForeignClaim[] = [];
const onForeignClaim = (found: ForeignClaim) => void foreign.push(found);

const engines: Engine[] = [
  {
    name: 'memory (the demo, serve --simulator)',
    async pair(now) {
      const memory = new Memory();
      return [storeOnKv(memory, { now, onForeignClaim }), storeOnKv(memory, { now, onForeignClaim })];
    },
  },
  {
    name: 'embedded (LMDB)',
    async pair(now) {
      // Two opens of one folder: the bot and a CLI run on one machine.
      const dir = await mkdtemp(join(embeddedDir, 'pair-'));
      const store = openStore({ engine: 'embedded', dir }, { now, guardFolder: true, onForeignClaim });
      const other = openStore({ engine: 'embedded', dir }, { now, onForeignClaim });
      opened.push(store, other);
      return [store, other];
    },
  },
  {
    name: 'PostgreSQL',
    async pair(now) {
      const store = await postgresStore({ now, onForeignClaim });
      const other = await postgresStore({ now, schema: store.schema, onForeignClaim });
      opened.push(store, other);
      return [store, other];
    },
  },
];

beforeAll(async () => {
  embeddedDir = await mkdtemp(join(tmpdir(), 'subops-store-'));
}, 60_000);

afterAll(async () => {
  for (const store of opened) await store.close();
  await rm(embeddedDir, { recursive: true, force: true });
});

describe.each(engines)('the store on $name', (engine) => {
  let a: Store;
  let b: Store;
  const time = clock();
  beforeAll(async () => {
    [a, b] = await engine.pair(time.now);
  }, 60_000);

  it('gives a key to the first claim only; the other process is told it is held, then done', async () => {
    const first = await a.claims.claim('notice:1');
    expect(first.won).toBe(true);
    expect(await b.claims.claim('notice:1')).toEqual({ won: false, state: 'held' });
    if (first.won) await first.claim.done(60_000);
    expect(await b.claims.claim('notice:1')).toEqual({ won: false, state: 'done' });
    expect(await a.claims.claim('notice:1')).toEqual({ won: false, state: 'done' });
  });

  it('of claims made at the same moment by two processes, exactly one wins', async () => {
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claims.claim('race:1')));
    expect(outcomes.filter((o) => o.won)).toHaveLength(1);
  });

  it('a released claim (the work failed) is claimed again by the next one', async () => {
    const first = await a.claims.claim('notice:2');
    if (first.won) await first.claim.release();
    expect((await b.claims.claim('notice:2')).won).toBe(true);
  });

  it('a claim left held by a process that died is taken over when its lease runs out, not before', async () => {
    expect((await a.claims.claim('notice:3', { holdMs: 30_000 })).won).toBe(true);
    time.advance(29_000);
    expect(await b.claims.claim('notice:3')).toEqual({ won: false, state: 'held' });
    time.advance(1_000);
    expect((await b.claims.claim('notice:3')).won).toBe(true);
  });

  it('a done key is remembered for as long as asked, then may be claimed again', async () => {
    const first = await a.claims.claim('uuid:1');
    if (first.won) await first.claim.done(10_000);
    expect(await a.claims.isClaimed('uuid:1')).toBe(true);
    time.advance(10_000);
    expect(await a.claims.isClaimed('uuid:1')).toBe(false);
    expect((await b.claims.claim('uuid:1')).won).toBe(true);
  });

  it('a key held as an owner holds it is renewed by its holder, taken over only after its lease, and given up at once on letGo', async () => {
    expect(await a.claims.hold('watch:site-1', 30_000)).toBe(true);
    expect(await b.claims.hold('watch:site-1', 30_000)).toBe(false);
    time.advance(20_000);
    expect(await a.claims.hold('watch:site-1', 30_000)).toBe(true);
    time.advance(20_000);
    expect(await b.claims.hold('watch:site-1', 30_000)).toBe(false);
    time.advance(10_000);
    expect(await b.claims.hold('watch:site-1', 30_000)).toBe(true);
    expect(await a.claims.hold('watch:site-1', 30_000)).toBe(false);
    await b.claims.letGo('watch:site-1');
    expect(await a.claims.hold('watch:site-1', 30_000)).toBe(true);
  });

  // Issue #37 §8: one row written with a far-future lease made a device's activations wait forever, silently.
  it('a held lease running out later than its hold (and the allowance) is not one SubOps wrote: the next claim takes it over, with a warning', async () => {
    foreign.length = 0;
    const century = 100 * 365 * 24 * 3_600_000;
    // Whoever can write the store writes the row (the store's own API writes what it is given).
    expect((await a.claims.claim('lock:device:far', { holdMs: century })).won).toBe(true);
    expect((await b.claims.claim('lock:device:far')).won).toBe(true);
    expect(foreign).toEqual([{ key: 'lock:device:far', state: 'held', until: time.now() + century }]);
    // Taken over as any run-out lease: the new holder's two minutes stand.
    expect(await a.claims.claim('lock:device:far')).toEqual({ won: false, state: 'held' });
    // A lease within the hold and the allowance stands (clocks measured a little apart).
    expect((await a.claims.claim('lock:device:near', { holdMs: 2 * 60_000 + 5_000 })).won).toBe(true);
    expect(await b.claims.claim('lock:device:near')).toEqual({ won: false, state: 'held' });
    expect(foreign).toHaveLength(1);
  });

  it('a lock remembered as done is not one SubOps wrote (it only ever holds locks): taken over with a warning; other keys stay done', async () => {
    foreign.length = 0;
    const remembered = await a.claims.claim('lock:device:done');
    if (remembered.won) await remembered.claim.done(30 * 24 * 3_600_000);
    expect((await b.claims.claim('lock:device:done', { heldOnly: true })).won).toBe(true);
    expect(foreign).toEqual([expect.objectContaining({ key: 'lock:device:done', state: 'done' })]);
    const notice = await a.claims.claim('notice:done');
    if (notice.won) await notice.claim.done(30 * 24 * 3_600_000);
    expect(await b.claims.claim('notice:done')).toEqual({ won: false, state: 'done' });
  });

  it('a key held as an owner holds it, on a lease longer than its hold, is taken by the next holder, with a warning', async () => {
    foreign.length = 0;
    expect(await a.claims.hold('watch:far', 100 * 365 * 24 * 3_600_000)).toBe(true);
    expect(await b.claims.hold('watch:far', 30_000)).toBe(true);
    expect(foreign).toEqual([expect.objectContaining({ key: 'watch:far', state: 'held' })]);
    expect(await a.claims.hold('watch:far', 30_000)).toBe(false);
  });

  it('an approval request gets exactly one decision, however many deciders race', async () => {
    await a.approvals.add({ id: 'req-1', channel: 'C1', ts: '1.000001', request: { what: 'suspend 101' }, seal: 'request-seal', expiresAt: time.now() + 60_000 });
    expect(await b.approvals.at('C1', '1.000001')).toMatchObject({ request: { what: 'suspend 101' }, seal: 'request-seal' });
    const decision = (decision: 'approved' | 'rejected', by: string) => ({ decision, by, at: time.now(), seal: `seal-${by}` });
    const outcomes = await Promise.all([a.approvals.decide('req-1', decision('rejected', 'U1')), b.approvals.decide('req-1', decision('approved', 'U2')), a.approvals.decide('req-1', decision('approved', 'U3'))]);
    const winners = outcomes.filter((o) => o.won);
    expect(winners).toHaveLength(1);
    const stored = (await b.approvals.at('C1', '1.000001'))!.decision!;
    // The winner's seal is kept with its decision.
    expect(stored.seal).toBe(`seal-${stored.by}`);
    for (const outcome of outcomes) if (!outcome.won) expect(outcome).toEqual({ won: false, decision: stored.decision, by: stored.by });
    expect(await a.approvals.undecided()).toEqual([]);
  });

  it('keeps waiting audit records in the order they came, until each is taken out', async () => {
    for (const n of [1, 2, 3]) await (n % 2 ? a : b).outbox.add({ n }, time.now());
    expect(await b.outbox.count()).toBe(3);
    const [first, second] = await a.outbox.oldest(2);
    expect([first?.record, second?.record]).toEqual([{ n: 1 }, { n: 2 }]);
    await b.outbox.remove(first!.seq);
    expect((await a.outbox.oldest(5)).map((w) => w.record)).toEqual([{ n: 2 }, { n: 3 }]);
    for (const waiting of await a.outbox.oldest(5)) await a.outbox.remove(waiting.seq);
    expect(await b.outbox.count()).toBe(0);
  });

  it('an operation in flight is taken over only once its process stopped renewing its lease, and by one process', async () => {
    const row = { id: 'op-1', channel: 'C1', threadTs: '9.000001', ifStopped: { text: 'stopped' }, startedAt: time.now() };
    await a.operations.begin(row, 60_000);
    time.advance(50_000);
    await a.operations.renew(60_000);
    time.advance(50_000);
    expect(await b.operations.takeAbandoned(60_000, 10)).toEqual([]);
    time.advance(10_000);
    const [taken, again] = await Promise.all([b.operations.takeAbandoned(60_000, 10), a.operations.takeAbandoned(60_000, 10)]);
    expect([...taken, ...again]).toEqual([row]);
    // Given back (its thread could not be told), the next sweep takes it again; ended, nobody does.
    const taker = taken.length ? b : a;
    await taker.operations.giveUp('op-1');
    expect(await a.operations.takeAbandoned(60_000, 10)).toEqual([row]);
    await a.operations.end('op-1');
    time.advance(120_000);
    expect(await b.operations.takeAbandoned(60_000, 10)).toEqual([]);
  });

  it('lists the undecided requests, soonest to expire first', async () => {
    await a.approvals.add({ id: 'req-2', channel: 'C1', ts: '2.000001', request: {}, seal: 's2', expiresAt: time.now() + 9_000 });
    await a.approvals.add({ id: 'req-3', channel: 'C1', ts: '3.000001', request: {}, seal: 's3', expiresAt: time.now() + 5_000 });
    expect((await b.approvals.undecided()).map((r) => r.id)).toEqual(['req-3', 'req-2']);
  });

  it('keeps a sheet as given for the other process, with each row\'s last end, until it expires; adding one purges the expired', async () => {
    const sheet = { v: 1, check: { rows: [{ row: 1, request: { device: '10.0.0.1', firstName: 'Ada' } }], totals: { rows: 1 } } };
    await a.sheets.add({ id: 'sheet-1', sheet, seal: 'seal-1', expiresAt: time.now() + 10_000 });
    expect(await b.sheets.byId('sheet-1')).toEqual({ id: 'sheet-1', sheet, seal: 'seal-1', expiresAt: time.now() + 10_000, ended: [] });
    await b.sheets.rowEnded('sheet-1', { row: 2, outcome: 'failed', seal: 'r2' });
    await a.sheets.rowEnded('sheet-1', { row: 1, outcome: 'done', seal: 'r1' });
    await a.sheets.rowEnded('sheet-1', { row: 2, outcome: 'done', seal: 'r2b' });
    const ended = (await b.sheets.byId('sheet-1'))!.ended;
    expect([...ended].sort((x, y) => x.row - y.row)).toEqual([
      { row: 1, outcome: 'done', seal: 'r1' },
      { row: 2, outcome: 'done', seal: 'r2b' },
    ]);
    // A row's end for a sheet not kept is dropped, not kept for a sheet that never was.
    await a.sheets.rowEnded('sheet-none', { row: 1, outcome: 'done', seal: 'x' });
    expect(await b.sheets.byId('sheet-none')).toBeUndefined();
    time.advance(10_000);
    expect(await b.sheets.byId('sheet-1')).toBeUndefined();
    await a.sheets.add({ id: 'sheet-2', sheet: {}, seal: 'seal-2', expiresAt: time.now() + 10_000 });
    await a.sheets.rowEnded('sheet-1', { row: 3, outcome: 'done', seal: 'r3' });
    time.advance(-10_000);
    // Purged with its rows: back within its time, it is gone all the same.
    expect(await b.sheets.byId('sheet-1')).toBeUndefined();
    time.advance(10_000);
  });
});

describe('the embedded store on disk', () => {
  it('keeps what was claimed across a restart', async () => {
    const dir = join(embeddedDir, 'restart');
    const first = openStore({ engine: 'embedded', dir }, { guardFolder: true });
    const claimed = await first.claims.claim('webhook:1');
    if (claimed.won) await claimed.claim.done(3_600_000);
    await first.close();
    const second = openStore({ engine: 'embedded', dir }, { guardFolder: true });
    expect(await second.claims.claim('webhook:1')).toEqual({ won: false, state: 'done' });
    await second.close();
  });

  it('is shared by separate processes: of keys raced by three, each is won by exactly one', async () => {
    const dir = join(embeddedDir, 'processes');
    const children = await Promise.all(['a', 'b', 'c'].map(() => storeChild(['claim', dir, '200'])));
    const wins = children.map((stdout) => JSON.parse(stdout) as string[]);
    const all = wins.flat();
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
  });

  it('admits one bot per folder (an OS lock), shares it with CLI runs, and frees it when the bot dies however it dies', async () => {
    const dir = join(embeddedDir, 'guard');
    // Another process is the bot: it holds the folder until it is killed.
    const bot = await holdingBot(dir);

    const second = openStore({ engine: 'embedded', dir }, { guardFolder: true });
    const refused = await second.ready().then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreError);
    expect((refused as Error).message).toMatch(new RegExp(`^The embedded store in ${dir} \\(STORE_DIR\\) is in use by another SubOps bot \\(process ${bot.pid} on .+\\): one bot per state folder\\.`));
    // The refused bot removed nothing: the holder still holds, and says so to config check.
    expect(await readFile(join(dir, 'subops.lock'), 'utf8')).toContain(`process ${bot.pid}`);
    expect(await checkStore({ engine: 'embedded', dir })).toEqual({ status: 'ok', message: expect.stringContaining(`the bot's (process ${bot.pid} on`) });
    // A CLI run shares the store with the bot meanwhile.
    const cli = openStore({ engine: 'embedded', dir });
    onTestFinished(() => cli.close());
    expect((await cli.claims.claim('cli:1')).won).toBe(true);

    await bot.kill();
    expect(await checkStore({ engine: 'embedded', dir })).toEqual({ status: 'ok', message: expect.stringContaining('no bot holds it now') });
    const next = openStore({ engine: 'embedded', dir }, { guardFolder: true });
    await expect(next.ready()).resolves.toBeUndefined();
    await next.close();
  });

  it('makes its folder and every file in it this account\'s alone, even in a folder made 0755 before (install -d)', async () => {
    const dir = join(await sharedParent(), 'store');
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    const store = openStore({ engine: 'embedded', dir }, { guardFolder: true });
    onTestFinished(() => store.close());
    await store.claims.claim('private:1');
    const entries = await readdir(dir, { recursive: true });
    expect(entries.sort()).toEqual(['lmdb', 'lmdb/data.mdb', 'lmdb/lock.mdb', 'subops.lock']);
    expect(((await stat(dir)).mode & 0o777).toString(8)).toBe('700');
    for (const entry of entries) expect([entry, ((await stat(join(dir, entry))).mode & 0o077).toString(8)]).toEqual([entry, '0']);
    if (process.getuid?.() === 0) {
      // Another account can neither read nor write a file of it.
      for (const file of ['lmdb/data.mdb', 'subops.lock']) {
        for (const flags of ['r', 'r+']) expect(await asNobody(`require('node:fs').openSync(${JSON.stringify(join(dir, file))}, '${flags}')`)).toMatch(/EACCES/);
      }
    }
  });

  it('refuses a folder other accounts may change, or another account owns: one line naming it and the fix, nothing opened', async () => {
    const dir = join(await sharedParent(), 'store');
    await mkdir(dir);
    await chmod(dir, 0o777);
    const open = () => openStore({ engine: 'embedded', dir }, { guardFolder: true }).ready().then(() => undefined, (error: unknown) => error);
    const writable = await open();
    expect(writable).toBeInstanceOf(StoreError);
    expect((writable as Error).message).toBe(
      `The embedded store's folder ${dir} (STORE_DIR) may be changed by other accounts (mode 0777), who could forge what SubOps reads back from it. Run chmod 700 ${dir} if you trust what it holds, or set STORE_DIR to a new folder.`,
    );
    expect(await readdir(dir)).toEqual([]);
    expect(await checkStore({ engine: 'embedded', dir })).toEqual({ status: 'failed', message: (writable as Error).message });
    if (process.getuid?.() === 0) {
      await chmod(dir, 0o700);
      await chown(dir, NOBODY, NOBODY);
      const owned = await open();
      expect((owned as Error).message).toBe(
        `The embedded store's folder ${dir} (STORE_DIR) belongs to another account (uid ${NOBODY}), who could forge what SubOps reads back from it. Set STORE_DIR to a folder of this account's (uid 0), or run SubOps as the folder's owner.`,
      );
      expect(await readdir(dir)).toEqual([]);
    }
  });

  it('a folder it cannot make is one line naming STORE_DIR', async () => {
    // Below a file: no account can make it.
    await writeFile(join(embeddedDir, 'a-file'), '');
    const dir = join(embeddedDir, 'a-file', 'store');
    const store = openStore({ engine: 'embedded', dir });
    await expect(store.ready()).rejects.toThrow(`Could not open the embedded store in ${dir} (STORE_DIR): ENOTDIR`);
  });
});

describe('migrations', () => {
  it('run from many processes at once on a new database (replicas on their first rollout): each step applied once, none refused', async () => {
    const { schema } = await testStore();
    const engines = await Promise.all(Array.from({ length: 6 }, () => openPostgres({ url: inject('postgresUrl'), connectionOptions: `-c search_path=${schema}`, maxConnections: 1 })));
    onTestFinished(async () => {
      for (const engine of engines) await engine.close();
    });
    // A schema of its own, emptied: what a new database is.
    await engines[0]!.query('DROP TABLE IF EXISTS subops_migrations, claims, approval_requests, audit_outbox, operations, sheets, sheet_rows CASCADE');
    const applied = await Promise.all(engines.map((engine) => migrate(engine)));
    expect(applied.reduce((sum, n) => sum + n, 0)).toBe(SCHEMA_VERSION);
  });


  it('apply once: opening an up-to-date database changes nothing', async () => {
    const store = await postgresStore();
    opened.push(store);
    const again = await postgresStore({ schema: store.schema });
    opened.push(again);
    const sql = new OpeningSql(() => openPostgres({ url: inject('postgresUrl'), connectionOptions: `-c search_path=${store.schema}` }));
    await sql.ready();
    expect(await migrate(sql)).toBe(0);
    await sql.close();
  });
});

describe('leases on PostgreSQL are judged on the database\'s clock (issue #36)', () => {
  it('a replica whose clock runs three minutes ahead does not take a two-minute lease early', async () => {
    const holder = await testStore();
    expect((await holder.claims.claim('lock:device:skew')).won).toBe(true);
    // The other replica's clock runs ahead; it connects, and measures the database's clock against its own.
    const real = Date.now.bind(Date);
    const ahead = vi.spyOn(Date, 'now').mockImplementation(() => real() + 3 * 60_000);
    onTestFinished(() => ahead.mockRestore());
    const skewed = await testStore({ schema: holder.schema });
    expect(await skewed.claims.claim('lock:device:skew')).toEqual({ won: false, state: 'held' });
  });
});

describe('a PostgreSQL store that does not answer', () => {
  it('fails a query at its deadline instead of stalling the run', async () => {
    const { schema } = await testStore();
    const held = await holdWrites(schema, 'claims');
    onTestFinished(() => held.release());
    const sql = await openPostgres({ url: inject('postgresUrl'), connectionOptions: `-c search_path=${schema}`, queryTimeoutMs: 200 });
    onTestFinished(() => sql.close());
    await expect(sql.query(`INSERT INTO claims (key, owner, state, until_ms, claimed_ms) VALUES ('k', 'o', 'held', 1, 1)`)).rejects.toThrow(/statement timeout/);
  });
});

describe('DATABASE_URL that cannot be reached', () => {
  it('is one line naming DATABASE_URL and where it points, without the password', async () => {
    const store = openStore({ engine: 'postgres', url: 'postgres://subops:s3cret-pw@127.0.0.1:1/subops' });
    const failure = await store.ready().then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as Error).message).toMatch(/^Could not connect to the store at DATABASE_URL \(127\.0\.0\.1:1\/subops\): .*ECONNREFUSED/);
    expect((failure as Error).message).not.toContain('s3cret');
  });

  it('a password with a `/`, `?` or `#` left unencoded is never printed: the URL is refused as unreadable', async () => {
    // Read as a URL, `subops:2024` would be a host and port, and the rest of the password its database.
    for (const url of ['postgres://subops:2024/Secret@127.0.0.1:1/subops', 'postgres://subops:2024?Secret@127.0.0.1:1/subops', 'postgres://subops:2024#Secret@127.0.0.1:1/subops']) {
      const failure = await openStore({ engine: 'postgres', url }).ready().then(() => undefined, (error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreError);
      expect((failure as Error).message).toMatch(/^Could not connect to the store at DATABASE_URL \(an unreadable URL\)/);
      expect((failure as Error).message).not.toContain('Secret');
    }
  });
});

describe('~/.pgpass (issue #37 §5)', () => {
  it('is never read: a DATABASE_URL without a password sends none, whatever ~/.pgpass holds for that host', async () => {
    const catcher = await startPasswordCatcher();
    onTestFinished(() => catcher.close());
    const pgpass = join(embeddedDir, 'pgpass');
    await writeFile(pgpass, '*:*:*:*:operator-pgpass-secret\n', { mode: 0o600 });
    vi.stubEnv('PGPASSFILE', pgpass);
    onTestFinished(() => void vi.unstubAllEnvs());
    const failure = await openStore({ engine: 'postgres', url: catcher.url }).ready().then(() => undefined, (error: unknown) => error);
    expect(catcher.connections).toBe(1);
    expect(catcher.received).toEqual([]);
    expect((failure as Error).message).toBe(
      `Could not connect to the store at DATABASE_URL (127.0.0.1:${catcher.port}/subops): the server asks for a password, and neither DATABASE_URL nor PGPASSWORD holds one (SubOps does not read ~/.pgpass)`,
    );
  });
});
