/**
 * The services layer wired to a fresh UISP simulator over real loopback HTTP, the way the CLI and the
 * Slack app wire it, with knobs for the clock, the settings and the simulator.
 */
import { loadCoreConfig, type CoreConfig, type Env } from '../../src/config.js';
import { createServices, type Services } from '../../src/services/container.js';
import { startSimulator, type RecordedRequest, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';

export interface UispFixture {
  sim: RunningSimulator;
  services: Services;
  config: CoreConfig;
  /** Requests that change something (anything but GET), as "METHOD /path". */
  writes(): string[];
  close(): Promise<void>;
}

export async function startUisp(options: { env?: Env; now?: () => Date; simulator?: SimulatorOptions } = {}): Promise<UispFixture> {
  const sim = await startSimulator(options.simulator);
  const config = loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, UISP_RETRY_BACKOFF_MS: '1', UISP_WRITE_BACKOFF_MS: '1', ISP_TIMEZONE: 'America/Guyana', ...options.env });
  const services = createServices(config, options.now ? { now: options.now } : {});
  return {
    sim,
    services,
    config,
    writes: () => sim.requests.filter((r: RecordedRequest) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`),
    close: async () => {
      await services.close();
      await sim.close();
    },
  };
}
