#!/usr/bin/env node
// Thin launcher: the TypeScript sources are compiled to dist/ by `npm run build` (`npm ci` runs it through
// the `prepare` script when TypeScript is installed; `npm ci --omit=dev` leaves it out: docs/deployment.md).
// runProcess reads `.env` (variables already set win), then runs the command.
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { URL } from 'node:url';

const DIST = new URL('../dist/', import.meta.url);
// npm passes on the SIGINT or SIGTERM it gets; one that arrives this soon after the same signal is that copy.
const ECHO_MS = 2000;
const LAUNCHER_CHECK_MS = 1000;

if (process.env.npm_lifecycle_event !== undefined) {
  ignoreNpmEchoes();
  stopWhenOrphaned();
}

try {
  const [{ main }, { runProcess }] = await Promise.all([import('../dist/cli/main.js'), import('../dist/process/env-file.js')]);
  process.exitCode = await runProcess(main);
} catch (error) {
  const problem = launchProblem(error);
  if (problem === undefined) throw error;
  // A bad installation, like bad configuration: restarting (systemd's Restart=on-failure) does not fix it.
  process.exitCode = runsServe() ? refuseToServe(problem) : (process.stderr.write(`${problem}\n`), 2);
}

/** `serve` (the first word of the command line that is not an option), which a supervisor runs. */
function runsServe() {
  return process.argv.slice(2).find((arg) => !arg.startsWith('-')) === 'serve';
}

/**
 * serve's fatal problems are one JSON log line on stdout and exit 78 (src/process/io.ts, SERVE_EXIT): pino's
 * own fields and level, written by hand, since the dependencies may be what is missing.
 */
function refuseToServe(problem) {
  const exitCode = 78;
  process.stdout.write(`${JSON.stringify({ level: 60, time: Date.now(), pid: process.pid, hostname: hostname(), app: 'subops', exitCode, msg: problem })}\n`);
  return exitCode;
}

/**
 * The package's scripts `exec` node (`npm start`, `npm run demo`, `npm run simulate`), so npm passes SIGINT
 * and SIGTERM straight to this process. A Ctrl-C (or systemd stopping a unit that runs npm) also signals
 * this process directly: the same signal then comes twice. The first starts the clean stop (serve drains);
 * the copy must not end it early as a second signal would, so it is ignored. A signal that no command
 * handles (a one-shot command) still ends the process as usual.
 */
function ignoreNpmEchoes() {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    let last = -Infinity;
    const onSignal = () => {
      const now = performance.now();
      const echo = now - last < ECHO_MS;
      last = now;
      if (echo || process.listenerCount(signal) > 1) return;
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * npx runs its command through `sh -c`, and a shell that gets SIGTERM dies without passing it on: this
 * process would go on serving, re-parented, with nobody left to stop it. Losing the launcher is taken as
 * the SIGTERM it was meant to get, so `serve` drains and `simulate` closes.
 */
function stopWhenOrphaned() {
  const launcher = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, LAUNCHER_CHECK_MS);
  watch.unref();
}

/** One line, no stack, for a checkout that was never built or whose dependencies are not installed (exit 2; serve 78). */
function launchProblem(error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  if (typeof error.url === 'string' && error.url.startsWith(DIST.href)) {
    const missing = error.url.slice(DIST.href.length);
    return missing === 'cli/main.js'
      ? 'SubOps is not built (no dist/): run npm ci (it installs the dev dependencies, the compiler among them, and builds), or npm run build where they are installed; or use the Docker image.'
      : `SubOps' build in dist/ is out of date (no ${missing}): run npm run build (with the dev dependencies installed: npm ci).`;
  }
  const dependency = /Cannot find package '([^']+)'/.exec(String(error.message))?.[1];
  if (dependency !== undefined) return `SubOps' dependencies are not installed (no ${dependency}): run npm ci (or npm ci --omit=dev where dist/ is built).`;
  return undefined;
}
