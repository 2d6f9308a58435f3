import { RequestKey } from '../../core/request-key.js';
import { type DemoEvent, deliver, demoEvent, eventOf, type Tally } from './delivery.js';
import type { DemoWorld } from './demo-world.js';

/** What a scenario reports: its tally, the fulfilments per event it sent, and whether its criterion held. */
export interface ScenarioResult {
  readonly tally: Tally;
  readonly events: number;
  readonly fulfilments: number;
  readonly passed: boolean;
  /** Why it failed, or a short note of what happened. */
  readonly detail: string;
}

/** One named demo scenario with the pass criterion it checks. */
export interface DemoScenario {
  readonly name: string;
  readonly criterion: string;
  run(world: DemoWorld, tally: Tally): Promise<{ events: DemoEvent[]; extraCheck?: () => string | null }>;
}

const pick = <T>(items: readonly T[], i: number): T => items[i % items.length]!;

/** Redelivers, as a provider does, every event whose last answer was "in progress", until none is. */
async function redeliverInProgress(world: DemoWorld, event: DemoEvent, tally: Tally): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const before = tally.inProgress;
    await deliver(world, pick(world.workers, round), event, tally);
    if (tally.inProgress === before) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Fisher–Yates with a seeded LCG, so every run sends the same shuffled order. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The scenarios `payonce demo` runs, in order. */
export const DEMO_SCENARIOS: readonly DemoScenario[] = [
  {
    name: 'same notification 5x in a row',
    criterion: '1 handler run, 4 replays, 1 fulfilment',
    async run(world, tally) {
      const event = demoEvent('sequential', 1);
      for (let i = 0; i < 5; i++) await deliver(world, pick(world.workers, 0), event, tally);
      return { events: [event], extraCheck: () => (tally.replays === 4 ? null : `${tally.replays} replays`) };
    },
  },
  {
    name: 'same notification 20x in parallel, 3 workers',
    criterion: '1 handler run; the rest replay or get 409 and replay on redelivery',
    async run(world, tally) {
      const event = demoEvent('parallel', 1);
      await Promise.all(Array.from({ length: 20 }, (_, i) => deliver(world, pick(world.workers, i), event, tally)));
      if (tally.inProgress > 0) await redeliverInProgress(world, event, tally);
      return { events: [event] };
    },
  },
  {
    name: 'storm: 300 events x 4 deliveries, shuffled',
    criterion: 'handler runs == events; each event fulfilled exactly once',
    async run(world, tally) {
      const events = Array.from({ length: 300 }, (_, i) => demoEvent('storm', i, 100 + i));
      const queue = shuffled(
        events.flatMap((event) => [event, event, event, event]),
        42,
      );
      let next = 0;
      const lane = async (laneNo: number) => {
        while (next < queue.length) {
          const event = queue[next++]!;
          const before = tally.inProgress;
          await deliver(world, pick(world.workers, laneNo), event, tally);
          if (tally.inProgress > before) await redeliverInProgress(world, event, tally);
        }
      };
      await Promise.all(Array.from({ length: 12 }, (_, laneNo) => lane(laneNo)));
      return {
        events,
        extraCheck: () =>
          tally.handlerRuns === events.length ? null : `${tally.handlerRuns} runs for ${events.length}`,
      };
    },
  },
  {
    name: 'handler fails, provider redelivers',
    criterion: 'failed delivery gets 5xx, the redelivery runs again, 1 fulfilment',
    async run(world, tally) {
      const event = demoEvent('failure', 1);
      await deliver(world, pick(world.workers, 0), event, tally, { failWith: new Error('payment service timed out') });
      await deliver(world, pick(world.workers, 1), event, tally);
      await deliver(world, pick(world.workers, 2), event, tally);
      return {
        events: [event],
        extraCheck: () => (tally.failed === 1 && tally.handlerRuns === 2 ? null : 'expected 1 failure, 2 runs'),
      };
    },
  },
  {
    name: 'worker dies mid-handler, lease expires',
    criterion: '409 before the lease ends, one takeover after it, 1 fulfilment',
    async run(world, tally) {
      const event = demoEvent('takeover', 1);
      const died = new Error('worker-1 was killed');
      let kill!: () => void;
      const killed = new Promise<void>((_, reject) => {
        kill = () => reject(died);
      });
      let entered!: () => void;
      const inHandler = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const dying = deliver(world, pick(world.workers, 0), event, tally, {
        before: () => {
          entered();
          return killed;
        },
      }).catch((error: unknown) => {
        if (error !== died) throw error;
      });
      await inHandler;
      world.clock.advance(world.staleAfterMs - 1);
      await deliver(world, pick(world.workers, 1), event, tally);
      const blocked = tally.inProgress;
      world.clock.advance(1);
      await deliver(world, pick(world.workers, 2), event, tally);
      kill();
      await dying;
      const receipt = await pick(world.workers, 1).guard.find(event.key);
      return {
        events: [event],
        extraCheck: () =>
          blocked === 1 && receipt?.attempts === 2 && receipt.status === 'completed'
            ? null
            : `blocked=${blocked} attempts=${receipt?.attempts}`,
      };
    },
  },
  {
    name: 'same event id, tampered amount',
    criterion: 'the second body is refused (422) and nothing runs',
    async run(world, tally) {
      const event = demoEvent('tampered', 1, 1_500);
      const tampered = { ...event, body: event.body.replace('"amount":1500', '"amount":1') };
      await deliver(world, pick(world.workers, 0), event, tally);
      await deliver(world, pick(world.workers, 1), tampered, tally);
      return { events: [event], extraCheck: () => (tally.rejected === 1 ? null : `${tally.rejected} rejected`) };
    },
  },
  {
    name: 'paid then refunded, each 3x',
    criterion: 'a refund is not a duplicate of its payment: 2 runs, 1 fulfilment each',
    async run(world, tally) {
      const body = (state: string) => JSON.stringify({ id: 'tx_demo_1', state, amount: 500_000 });
      const paid = eventOf(RequestKey.forEvent('payme', 'tx_demo_1', 'paid'), 500_000, body('paid'));
      const refunded = eventOf(RequestKey.forEvent('payme', 'tx_demo_1', 'refunded'), -500_000, body('refunded'));
      for (const event of [paid, paid, refunded, paid, refunded, refunded]) {
        await deliver(world, pick(world.workers, 0), event, tally);
      }
      return { events: [paid, refunded] };
    },
  },
  {
    name: 'receipt and fulfilment in one transaction',
    criterion: 'a rolled-back delivery leaves neither; the redelivery commits both once',
    async run(world, tally) {
      const event = demoEvent('transaction', 1);
      const worker = pick(world.workers, 0);
      const attempt = async (crash: boolean) => {
        tally.deliveries++;
        try {
          const outcome = await worker.store.db.transaction().execute((trx) =>
            worker.guard.runInTransaction(trx, event.key, async (tx) => {
              tally.handlerRuns++;
              await tx
                .insertInto('demo_fulfilments')
                .values({ event_id: event.effectId, worker: worker.name, amount_minor: event.amountMinor })
                .execute();
              if (crash) throw new Error('crashed before commit');
              return { body: 'ok' };
            }),
          );
          if (outcome.isReplay) tally.replays++;
        } catch (error) {
          if (!crash) throw error;
          tally.failed++;
        }
      };
      await attempt(true);
      const afterRollback = await worker.guard.find(event.key);
      await attempt(false);
      await attempt(false);
      return {
        events: [event],
        extraCheck: () => (afterRollback === null && tally.replays === 1 ? null : 'rollback left a receipt'),
      };
    },
  },
];

/** Runs one scenario and judges it: every event it sent must have exactly one fulfilment. */
export async function runScenario(world: DemoWorld, scenario: DemoScenario, tally: Tally): Promise<ScenarioResult> {
  const { events, extraCheck } = await scenario.run(world, tally);
  const counts = await world.fulfilments(events.map((event) => event.effectId));
  const wrong = counts.filter((n) => n !== 1).length;
  const extra = extraCheck?.() ?? null;
  const fulfilments = counts.reduce((sum, n) => sum + n, 0);
  const passed = wrong === 0 && extra === null;
  const detail = wrong > 0 ? `${wrong} event(s) not fulfilled exactly once` : (extra ?? scenario.criterion);
  return { tally, events: events.length, fulfilments, passed, detail };
}
