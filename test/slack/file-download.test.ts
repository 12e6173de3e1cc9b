/** Downloading a file the agent picked (src/slack/file-download.ts): bounded, with a deadline, the token only for Slack. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';
import { downloadSlackFile } from '../../src/slack/file-download.js';

const TOKEN = 'xoxb-test-bot-token';
const LIMITS = { token: TOKEN, maxBytes: 1024, timeoutMs: 2000 };

let fake: FakeSlack | undefined;
let server: Server | undefined;
afterEach(async () => {
  await fake?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  fake = server = undefined;
});

/** A server on the Web API's origin that answers every request with `answer` (and records the Authorization it got). */
async function serving(answer: (res: import('node:http').ServerResponse) => void): Promise<{ origin: string; authorizations: (string | undefined)[] }> {
  const authorizations: (string | undefined)[] = [];
  server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    answer(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, authorizations };
}

describe('downloadSlackFile', () => {
  it('reads the file with the bot token from Slack', async () => {
    fake = await startFakeSlack();
    const file = fake.addFile({ filename: 'installs.csv', content: 'device,first_name,last_name\n' });
    expect(await downloadSlackFile(file, { ...LIMITS, apiUrl: fake.apiUrl })).toEqual({ ok: true, text: 'device,first_name,last_name\n' });
  });

  it('a body without a declared length is abandoned as soon as it passes the limit', async () => {
    const { origin } = await serving((res) => {
      res.writeHead(200, { 'content-type': 'text/csv' });
      // Chunked, and never ended: only the limit stops the read.
      res.write('x'.repeat(800));
      res.write('x'.repeat(800));
    });
    const read = await downloadSlackFile({ name: 'big.csv', url_private: `${origin}/files-pri/F1/big.csv` }, { ...LIMITS, apiUrl: `${origin}/api/` });
    expect(read).toEqual({ ok: false, problem: 'it is over 1 KB, the most a sheet file may be' });
  });

  it('a declared length over the limit is refused before the body is read', async () => {
    const { origin } = await serving((res) => {
      res.writeHead(200, { 'content-type': 'text/csv', 'content-length': String(4096) });
      res.write('x');
    });
    const read = await downloadSlackFile({ name: 'big.csv', url_private: `${origin}/f.csv` }, { ...LIMITS, apiUrl: `${origin}/api/` });
    expect(read).toEqual({ ok: false, problem: 'it is 4 KB; a sheet file may be at most 1 KB' });
  });

  it('a file that never arrives ends at the deadline', async () => {
    const { origin } = await serving(() => undefined);
    const read = await downloadSlackFile({ name: 'slow.csv', url_private: `${origin}/files-pri/F1/slow.csv` }, { ...LIMITS, timeoutMs: 200, apiUrl: `${origin}/api/` });
    expect(read).toEqual({ ok: false, problem: 'Slack did not send it within 0.2 s' });
  });

  it('the token is never sent to an address off Slack', async () => {
    const { origin, authorizations } = await serving((res) => res.end('secret'));
    const read = await downloadSlackFile({ name: 'x.csv', url_private: `${origin}/x.csv` }, { ...LIMITS, apiUrl: 'https://slack.com/api/' });
    expect(read).toEqual({ ok: false, problem: 'its address is not on https://files.slack.com, so SubOps did not send its token there' });
    expect(authorizations).toEqual([]);
  });

  it("Slack's sign-in page (a token without files:read) is named, not read as the file", async () => {
    fake = await startFakeSlack();
    const file = fake.addFile({ filename: 'installs.csv', content: 'device\n' });
    const read = await downloadSlackFile(file, { ...LIMITS, token: 'not-a-token', apiUrl: fake.apiUrl });
    expect(read).toEqual({ ok: false, problem: 'Slack sent its sign-in page instead of the file: the app needs the files:read scope (reinstall it from manifest.yml)' });
  });

  it('a file that is not UTF-8 says how to save it', async () => {
    const { origin } = await serving((res) => res.end(Buffer.from([0x64, 0xe9, 0x0a])));
    const read = await downloadSlackFile({ name: 'latin1.csv', url_private: `${origin}/f.csv` }, { ...LIMITS, apiUrl: `${origin}/api/` });
    expect(read).toEqual({ ok: false, problem: 'it is not UTF-8 text: save it as "CSV UTF-8" and upload it again' });
  });
});
