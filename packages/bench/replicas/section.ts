import type { InvariantResult } from './invariants.js';

/** What replica-soak.ts measured (bench/replicas.json). */
export interface ReplicaSoakReport {
  readonly generatedAt: string;
  readonly durationS: number;
  readonly loadAverage: { readonly start: number; readonly end: number };
  readonly stepS: number;
  readonly concurrency: number;
  /** When the throughput steps were kept from an earlier run (`SOAK_KEEP_THROUGHPUT=1`), that run's time. */
  readonly throughputFrom?: string;
  readonly throughput: ReadonlyArray<{
    readonly round: number;
    readonly replicas: number;
    readonly checkoutsPerSec: number;
    readonly requestsPerSec: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly errorsOutsideOutages: number;
  }>;
  readonly soak: {
    readonly replicas: number;
    readonly durationS: number;
    readonly concurrency: number;
    readonly kills: number;
    readonly restarts: number;
    readonly restartP50Ms: number;
    readonly flows: number;
    readonly checkedOut: number;
    readonly requests: number;
    readonly checkoutsPerSec: number;
    readonly duplicateReplays: number;
    readonly errorsInOutages: number;
    readonly gaveUpInProgress: number;
    readonly deliveries: number;
    /** Time after the load stopped until no delivery and no outbox job was pending (s). */
    readonly settleS: number;
    readonly invariants: readonly InvariantResult[];
  };
}

const f1 = (n: number) => n.toFixed(1);
const f0 = (n: number) => n.toFixed(0);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]!;
};

/** The markdown of the Replicas section, markers included. */
export function renderReplicaSection(report: ReplicaSoakReport): string {
  const { soak } = report;
  const counts = [...new Set(report.throughput.map((t) => t.replicas))].sort((a, b) => a - b);
  const base = median(report.throughput.filter((t) => t.replicas === 1).map((t) => t.checkoutsPerSec));
  const rows = counts.map((n) => {
    const steps = report.throughput.filter((t) => t.replicas === n);
    const rate = median(steps.map((t) => t.checkoutsPerSec));
    return `| ${n} | ${steps.map((t) => f1(t.checkoutsPerSec)).join(' / ')} | ${f1(rate)} | ${base > 0 ? `${(rate / base).toFixed(2)}×` : 'n/a'} | ${f1(median(steps.map((t) => t.requestsPerSec)))} | ${f0(median(steps.map((t) => t.p50Ms)))} / ${f0(median(steps.map((t) => t.p99Ms)))} | ${steps.reduce((s, t) => s + t.errorsOutsideOutages, 0)} |`;
  });
  const invariants = soak.invariants.map(
    (i) =>
      `| ${i.name} | ${i.checked} | ${i.violations} | ${i.violations === 0 ? 'yes' : `**no**: ${i.examples.join('; ')}`} |`,
  );
  return [
    '## Replicas: soak with SIGKILL and throughput by replica count',
    '',
    `Run of ${report.generatedAt} by \`npx tsx replica-soak.ts\` in ${f0(report.durationS)} s${report.throughputFrom ? ` (throughput steps from the run of ${report.throughputFrom})` : ''}. **The machine was shared and loaded**: ` +
      `2 cores used at the same time by seven engineers' builds and tests (load average ${f1(report.loadAverage.start)} at start, ` +
      `${f1(report.loadAverage.end)} at end), and the database, the sandbox, the load generator and every replica ran on those same 2 cores. ` +
      'Absolute rates are therefore low and noisy; the shape is what to read.',
    '',
    `Each replica is a \`payonce serve\` process (outbox worker and reconciliation included) on ONE PostgreSQL database, with the demo's timings ` +
      `and \`--wait-for-in-flight-ms 3000\`; the sandbox's webhooks go through a round-robin forwarder. ${report.concurrency} concurrent customer flows ` +
      'spread round-robin over the replicas: `POST /orders` with an Idempotency-Key (30% sent to two replicas at once), a checkout (30% the same key on ' +
      'two replicas at once, 15% a second tab with another key), `GET /orders/:id`; 10% of the payments have their webhook delivered twice.',
    '',
    `### Throughput by replica count (${report.stepS} s per step, steps alternated 1-2-3 / 3-2-1, no kills)`,
    '',
    '| replicas | checkouts/s per round | median | vs 1 replica | requests/s | checkout p50 / p99 ms | 5xx |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'Where it stops: every replica adds a Node process competing for the same 2 cores as PostgreSQL, and every checkout is a few ' +
      'single-row transactions on one database (claim, attempt, provider call, completion, then webhook receipt, order update, outbox job, ' +
      'fulfilment). On this machine the replicas do not add cores, so more replicas mostly add context switches and connections; ' +
      "on a machine with spare cores the ceiling is the database (its commits and row locks on the shared tables), not payonce's processes.",
    '',
    `### Soak: ${soak.replicas} replicas, ${f0(soak.durationS)} s, a random replica SIGKILLed every 3–5 s`,
    '',
    `${soak.kills} kills (${soak.restarts} restarts observed, median ${f0(soak.restartP50Ms)} ms from SIGKILL to a healthy new process); ` +
      `${soak.flows} customer flows, ${soak.checkedOut} paid checkouts (${f1(soak.checkoutsPerSec)}/s), ${soak.requests} requests, ` +
      `${soak.deliveries} webhook deliveries by the sandbox; ${soak.duplicateReplays} duplicate checkouts on a second replica answered with the same ` +
      `attempt; ${soak.errorsInOutages} requests failed because their replica was being killed (no answer or 5xx during its outage, expected); ` +
      `${soak.gaveUpInProgress} answers still 409 "in progress" after the client's 12 s retry budget. After the load stopped, the backlog ` +
      `(webhook retries, fulfilment jobs) drained in ${f0(soak.settleS)} s; the invariants were checked then.`,
    '',
    '| invariant | checked | violations | held |',
    '|---|---|---|---|',
    ...invariants,
    ...(soak.invariants.some((i) => i.name === 'one order per Idempotency-Key' && i.violations > 0)
      ? [
          '',
          'Why "one order per Idempotency-Key" broke (each example shows a replica SIGKILLed milliseconds after the first order was ' +
            'written): `POST /orders` inserts the order and then completes its Idempotency-Key receipt in a second commit. A replica ' +
            'killed between the two leaves the key `processing`; once it is stale (`--idempotency-stale-after-ms`, 3 s here) the ' +
            "client's retry takes the key over and runs the route again, creating a second order. Waiting (`waitForInFlightMs`) does " +
            'not change this (takeover rules are unchanged); committing the order and the receipt in one transaction ' +
            '(`runInTransaction`) does.',
        ]
      : []),
  ].join('\n');
}
