/**
 * Row 7, the first seconds (issue 35): `subops serve` in its own process, HTTP mode, against the
 * simulator and the fake Slack as the other rows start it, but on a fresh machine: a new, empty state
 * folder (XDG_STATE_HOME and HOME in a temp folder, so the embedded store is made at its default place
 * there), no DATABASE_URL, not --simulator. From its "listening" line a signed /payments is sent every
 * 200 ms for 25 s, whatever the earlier ones are doing; the row reads the process's peak RSS (VmHWM in
 * /proc/<pid>/status) as the 25 s end, before it is stopped, and times every ack.
 *
 * The same again after a restart: serve is started on a new folder, stopped with SIGTERM once its store
 * is open ("SubOps state: …"), and started again on that folder; the second run is measured.
 *
 * Baseline: the bare Bolt app (bench/bare-bolt-app.js) started the same way (the same settings, once
 * and stopped first for the restart), from its "ready" line, acking the same /payments and reading the
 * same first page of payments after the ack. Runs alternate: bare, SubOps (fresh), bare, SubOps (restart).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SlackSender } from '../../src/playground/slack-sender.js';
import { ms, record } from '../report.js';
import { AGENT, appEnv, BARE_BOLT, CHANNEL, SIGNING_SECRET, startStage, SUBOPS, type Stage } from '../support.js';
import { firstPageQuery } from './payments-slack.js';

const WINDOW_MS = 25_000;
const EVERY_MS = 200;
const LATENCY_MS = 20;
/** Slack's own deadline is 3 s; every ack within 1 s leaves it a margin. */
const ACK_DEADLINE_MS = 1_000;
const RSS_GOAL = 1.5;
/** Bounds: an ack not back by then counts as missed; a start-up line not printed by then fails the row. */
const ACK_GIVE_UP_MS = 10_000;
const START_GIVE_UP_MS = 180_000;
const STOP_GIVE_UP_MS = 60_000;

const SUBOPS_LISTENING = /SubOps is listening/;
const SUBOPS_STATE = /SubOps state: /;
const BARE_READY = /^ready$/m;

interface App {
  name: string;
  args: string[];
  listening: RegExp;
  /** The line after which the app answers everything it offers (SubOps: its store is open). */
  complete: RegExp;
  env: Record<string, string>;
}

/** A child process whose stdout and stderr are kept, with when each awaited line first appeared. */
class Watched {
  readonly started = performance.now();
  readonly child;
  output = '';
  exitCode: number | null | undefined;
  private readonly exited: Promise<void>;
  private readonly waits: { pattern: RegExp; resolve: (ms: number) => void }[] = [];

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const take = (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
      const now = performance.now() - this.started;
      for (const wait of [...this.waits]) {
        if (wait.pattern.test(this.output)) {
          this.waits.splice(this.waits.indexOf(wait), 1);
          wait.resolve(now);
        }
      }
    };
    this.child.stdout.on('data', take);
    this.child.stderr.on('data', take);
    this.exited = new Promise((resolve) => this.child.on('close', (code) => ((this.exitCode = code), resolve())));
    this.child.on('error', () => undefined);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** ms from spawn to the first output matching `pattern` (already there, or within `timeoutMs`); rejects if the process exits first. */
  line(pattern: RegExp, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`no ${pattern} within ${timeoutMs} ms: ${this.tail()}`)), timeoutMs);
      const done = (error?: Error, at?: number) => {
        clearTimeout(timer);
        const index = this.waits.indexOf(wait);
        if (index >= 0) this.waits.splice(index, 1);
        if (error) reject(error);
        else resolve(at!);
      };
      const wait = { pattern, resolve: (at: number) => done(undefined, at) };
      if (pattern.test(this.output)) return done(undefined, performance.now() - this.started);
      this.waits.push(wait);
      void this.exited.then(() => done(new Error(`exited (${this.exitCode}) before printing ${pattern}: ${this.tail()}`)));
    });
  }

  /** The process's peak resident set size so far, in MB (Linux: VmHWM). */
  async peakRssMb(): Promise<number> {
    const status = await readFile(`/proc/${this.pid}/status`, 'utf8').catch(() => '');
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
    if (kb === undefined) throw new Error(`cannot read the peak RSS of process ${this.pid} (/proc/${this.pid}/status: no VmHWM)${this.exitCode === undefined ? '' : `; it exited (${this.exitCode}): ${this.tail()}`}`);
    return Number(kb) / 1024;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** SIGTERM, and the exit awaited (SIGKILL if it does not come within STOP_GIVE_UP_MS). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_GIVE_UP_MS)));
    if (await Promise.race([this.exited.then(() => false), late])) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    clearTimeout(timer);
  }

  tail(): string {
    return this.output.trim().split('\n').slice(-3).join(' | ');
  }
}

interface FirstSeconds {
  peakRssMb: number;
  /** ms each /payments waited for its ack (ACK_GIVE_UP_MS or more: not acked). */
  acks: number[];
  /** Acks that were not HTTP 200, or did not come: what came instead ("HTTP 500", "no answer", "none in 10 s"). */
  missed: string[];
  /** From "listening" to the line saying everything is answered, when it came within the window. */
  completeAfterMs: number | undefined;
}

/** A signed /payments every EVERY_MS from now for WINDOW_MS, the app's peak RSS at the window's end. */
async function firstSecondsOf(stage: Stage, app: Watched, port: string, complete: RegExp): Promise<FirstSeconds> {
  const opened = performance.now();
  let completeAt: number | undefined;
  void app.line(complete, WINDOW_MS).then(
    () => (completeAt = performance.now() - opened),
    () => undefined,
  );
  const sender = new SlackSender({ url: `http://127.0.0.1:${port}/slack/events`, signingSecret: SIGNING_SECRET, responseUrl: () => stage.fake.responseUrl() });
  const sends: Promise<{ ms: number; failure?: string }>[] = [];
  const count = Math.floor(WINDOW_MS / EVERY_MS);
  for (let i = 0; i < count; i++) {
    // On schedule from the window's start: a late timer does not push the later sends back.
    const due = opened + i * EVERY_MS - performance.now();
    if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
    if (!app.running) break;
    sends.push(timedAck(sender, i));
  }
  const rest = opened + WINDOW_MS - performance.now();
  if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  const peakRssMb = await app.peakRssMb();
  const answers = await Promise.all(sends);
  if (answers.length < count) throw new Error(`the app exited ${Math.round(performance.now() - opened)} ms after listening: ${app.tail()}`);
  return { peakRssMb, acks: answers.map((a) => a.ms), missed: answers.flatMap((a) => (a.failure === undefined ? [] : [a.failure])), completeAfterMs: completeAt };
}

async function timedAck(sender: SlackSender, i: number): Promise<{ ms: number; failure?: string }> {
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ACK_GIVE_UP_MS)));
  const reply = sender.slashCommand({ command: '/payments', text: '', userId: i === 0 ? AGENT : `U0AGENT${i}`, channelId: CHANNEL }).then(
    (answer) => (answer.status === 200 ? undefined : `HTTP ${answer.status}`),
    (error: unknown) => `no answer (${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)})`,
  );
  const failure = await Promise.race([reply, giveUp]);
  clearTimeout(timer);
  if (failure === 'late') return { ms: ACK_GIVE_UP_MS, failure: `none in ${ACK_GIVE_UP_MS / 1000} s` };
  return { ms: performance.now() - start, ...(failure !== undefined && { failure }) };
}

/** The settings of the other rows, the state folder (the embedded store's default place) in `home`. */
async function settings(stage: Stage, app: App, home: string): Promise<Record<string, string>> {
  return { ...(await appEnv(stage)), ...app.env, XDG_STATE_HOME: home, HOME: home };
}

/** One measured run of `app` on the state folder `home`: spawn, "listening", the window, SIGTERM. */
async function measuredRun(stage: Stage, app: App, home: string): Promise<FirstSeconds & { listeningMs: number }> {
  const env = await settings(stage, app, home);
  const child = new Watched(app.args, env);
  try {
    const listeningMs = await child.line(app.listening, START_GIVE_UP_MS);
    return { ...(await firstSecondsOf(stage, child, env.PORT!, app.complete)), listeningMs };
  } finally {
    await child.stop();
  }
}

/** The run before a restart: until the app says it answers everything, then SIGTERM and its exit. */
async function firstRun(stage: Stage, app: App, home: string): Promise<void> {
  const child = new Watched(app.args, await settings(stage, app, home));
  try {
    await child.line(app.complete, START_GIVE_UP_MS);
  } finally {
    await child.stop();
  }
  if (child.exitCode !== 0) throw new Error(`${app.name}'s first run exited ${child.exitCode} on SIGTERM: ${child.tail()}`);
}

const worst = (acks: number[]) => Math.max(...acks);

/** ' (HTTP 500 ×2, none in 10 s ×1)' for the failures listed; '' for none. */
const tally = (failures: string[]) => {
  if (failures.length === 0) return '';
  const counts = new Map<string, number>();
  for (const failure of failures) counts.set(failure, (counts.get(failure) ?? 0) + 1);
  return ` (${[...counts].map(([failure, count]) => `${failure} ×${count}`).join(', ')})`;
};

export async function firstSeconds(): Promise<void> {
  const stage = await startStage({ latencyMs: LATENCY_MS });
  const subops: App = { name: 'subops serve', args: [SUBOPS, 'serve'], listening: SUBOPS_LISTENING, complete: SUBOPS_STATE, env: {} };
  const bare: App = { name: 'the bare Bolt app', args: [BARE_BOLT], listening: BARE_READY, complete: BARE_READY, env: { PAYMENTS_QUERY: firstPageQuery() } };
  const homes: string[] = [];
  /** A new state folder; for a restart, `app` run on it once first; then the measured run. */
  const measure = async (app: App, restart: boolean) => {
    const dir = await mkdtemp(join(tmpdir(), 'subops-bench-state-'));
    homes.push(dir);
    if (restart) await firstRun(stage, app, dir);
    const run = await measuredRun(stage, app, dir);
    console.log(
      `[7] ${app.name}, ${restart ? 'restart' : 'fresh machine'}: listening ${ms(run.listeningMs)} after spawn; ` +
        `${run.completeAfterMs === undefined ? `no ${app.complete} within the ${WINDOW_MS / 1000} s` : `${app.complete} ${ms(run.completeAfterMs)} after listening`}; ` +
        `peak RSS ${run.peakRssMb.toFixed(0)} MB; worst ack ${ms(worst(run.acks))}; ${run.missed.length} of ${run.acks.length} not acked${tally(run.missed)}`,
    );
    return run;
  };
  try {
    for (const restart of [false, true]) {
      const theirs = await measure(bare, restart);
      const mine = await measure(subops, restart);
      const when = restart ? 'after a restart on existing state' : 'fresh machine';
      const rssRatio = mine.peakRssMb / theirs.peakRssMb;
      record({
        target: '7',
        name: `\`subops serve\`, ${when}: peak RSS over the first ${WINDOW_MS / 1000} s after listening`,
        figure: `${mine.peakRssMb.toFixed(0)} MB`,
        baseline: `${theirs.peakRssMb.toFixed(0)} MB (bare Bolt app)`,
        ratio: rssRatio,
        goal: `≤ ${RSS_GOAL}×`,
        pass: rssRatio <= RSS_GOAL,
      });
      const slowest = worst(mine.acks);
      const slowestBare = worst(theirs.acks);
      const late = (w: FirstSeconds) => (w.missed.length > 0 ? `, ${w.missed.length} of ${w.acks.length} not acked${tally(w.missed)}` : '');
      record({
        target: '7',
        name: `\`subops serve\`, ${when}: worst ack of /payments, one every ${EVERY_MS} ms for the first ${WINDOW_MS / 1000} s after listening`,
        figure: `${ms(slowest)}${late(mine)}`,
        baseline: `${ms(slowestBare)}${late(theirs)} (bare Bolt app's worst)`,
        ratio: slowest / slowestBare,
        goal: `≤ ${ACK_DEADLINE_MS} ms`,
        pass: mine.missed.length === 0 && slowest <= ACK_DEADLINE_MS,
      });
    }
  } finally {
    await stage.close();
    await Promise.all(homes.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
