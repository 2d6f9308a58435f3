import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { createPostgresNamespace, type PostgresNamespace } from '../contract/backends/postgres.js';
import { elementsNamed, parseXml } from './junit-xml.js';

// Issue 37: examples/storm-nestjs-prisma (NestJS 12, Prisma 7 on @prisma/adapter-pg, PayonceModule, the
// Idempotency-Key interceptor, the Stripe webhook in one Prisma transaction, outbox fulfilment) passes EVERY Stripe
// scenario its adapter can express, started as a user starts it (`payonce storm --adapter … --start …`, a fresh
// PostgreSQL schema); the scenarios it cannot express are skipped, each with its reason (docs/storm-your-app.md).
// Its Prisma client is generated offline by `npm run prisma:generate` (scripts/prisma-generate.mjs), as `pretest` does.

const example = join(import.meta.dirname, '../../examples/storm-nestjs-prisma');
/** What the shop's API does not show: journal (18), jobs (12, 14), refunds (17), replicas (19–22). */
const SKIPPED = ['12', '14', '17', '18', '19', '20', '21', '22'];

describe('examples/storm-nestjs-prisma under payonce storm --adapter --start', () => {
  let dir: string;
  let ns: PostgresNamespace;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payonce-storm-nestjs-'));
    ns = await createPostgresNamespace();
  });
  afterAll(async () => {
    await ns?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('passes every Stripe scenario that applies; the others are skipped with their reasons', async () => {
    const lines: string[] = [];
    const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
    const junit = join(dir, 'nestjs.junit.xml');
    const env = `DATABASE_URL='${ns.url}' DATABASE_SCHEMA=${ns.schema}`;
    // From the example's folder, as `npm start` runs it: tsx reads its tsconfig.json (parameter decorators).
    const start = `cd ${JSON.stringify(example)} && ${env} node --import tsx src/main.ts`;
    const args = ['storm', '--adapter', join(example, 'storm.adapter.ts'), '--start', start, '--junit', junit];
    const code = await runCli(args, io);
    const text = lines.join('\n');
    expect(code, text).toBe(0);
    expect(text).toMatch(new RegExp(`^PASS: 14/22 scenarios \\(8 skipped: ${SKIPPED.join(', ')}\\)`, 'm'));
    const cases = elementsNamed(parseXml(await readFile(junit, 'utf8')), 'testcase');
    expect(cases).toHaveLength(22);
    expect(cases.filter((c) => elementsNamed(c, 'failure').length > 0)).toEqual([]);
    const skipped = cases.flatMap((c) => elementsNamed(c, 'skipped').map((s) => [c.attrs.name, s.attrs.message]));
    expect(skipped.map(([name]) => name?.split('.')[0])).toEqual(SKIPPED);
    for (const [, message] of skipped) expect(message).toMatch(/the app adapter shop \(nestjs \+ prisma\) lacks /);
    expect(text).toMatch(/app: stopped \(pid \d+\)/);
  }, 300_000);
});
