import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedApp, packedApp } from './support/packed-app.js';

// `npm i payonce` must install the library and nothing else: the tooling, the frameworks, pino, prom-client and
// the command line's own dependencies are optional peers or belong to the @payonce/* packages. Runs the packed
// library (dist/: `npm run build` first) in an empty app.

let app: PackedApp;
beforeAll(async () => {
  app = await packedApp(['payonce']);
}, 120_000);
afterAll(() => app?.remove());

/** Runs an ES module in the app and returns what it printed. */
function node(script: string) {
  return app.exec(process.execPath, ['--input-type=module', '-e', script]);
}

describe('the packed library installed into an empty app', () => {
  it('installs no tooling, no framework, no logger or metrics client', () => {
    const installed = app.installed();
    for (const name of ['pino', 'prom-client', 'commander', 'undici', 'qs', 'fastify']) {
      expect(installed, name).not.toContain(name);
    }
    expect(installed.filter((name) => name.startsWith('@payonce/'))).toEqual([]);
    expect(installed).toContain('payonce');
  });

  it("runs a MemoryStore guard's handler once for a delivery and its redelivery", async () => {
    const run = await node(`
      import { IdempotencyGuard, RequestKey } from 'payonce';
      import { MemoryStore } from 'payonce/memory';
      const guard = new IdempotencyGuard(new MemoryStore());
      let runs = 0;
      const outcomes = [];
      for (let i = 0; i < 2; i++) {
        const { isReplay } = await guard.run(new RequestKey('stripe', 'evt_1'), async () => {
          runs++;
          return { status: 200, headers: {}, body: 'ok' };
        });
        outcomes.push(isReplay);
      }
      console.log(JSON.stringify({ runs, outcomes }));`);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ runs: 1, outcomes: [false, true] });
  });

  it('imports payonce/relay without prom-client', async () => {
    const run = await node(`const relay = await import('payonce/relay'); console.log(typeof relay.OutboxRelay);`);
    expect(run).toMatchObject({ code: 0, stdout: 'function\n' });
  });

  it('answers importing payonce/observe without pino with MissingPeer naming pino', async () => {
    const run = await node(`
      try { await import('payonce/observe'); console.log('{}'); }
      catch (error) { console.log(JSON.stringify({ name: error.name, code: error.code, packageName: error.packageName, message: error.message })); }`);
    expect(JSON.parse(run.stdout)).toEqual({
      name: 'MissingPeer',
      code: 'MISSING_PEER_DEPENDENCY',
      packageName: 'pino',
      message: 'payonce/observe needs the package "pino": npm install pino@10',
    });
  });

  it('runs payonce migrate itself: `payonce migrate --help` prints the usage', async () => {
    const run = await app.exec('npx', ['--no', 'payonce', 'migrate', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('usage: payonce migrate [--database-url URL]');
  });

  it('answers the tooling commands without @payonce/cli with exit 2 naming it', async () => {
    const run = await app.exec('npx', ['--no', 'payonce', 'demo']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('payonce demo needs the package "@payonce/cli"');
  });
});
