/**
 * Turns configuration into running services. When asked (`--simulator`, SUBOPS_SIMULATOR=1) the bundled
 * UISP simulator stands in for UISP, so anyone can try SubOps offline, and the notice says so; never
 * without being asked: then a missing UISP_URL is a ConfigError (exit 2).
 *
 * The embedded simulator keeps its state between CLI commands in a state file (`simulatorStatePath`):
 * loaded when a command starts (the sample data when there is none), saved when a command that changed
 * something ends. Saving is atomic (a temporary file renamed over the state), so concurrent commands never
 * leave a broken file; but each works on the state it loaded, so when two commands that change something
 * overlap, the one that ends last wins and the other's changes are lost (it says so on stderr).
 * `subops simulate --reset` forgets the state. `subops serve --simulator` keeps nothing: it starts from the
 * sample data each time and never touches the state file (nor does `subops demo`, which does not come here).
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadUispConfig, sharedStoreSettings, stateHome, type CoreConfig, type Env } from './config.js';
import { createServices, type ServiceOverrides, type Services } from './services/container.js';
import type { RunningSimulator, SimulatorData } from './simulator/index.js';

export interface Connection {
  services: Services;
  config: CoreConfig;
  /** Set when the embedded simulator stands in for UISP. */
  simulator?: RunningSimulator;
  close(): Promise<void>;
}

export interface ConnectOptions extends Pick<ServiceOverrides, 'observer' | 'sharedLocks' | 'logger' | 'nmsNotice'> {
  /**
   * Whether the embedded simulator keeps its state in the state file between runs: true
   * (the default) for CLI commands, false for the bot (`subops serve --simulator`).
   */
  keepSimulatorState?: boolean;
  /**
   * CLI commands (the default): runs on a device or client take turns with the bot and other CLI
   * processes through the store they share (the embedded one on this machine, or DATABASE_URL's),
   * opened at the first write. A simulated run shares nothing. The bot passes `sharedLocks` from its own
   * store instead.
   */
  shareStore?: boolean;
}

/**
 * Where the embedded simulator keeps its state: SUBOPS_SIMULATOR_STATE (a file path) when set, else
 * `subops/simulator.json` in the user's state directory: XDG_STATE_HOME (when absolute), else
 * ~/.local/state (HOME, else the account's home directory).
 */
export function simulatorStatePath(env: Env): string {
  const explicit = env.SUBOPS_SIMULATOR_STATE?.trim();
  if (explicit) return explicit;
  return join(stateHome(env), 'subops', 'simulator.json');
}

export async function connect(env: Env, notice: (line: string) => void, { keepSimulatorState = true, shareStore = true, ...overrides }: ConnectOptions = {}): Promise<Connection> {
  const config = loadUispConfig(env);
  let simulator: RunningSimulator | undefined;
  let saveState: (() => Promise<void>) | undefined;
  // No URL once loaded: the simulator was asked for (loadUispConfig refuses a missing UISP_URL otherwise).
  if (!config.uisp.url) {
    const intro = `Simulated: the embedded UISP simulator answers${env.UISP_URL?.trim() ? ' instead of UISP_URL' : ''} (--simulator or SUBOPS_SIMULATOR=1)`;
    const embedded = await startEmbedded(keepSimulatorState ? simulatorStatePath(env) : undefined, intro, notice);
    simulator = embedded.simulator;
    saveState = embedded.save;
    config.uisp = { ...config.uisp, url: simulator.url, crmToken: simulator.token, nmsToken: simulator.token };
  }
  const shared = shareStore && !overrides.sharedLocks && !simulator ? sharedStoreSettings(env) : undefined;
  const stores = shared && (await import('./store/index.js'));
  const store = shared && stores && stores.openStore(shared, { onForeignClaim: (found) => notice(`Warning: ${stores.foreignClaimWarning(found)}`) });
  const storeName = shared?.engine === 'embedded' ? `in ${shared.dir} (STORE_DIR)` : 'at DATABASE_URL';
  const onStoreError = (error: unknown) =>
    notice(`Warning: SubOps' store ${storeName} did not answer (${error instanceof Error ? error.message : String(error)}): this run did not take turns with other SubOps processes; its writes still converge on what UISP says.`);
  const services = createServices(config, { notice, ...overrides, ...(store && { sharedLocks: { claims: store.claims, onStoreError } }) });
  return {
    services,
    config,
    ...(simulator && { simulator }),
    close: async () => {
      // The services first: they wait for the locks they let go in the store, which closes after them.
      await services.close();
      await store?.close();
      await simulator?.close();
      await saveState?.();
    },
  };
}

async function startEmbedded(statePath: string | undefined, intro: string, notice: (line: string) => void): Promise<{ simulator: RunningSimulator; save?: () => Promise<void> }> {
  // Loaded only here: with a real UISP the simulator's code and sample data are never read.
  const { loadStateFile, saveStateFile, SimulatorDataError, startSimulator } = await import('./simulator/index.js');
  if (!statePath) {
    const simulator = await startSimulator();
    notice(`${intro} at ${simulator.url} (no real UISP is touched), with sample data; nothing is kept after it stops.`);
    return { simulator };
  }
  let data: SimulatorData | undefined;
  let problem: string | undefined;
  try {
    data = await loadStateFile(statePath);
  } catch (error) {
    problem = error instanceof SimulatorDataError ? `${error.field}: ${error.problem}` : String(error);
  }
  const loaded = await fileIdentity(statePath);
  const simulator = await startSimulator(data ? { data } : {});
  const using = `${intro} at ${simulator.url} (no real UISP is touched)`;
  if (data) notice(`${using}, with the state earlier commands left in ${statePath} (\`subops simulate --reset\` starts over from the sample data).`);
  else if (problem) notice(`${using}, with sample data: the state in ${statePath} could not be read (${problem}); the next command that changes something replaces it (\`subops simulate --reset\` removes it).`);
  else notice(`${using}, with sample data; its state is kept between commands in ${statePath} (\`subops simulate --reset\` starts over).`);
  return {
    simulator,
    save: async () => {
      // Only a command that may have changed something saves: a read never overwrites another command's changes.
      if (!simulator.requests.some((request) => request.method !== 'GET' && !(request.status >= 300))) return;
      if (loaded !== (await fileIdentity(statePath))) notice(`Another subops command saved the embedded simulator's state while this one ran: its changes are replaced by this command's (${statePath}).`);
      try {
        await saveStateFile(statePath, simulator.data);
      } catch (error) {
        notice(`Could not save the embedded simulator's state to ${statePath} (${error instanceof Error ? error.message : String(error)}): the next command will not see this one's changes.`);
      }
    },
  };
}

/** What tells one saved state from the next (each save renames a new file over the path); undefined when there is none. */
async function fileIdentity(path: string): Promise<string | undefined> {
  const found = await stat(path).catch(() => undefined);
  return found && `${found.dev}:${found.ino}:${found.size}:${found.mtimeMs}`;
}
