import { randomBytes } from 'node:crypto';
import { publisherForUrl } from 'payonce/internal/relay/broker-url.js';
import type { RunningConsumer } from 'payonce/internal/relay/inbox.js';
import { type ChildLine, type StormChild, spawnStormChild, sumOf } from './child-process.js';
import { openStormBroker, type StormBroker, type StormBrokerOptions, startStormConsumer } from './storm-broker.js';
import { applyStormEffect, enqueueStormMessages, verdictOf } from './storm-effects.js';
import type { RelayScenarioId, RelayScenarioResult, RelayStormContext } from './storm-types.js';

/** What a scenario body reports back to the common frame. */
interface BodyReport {
  readonly relayLines: ChildLine[];
  readonly consumerDuplicates: number;
  readonly faults: number;
  readonly notes: string[];
}

/** The run the frame set up for a scenario body. */
interface Run {
  readonly ctx: RelayStormContext;
  readonly broker: StormBroker;
  readonly run: string;
  readonly topic: string;
  /** Resolves when every message's effect is applied and every job is marked sent (rejects on timeout). */
  done(): Promise<void>;
  /** Distinct effects applied so far. */
  applied(): Promise<number>;
  relay(killAfterRound: number | null, batchSize: number): StormChild;
  /** Starts the consumer in this process (scenarios other than (e)). */
  consumeHere(): Promise<RunningConsumer>;
}

interface Scenario {
  readonly id: RelayScenarioId;
  readonly title: string;
  readonly broker: (ctx: RelayStormContext) => StormBrokerOptions;
  readonly body: (run: Run) => Promise<BodyReport>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function deadlineMs(ctx: RelayStormContext): number {
  return 60_000 + ctx.messages * 30 + ctx.kills * (ctx.leaseMs + 2_000);
}

/** Waits until `check()` or the child exits, whichever comes first. */
async function exitOrDone(child: StormChild, check: () => Promise<boolean>): Promise<boolean> {
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  while (!exited) {
    if (await check()) return false;
    await sleep(50);
  }
  return (await child.exited).signal === 'SIGKILL';
}

/**
 * Deliveries the consumer must see before the counts are final: every message the stream stores (NATS), or
 * every publish the broker confirmed (RabbitMQ: each was routed to the queue).
 */
async function expectedDeliveries(run: Run, relayLines: readonly ChildLine[]): Promise<number> {
  return (await run.broker.storedMessages()) ?? sumOf(relayLines, 'acked', 'count');
}

/** Waits (at most 15 s) until `delivered()` reaches `expected`, then 300 ms more for stragglers. */
async function settle(delivered: () => number, expected: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (delivered() < expected && Date.now() < deadline) await sleep(50);
  await sleep(300);
}

async function withConsumer(
  run: Run,
  body: (consumer: RunningConsumer) => Promise<Omit<BodyReport, 'consumerDuplicates'>>,
) {
  const consumer = await run.consumeHere();
  try {
    const report = await body(consumer);
    await run.done();
    const delivered = () => consumer.counters.applied + consumer.counters.duplicates;
    await settle(delivered, await expectedDeliveries(run, report.relayLines));
    return { ...report, consumerDuplicates: consumer.counters.duplicates };
  } finally {
    await consumer.stop();
  }
}

const killedRelays: Scenario = {
  id: 'a',
  title: 'relay SIGKILLed after the broker ack, before marking sent',
  broker: () => ({}),
  body: (run) =>
    withConsumer(run, async () => {
      const { ctx } = run;
      const batch = Math.max(5, Math.floor(ctx.messages / (ctx.kills * 3)));
      const lines: ChildLine[] = [];
      let kills = 0;
      for (let k = 0; k < ctx.kills; k++) {
        const child = run.relay(1 + (k % 2), batch);
        const killed = await exitOrDone(child, async () => (await run.applied()) >= ctx.messages);
        await child.stop();
        lines.push(...child.lines);
        if (killed) kills++;
        else break;
      }
      const last = run.relay(null, batch);
      await run.done().finally(() => last.stop());
      lines.push(...last.lines);
      return {
        relayLines: lines,
        faults: kills,
        notes: [`${kills} relay processes killed after the ack (batch ${batch})`],
      };
    }),
};

const twoRelays: Scenario = {
  id: 'b',
  title: 'two relay processes on the same messages',
  broker: () => ({}),
  body: (run) =>
    withConsumer(run, async () => {
      // A relay leases whole aggregates: batches below the aggregate count let the two share the work.
      const batch = Math.max(2, Math.floor(run.ctx.aggregates / 4));
      const relays = [run.relay(null, batch), run.relay(null, batch)];
      await run.done().finally(() => Promise.all(relays.map((relay) => relay.stop())));
      const shares = relays.map((relay) => sumOf(relay.lines, 'acked', 'count'));
      return {
        relayLines: relays.flatMap((relay) => relay.lines),
        faults: 0,
        notes: [`jobs acknowledged per relay: ${shares.join(' + ')}`],
      };
    }),
};

const brokerRestart: Scenario = {
  id: 'c',
  title: 'broker restarts mid-run',
  broker: () => ({ restartable: true }),
  body: (run) =>
    withConsumer(run, async () => {
      const batch = Math.max(5, Math.floor(run.ctx.messages / 40));
      const relay = run.relay(null, batch);
      let restarts = 0;
      try {
        while ((await run.applied()) < run.ctx.messages / 3) await sleep(20);
        await run.broker.restart?.();
        restarts++;
        await run.done();
      } finally {
        await relay.stop();
      }
      const how =
        run.broker.kind === 'nats'
          ? 'own nats-server SIGKILLed and restarted'
          : 'every connection cut through the TCP proxy, refused for 1 s';
      return { relayLines: relay.lines, faults: restarts, notes: [`${how} after a third of the effects`] };
    }),
};

const DEDUP_WINDOW_MS = 1_000;

const pastWindow: Scenario = {
  id: 'd',
  title: 'republish after the duplicate window passed (JetStream; RabbitMQ has no broker dedup)',
  broker: () => ({ duplicateWindowMs: DEDUP_WINDOW_MS }),
  body: (run) =>
    withConsumer(run, async () => {
      const { ctx } = run;
      const first = run.relay(1, ctx.messages);
      await first.exited;
      await first.stop();
      const waitMs = Math.max(ctx.leaseMs, DEDUP_WINDOW_MS) + 500;
      await sleep(waitMs);
      const second = run.relay(null, ctx.messages);
      await run.done().finally(() => second.stop());
      return {
        relayLines: [...first.lines, ...second.lines],
        faults: 1,
        notes: [
          `relay killed after the ack; the next relay republished ${waitMs} ms later (window ${DEDUP_WINDOW_MS} ms)`,
        ],
      };
    }),
};

const killedConsumers: Scenario = {
  id: 'e',
  title: 'consumer SIGKILLed between its effect commit and its ack',
  broker: () => ({}),
  async body(run) {
    const { ctx } = run;
    const batch = Math.max(5, Math.floor(ctx.messages / 40));
    const relay = run.relay(null, batch);
    const kills = Math.max(2, Math.ceil(ctx.kills / 4));
    const step = Math.max(1, Math.floor(ctx.messages / (kills + 1)));
    const consumerLines: ChildLine[] = [];
    const config = (killAfterCommits: number | null) => ({
      databaseUrl: ctx.databaseUrl,
      consumer: run.broker.consumer,
      killAfterCommits,
    });
    let killed = 0;
    try {
      for (let k = 0; k < kills; k++) {
        const consumer = spawnStormChild('consumer-child', config(step));
        const died = await exitOrDone(consumer, async () => (await run.applied()) >= ctx.messages);
        await consumer.stop();
        consumerLines.push(...consumer.lines);
        if (died) killed++;
        else break;
      }
      const last = spawnStormChild('consumer-child', config(null));
      try {
        await run.done();
        const delivered = () => [...consumerLines, ...last.lines].filter((line) => line.event === 'delivery').length;
        await settle(delivered, await expectedDeliveries(run, relay.lines));
      } finally {
        await last.stop();
        consumerLines.push(...last.lines);
      }
    } finally {
      await relay.stop();
    }
    const duplicates = consumerLines.filter((line) => line.event === 'delivery' && line.outcome === 'duplicate').length;
    return {
      relayLines: relay.lines,
      consumerDuplicates: duplicates,
      faults: killed,
      notes: [`${killed} consumer processes killed after a commit, before its ack (every ${step} effects)`],
    };
  },
};

/** The relay storm's scenarios, in order. */
export const RELAY_SCENARIOS: readonly Scenario[] = Object.freeze([
  killedRelays,
  twoRelays,
  brokerRestart,
  pastWindow,
  killedConsumers,
]);

async function prepareBroker(broker: StormBroker, leaseMs: number): Promise<void> {
  const publisher = publisherForUrl(broker.publish);
  try {
    await publisher.prepare(leaseMs);
  } finally {
    await publisher.close();
  }
}

function runOf(ctx: RelayStormContext, broker: StormBroker): Run {
  const run = `rs${randomBytes(5).toString('hex')}`;
  const topic = `relay-storm.${run}`;
  const deadline = Date.now() + deadlineMs(ctx);
  const applied = async () => (await verdictOf(ctx.target, run, topic)).distinct;
  return {
    ctx,
    broker,
    run,
    topic,
    applied,
    async done() {
      for (;;) {
        const verdict = await verdictOf(ctx.target, run, topic);
        if (verdict.distinct >= ctx.messages && verdict.unsent === 0) return;
        if (Date.now() > deadline) {
          throw new Error(`timed out: ${verdict.distinct}/${ctx.messages} applied, ${verdict.unsent} jobs unsent`);
        }
        await sleep(50);
      }
    },
    relay(killAfterRound, batchSize) {
      return spawnStormChild('relay-child', {
        databaseUrl: ctx.databaseUrl,
        publish: broker.publish,
        topic,
        relayId: `storm-relay-${randomBytes(4).toString('hex')}`,
        leaseMs: ctx.leaseMs,
        batchSize,
        killAfterRound,
      });
    },
    consumeHere: () => startStormConsumer(broker.consumer, ctx.target, applyStormEffect),
  };
}

/** Runs one scenario end to end and judges it from the consumer's database. Never throws. */
export async function runRelayScenario(ctx: RelayStormContext, scenario: Scenario): Promise<RelayScenarioResult> {
  const started = Date.now();
  const notes: string[] = [];
  let broker: StormBroker | null = null;
  let report: BodyReport = { relayLines: [], consumerDuplicates: 0, faults: 0, notes: [] };
  let stored: number | null = null;
  let run: Run | null = null;
  try {
    broker = await openStormBroker(ctx.broker, ctx.brokerUrl, { ...scenario.broker(ctx) });
    await prepareBroker(broker, ctx.leaseMs);
    run = runOf(ctx, broker);
    await enqueueStormMessages(ctx.target, run.run, run.topic, ctx.messages, ctx.aggregates);
    report = await scenario.body(run);
    stored = await broker.storedMessages();
  } catch (error) {
    notes.push(`error: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await broker?.cleanup().catch((error: unknown) => notes.push(`cleanup: ${String(error)}`));
  }
  const verdict = run
    ? await verdictOf(ctx.target, run.run, run.topic)
    : { distinct: 0, rows: 0, outOfOrder: 0, unsent: ctx.messages };
  const lost = ctx.messages - verdict.distinct;
  const doubled = verdict.rows - verdict.distinct;
  const passed = notes.length === 0 && lost === 0 && doubled === 0 && verdict.outOfOrder === 0 && verdict.unsent === 0;
  return Object.freeze({
    id: scenario.id,
    title: scenario.title,
    messages: ctx.messages,
    applied: verdict.distinct,
    lost,
    doubled,
    outOfOrder: verdict.outOfOrder,
    unsent: verdict.unsent,
    acked: sumOf(report.relayLines, 'acked', 'count'),
    droppedByBroker: sumOf(report.relayLines, 'acked', 'duplicates'),
    absorbedByInbox: report.consumerDuplicates,
    stored,
    faults: report.faults,
    passed,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    notes: Object.freeze([...report.notes, ...notes]),
  });
}
