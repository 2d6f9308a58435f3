import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createNamespace, type Namespace } from '../lib/namespaces.js';
import { loadTargets } from '../lib/target-files.js';
import { STACK_SIDES } from '../stack/sides/index.js';
import { ownSide } from '../stack/sides/own.js';
import { OUTBOX_TOPIC, stackSideNamed, stackSubject } from '../stack/stack-subject.js';
import { STACK_CONCURRENCY, STACK_GOAL, stackTargets } from '../targets/stack.js';

describe('stack sides registry → stack-<name>-vs-own targets', () => {
  it("makes one target per registered stack: A = that stack, B = payonce's own transaction, same workload", () => {
    const targets = stackTargets(STACK_SIDES);
    expect(targets.map((t) => t.id)).toEqual(Object.keys(STACK_SIDES).map((name) => `stack-${name}-vs-own`));
    for (const [i, name] of Object.keys(STACK_SIDES).entries()) {
      const target = targets[i]!;
      expect(target.min).toBe(STACK_GOAL);
      expect(target.a.args).toContain(`postgres/stack-${name}`);
      expect(target.b.args).toContain('postgres/stack-own');
      // Everything but the subject is the same on both sides (workload, concurrency, warm-up).
      const rest = (args: readonly string[]) => args.filter((arg) => !arg.startsWith('postgres/stack-'));
      expect(rest(target.a.args)).toEqual(rest(target.b.args));
      expect(target.a.args.join(' ')).toContain(`--concurrency ${STACK_CONCURRENCY}`);
      expect([target.a.backend, target.b.backend]).toEqual(['postgres', 'postgres']);
    }
  });

  it('refuses a name that is not kebab-case, or "own" (side B)', () => {
    expect(() => stackTargets({ own: ownSide })).toThrow(/not "own"/);
    expect(() => stackTargets({ Node_PG: ownSide })).toThrow(/kebab-case/);
  });

  it('resolves a side by name, and names the known ones for an unknown name', () => {
    expect(stackSideNamed('own')).toBe(ownSide);
    for (const [name, side] of Object.entries(STACK_SIDES)) expect(stackSideNamed(name)).toBe(side);
    expect(() => stackSideNamed('no-such-stack')).toThrow(`known: own, ${Object.keys(STACK_SIDES).join(', ')}`);
    expect(() => stackSideNamed('toString')).toThrow(/unknown stack side toString/);
  });

  it('is what targets/stack.ts gives the harness', async () => {
    const loaded = await loadTargets();
    const ids = loaded.targets.map((t) => t.id).filter((id) => id.startsWith('stack-'));
    expect(ids).toEqual(stackTargets(STACK_SIDES).map((t) => t.id));
    expect(loaded.problems.filter((p) => p.includes('stack'))).toEqual([]);
  });
});

describe('every stack side on PostgreSQL (compiled payonce)', () => {
  let ns: Namespace | null = null;
  afterAll(async () => {
    await ns?.drop();
  });

  for (const name of ['own', ...Object.keys(STACK_SIDES)]) {
    it(`${name}: one delivery = one completed receipt, one business row and one outbox row, in one commit`, async () => {
      ns ??= await createNamespace('postgres');
      await ns.reset();
      const counter = { runs: 0 };
      const deliverer = await stackSubject(name).open(ns.info, counter);
      const ids = Array.from({ length: 24 }, (_, i) => `${name}-${i}`);
      try {
        expect(await Promise.all(ids.map((id) => deliverer.deliver(id)))).toEqual(ids.map(() => 'ran'));
        // A redelivery replays: no second business row, no second outbox row.
        expect(await deliverer.deliver(ids[0]!)).toBe('replayed');
      } finally {
        await deliverer.close();
      }
      expect(counter.runs).toBe(ids.length);
      const client = new pg.Client(ns.info.postgres!);
      await client.connect();
      try {
        const count = async (sql: string) => Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
        expect(await count("select count(*) as n from payonce_receipts where status = 'completed'")).toBe(ids.length);
        expect(await count('select count(distinct event_id) as n from bench_ledger')).toBe(ids.length);
        expect(await count(`select count(*) as n from payonce_outbox where topic = '${OUTBOX_TOPIC}'`)).toBe(
          ids.length,
        );
      } finally {
        await client.end();
      }
    }, 60_000);
  }
});
