/**
 * Turns configuration into running services. Without UISP_URL the CLI starts the bundled simulator
 * with its sample data, so anyone can try SubOps offline, and says so on stderr.
 */
import { loadCoreConfig, type CoreConfig, type Env } from './config.js';
import { createServices, type ServiceOverrides, type Services } from './services/container.js';
import type { RunningSimulator } from './simulator/index.js';

export interface Connection {
  services: Services;
  config: CoreConfig;
  /** Set when the embedded simulator stands in for UISP. */
  simulator?: RunningSimulator;
  close(): Promise<void>;
}

export async function connect(env: Env, notice: (line: string) => void, overrides: Pick<ServiceOverrides, 'observer'> = {}): Promise<Connection> {
  const config = loadCoreConfig(env);
  let simulator: RunningSimulator | undefined;
  if (!config.uisp.url) {
    // Loaded only here: with a real UISP the simulator's code and sample data are never read.
    const { startSimulator } = await import('./simulator/index.js');
    simulator = await startSimulator();
    config.uisp = { ...config.uisp, url: simulator.url, crmToken: simulator.token, nmsToken: simulator.token };
    notice(`UISP_URL is not set: using the embedded UISP simulator with sample data at ${simulator.url} (no real UISP is touched).`);
  }
  const services = createServices(config, overrides);
  return {
    services,
    config,
    ...(simulator && { simulator }),
    close: async () => {
      await services.close();
      await simulator?.close();
    },
  };
}
