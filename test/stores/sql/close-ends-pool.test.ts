import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsChildArgs } from '../../support/ts-child.js';
import { SQL_DIALECTS, type SqlNamespace, sqlNamespaces } from './sql-namespaces.js';

const CHILD = fileURLToPath(new URL('./support/close-child.ts', import.meta.url));
/** Well below pg's 10 s idle timeout, which would end a forgotten pool's connections (and the process) by itself. */
const EXIT_WITHIN_MS = 6_000;

/** Runs the child; resolves with its stdout, or rejects when it has not exited within `EXIT_WITHIN_MS`. */
function runChild(dialect: string, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, tsChildArgs(CHILD, [dialect, url, randomUUID()]), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the process did not exit within ${EXIT_WITHIN_MS} ms of closing the store (out: ${out})`));
    }, EXIT_WITHIN_MS + 4_000); // + start-up of node and tsx
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`child exited ${code}: ${err.slice(-500)}`));
    });
  });
}

// The stores opened by `connect()` run their own statements on the pool directly, so their Kysely instance may never
// have acquired a connection; Kysely's destroy() then leaves the pool open, and a script that closed its store
// would hang until the driver's idle timeout (pg: 10 s; mysql2: never). close() must end the pool either way.
describe.each(SQL_DIALECTS.filter((dialect) => dialect !== 'sqlite'))(
  'close() of a connect()ed %s store',
  (dialect) => {
    let ns: SqlNamespace;
    beforeAll(async () => {
      ns = await sqlNamespaces[dialect]();
      const store = await ns.open();
      await store.migrate();
    });
    afterAll(async () => {
      await ns?.drop();
    });

    it('ends the pool even when only direct statements used it, so the process exits by itself', async () => {
      const started = Date.now();
      const out = await runChild(dialect, ns.url);
      expect(JSON.parse(out.trim())).toEqual({ inserted: true, completed: true });
      expect(Date.now() - started).toBeLessThan(EXIT_WITHIN_MS + 4_000);
    }, 20_000);

    it('can be closed twice, and after a statement through Kysely (migrate), without a double-end error', async () => {
      const store = await ns.open();
      await store.migrate();
      await store.close();
      await store.close();
    });
  },
);
