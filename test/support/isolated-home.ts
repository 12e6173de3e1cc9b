/**
 * Vitest set-up, run before each test file: the account's home and state folder are a new temp folder
 * of the file's own. Processes the tests start with an environment of their own (no HOME) fall back to
 * the account's home (os.homedir() reads HOME), where SubOps keeps its embedded store: without this, a
 * test run would write the developer's own store, and test files would share one.
 */
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const home = mkdtempSync(join(tmpdir(), 'subops-home-'));
process.env.HOME = home;
process.env.XDG_STATE_HOME = join(home, '.local', 'state');

afterAll(() => rm(home, { recursive: true, force: true }));
