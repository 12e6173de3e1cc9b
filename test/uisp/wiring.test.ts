/**
 * The production wiring (config → createServices → clients) sends the right token under the right
 * header names to the right base paths. Kept apart from http.test.ts because it loads the whole
 * services layer.
 */
import { MockAgent } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { loadCoreConfig } from '../../src/config.js';
import { createServices } from '../../src/services/container.js';
import { CRM_BASE, CRM_TOKEN, fixtures, headersOf, JSON_HEADERS, NMS_BASE, NMS_TOKEN, ORIGIN } from './support.js';

let agent: MockAgent;
afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

it('CRM requests carry the CRM token as X-Auth-Token and X-Auth-App-Key; NMS requests the NMS token as X-Auth-Token', async () => {
  agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  pool.intercept({ path: `${CRM_BASE}/clients/1` }).reply(200, fixtures.client(1), { headers: JSON_HEADERS });
  pool.intercept({ path: `${NMS_BASE}/sites?ucrmDetails=true` }).reply(200, [fixtures.site()], { headers: JSON_HEADERS });

  const config = loadCoreConfig({ UISP_URL: ORIGIN, UISP_CRM_TOKEN: CRM_TOKEN, UISP_NMS_TOKEN: NMS_TOKEN, ISP_TIMEZONE: 'America/Guyana' });
  const services = createServices(config, { dispatcher: agent });
  await services.crm.getClient(1);
  await services.nms.listSites();
  await services.close();

  const [crm, nms] = agent.getCallHistory()!.calls().map(headersOf);
  expect(crm).toMatchObject({ 'x-auth-token': CRM_TOKEN, 'x-auth-app-key': CRM_TOKEN, accept: 'application/json' });
  expect(nms).toMatchObject({ 'x-auth-token': NMS_TOKEN, accept: 'application/json' });
  expect(nms!['x-auth-app-key']).toBeUndefined();
});
