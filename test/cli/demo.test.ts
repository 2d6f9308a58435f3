import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFullDemoPassed } from './support/demo-assertions.js';
import { runPayonce } from './support/run-payonce.js';

// Spawns the built CLI (`npm run build` first; `npm test` does). The service child is dist's `payonce serve`.
describe('payonce demo (npm start) on SQLite', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payonce-demo-test-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the whole storm against a supervised service child on a fresh SQLite file and exits 0', async () => {
    const reportPath = join(dir, 'report.json');
    // A loaded CI host can take several times the quiet run; the bound only keeps a hang from holding the suite.
    const run = await runPayonce(['demo', '--report', reportPath], { DATABASE_URL: undefined }, 220_000);
    const report = await expectFullDemoPassed(run, reportPath);
    expect(report.demo.database).toMatch(/^sqlite .*payonce-demo\.sqlite$/);
    const temporary = report.demo.database.slice('sqlite '.length);
    await expect(access(temporary), 'the temporary SQLite file is removed afterwards').rejects.toThrow();
  }, 240_000);
});
