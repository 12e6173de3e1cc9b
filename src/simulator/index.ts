/**
 * # UISP simulator
 *
 * A loopback HTTP server that answers like UISP: CRM v1.0 at `{url}/crm/api/v1.0`, NMS v2.1 at
 * `{url}/nms/api/v2.1`, one token (`X-Auth-Token`; the CRM also takes `X-Auth-App-Key`). It backs offline
 * CLI runs, demos, training and the tests. Service statuses are the world's (below): in the default
 * world the spec's 1 Active, 6 Quoted, 7 Obsolete, plus UISP's 3 Suspended (and 2 Ended). Knobs: `latencyMs`/`setLatency`, fault rules (`status`, `hang`,
 * `reset` — `phase: 'before'` or `'after'` the request is applied —, `trickle` the answer, apply it
 * `late`; by `times` and seeded `rate`), the `requests` log with `sequentialRoundTrips`, and signals to
 * wait on instead of sleeping: `received(n)` (n requests arrived) and `settled()` (all handled, late
 * writes included). Deleted CRM ids are never handed out again, as with UISP's auto-increment.
 * Webhooks: every change through the CRM routes (client add/edit/archive, service add/edit/delete/
 * suspend/suspend_cancel/end, payment add) is recorded as a webhook event, which
 * `GET /crm/api/v1.0/webhook-events/{uuid}` answers, and POSTed to `webhookUrl` (`setWebhookUrl`) in
 * UISP's body shape once the change is answered; `webhookDeliveries`, `resendWebhook` and
 * `webhooksSettled()` let tests follow them. Two worlds (`world`, SUBOPS_SIMULATOR_WORLD; ./world.ts): the
 * interface document's (default) and a stock UISP's (status numbers, `GET /version`, a site bound to a CRM
 * service and `ucrm` only with `ucrmDetails=true`). A test links a site "by hand" by binding a service to
 * it (the service's `unmsClientSiteId`, as UISP records it) or by setting the site's `ucrm.client`.
 * Invoices: `GET /crm/api/v1.0/invoices` (`clientId`, `createdDateFrom`/`createdDateTo`, `direction`,
 * `limit`/`offset`) and `GET /invoices/{id}`, read only: the simulator makes none; a data file gives
 * `invoices` (or a test pushes records onto `sim.data.invoices`), each item naming the service it bills
 * (`serviceId`). Deleting a client deletes its invoices. The sample data has none.
 * `PUT /nms/api/v2.1/sites/{id}` (the Swagger's SiteUpdate: `identification` and `description` required)
 * applies the site's name and note.
 * Outages (./outages.ts): `takeDown(deviceId, at?)` and `bringBack(deviceId, at?)` record a device's
 * outage (and its status), which `GET /nms/api/v2.1/outages` lists with the Swagger's parameters (stock
 * world; the interface world answers 404, its document listing no outages, unless `honourFilters` gives
 * it `outages`). A data file may give `outages` too.
 * Official list filters (`GET /sites?ip=`, `GET /devices/mac/{mac}`, …): the stock world honours them all,
 * the interface world the CRM's only (./world.ts `WORLD_FILTERS`); `filters`/`honourFilters` override.
 * Indexes (./indexes.ts) keep lists linear and lookups constant at 30,000 customers; `recordsVisited()`
 * counts the work. `generateDataSet` (./generate.ts) makes a realistic data set of any size.
 *
 * ```ts
 * const sim = await startSimulator({ latencyMs: 20 });
 * // ... point SubOps at sim.url with token sim.token ...
 * await sim.close();
 * ```
 *
 * ## Sample data (sample-data.json): "Demerara Wireless Inc.", currency GYD
 *
 * Sites (NMS): primary site **Georgetown NOC** `3f6b2c1e-8d4a-4e7b-9c2d-5a1e0f7b3c01` (parent null); towers
 * under it: **Diamond Tower** `7c1d9e2a-4b3f-4a6c-8e5d-2f9b0c1a7d12`, **Enmore Tower**
 * `b2e4f6a8-1c3d-4e5f-a7b9-c0d2e4f6a823`, **Parika Tower** `d4a6c8e0-2b4d-4f6a-8c0e-1a3c5e7b9d34`,
 * **Linden Tower** `e5b7d9f1-3c5e-4a7b-9d1f-2b4d6f8a0c45` (inactive, empty). Endpoint sites linked to CRM
 * clients (ucrm.client.id and description.ucrmId): **Marcus Baptiste** `1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c56`
 * (client 1001, under Diamond), **Ravi Persaud** `2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d67` (1005, under Enmore),
 * **Bartica Marine Supplies** `3c4d5e6f-7a8b-4c9d-8e1f-2a3b4c5d6e78` (1006, under Parika), **Leon Hope**
 * `4d5e6f7a-8b9c-4dae-9f10-3b4c5d6e7f89` (1007, archived client, under Diamond; its radio is still there).
 *
 * Devices, authorized list (`GET /devices`):
 * | name | IP (`ipAddress`) | MAC | model | site |
 * |---|---|---|---|---|
 * | noc-er8 | 10.20.0.1/24 | 74:83:C2:10:00:01 | ER-8-XG router | Georgetown NOC |
 * | diamond-ap1 | 10.20.1.2/24 | 78:8a:20:d1:a0:02 | R5AC-PRISM AP | Diamond Tower |
 * | enmore-ap1 | 10.20.2.2/24 | F0:9F:C2:E2:00:02 | R5AC-PTMP AP | Enmore Tower |
 * | parika-ap1 | 10.20.3.2/24 | 24:5a:4C:F3:00:02 | LTU-Rocket AP | Parika Tower |
 * | cpe-baptiste | 10.20.1.21/24 | B4:FB:E4:1A:2B:21 | LBE-5AC-Gen2 station | Marcus Baptiste (1001) |
 * | cpe-persaud | 10.20.2.44 | fc:ec:da:2c:44:01 | NBE-5AC-Gen2 station | Ravi Persaud (1005) |
 * | cpe-bartica-marine | 10.20.3.30/24 | 68:D7:9A:3E:30:0A | LTU-LR station | Bartica Marine Supplies (1006) |
 * | cpe-hope | 10.20.1.77/24 | B4:FB:E4:1A:2B:77 | LBE-5AC-Gen2 station | Leon Hope (1007): another client's site, a move needs confirmation; offline (status disconnected, lastSeen 2025-11-02) |
 * | LBE-Stock-Diamond | 10.20.1.60/24 | B4:FB:E4:1A:2B:60 | LBE-5AC-Gen2 station | Diamond Tower: a station on infrastructure, the normal case |
 *
 * Every device has its NMS `role`: router, ap (infrastructure: activation refuses them) or station.
 * Overviews carry uptime (seconds) and, for stations, signal (dBm); every device is `active` and last
 * seen when the data was loaded, except cpe-hope (see above).
 *
 * Devices, discovered list (`GET /devices/discovered`; authorized false, site null):
 * | name | IP (`ipAddress`) | MAC | model | meant for |
 * |---|---|---|---|---|
 * | LBE-Ramnarine | 10.20.1.51/24 | 78:8A:20:4C:1E:51 | LBE-5AC-Gen2 | Priya Ramnarine (1002, Quoted service) |
 * | NS-Fraser | 10.20.2.37 | fc:ec:da:11:22:9b | NS-5AC | Dwayne Fraser (1003, Obsolete service) |
 * | LiteBeam-Williams | 10.20.3.12/24 | E0:63:DA:7d:3e:a1 | LBE-5AC-23 | Shanice Williams (1004, no service) |
 * | PowerBeam 5AC | 10.20.1.88/24 | 74:83:c2:0f:ab:88 | PBE-5AC-400 | nobody yet: a brand-new customer |
 *
 * Clients (CRM) and their services (plan Standard Monthly = period 37, GYD 10,000/month):
 * | client | service | case |
 * |---|---|---|
 * | 1001 Marcus Baptiste (tag VIP) | 101 Active (1), Standard Monthly | already activated; endpoint site + cpe-baptiste; balance 0 |
 * | 1002 Priya Ramnarine | 102 Quoted (6), Standard Monthly | replace: delete, create Active |
 * | 1003 Dwayne Fraser | 103 Obsolete (7), Basic Monthly (period 21) | replace: delete, create Active; owes 6,500 (accountBalance -6500, accountOutstanding 6500) |
 * | 1004 Shanice Williams | none | create Active |
 * | 1005 Ravi Persaud | 104 Suspended (3), reason 1 Non-payment | cancel-suspend; suspend 101/105 instead; owes 20,000 (accountBalance -20000, accountOutstanding 20000) |
 * | 1006 Bartica Marine Supplies (company) | 105 Active (1), Business 25 (period 45) | company-name search; 25,000 in credit (accountBalance, accountCredit) |
 * | 1007 Leon Hope | none; archived | hidden unless isArchived=1; activating the name reports #1007 instead of a duplicate |
 * | 1008 Kevin Singh, 1009 Kevin Singh | none | same name twice: an ambiguous client |
 *
 * Account fields not listed are UISP's defaults (0). Suspension reasons 1 Non-payment, 2 Customer request, 3 Equipment issue, 4 Relocation. Plans: 7 Basic
 * Monthly (period 21, 6,500), 12 Standard Monthly (periods 37 1-month 10,000; 38 3-month 29,000; 39
 * 12-month, disabled), 15 Business 25 (period 45, 25,000). Payment methods (UUIDs): Cash, Check, Bank
 * transfer, Mobile money. Payments: 3,200 generated from `paymentHistory` (seeded) over the 730 days before
 * today, each after its client's registration date, ids from 1 in date order.
 */
export { sequentialRoundTrips } from './round-trips.js';
export { startSimulator, type FaultRule, type GateMatch, type RecordedRequest, type SimulatorGate, type RunningSimulator, type SimulatorOptions, type WebhookDelivery, type WebhookEventRecord } from './server.js';
export { SIMULATOR_WORLDS, STOCK_VERSION, WORLD_STATUSES, worldFromEnv, type SimulatorWorld, type WorldStatuses } from './world.js';
export { generateDataSet, type GenerateOptions } from './generate.js';
export { buildData, loadDataFile, loadStateFile, removeStateFile, sampleData, saveStateFile, SimulatorDataError, type SimulatorData } from './data.js';
