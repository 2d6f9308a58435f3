/**
 * Counts (and optionally times) every statement a process sends through `pg`, and the time callers wait for a pool
 * connection: how the webhook-intake pair shows that both sides send the same statements, and how the mixed load
 * says where PostgreSQL time goes when `pg_stat_statements` is not loaded on the server. Install it before any pool
 * is created; it patches `pg.Client.prototype.query` and `pg.Pool.prototype.connect` of this process only.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';

/** Totals per statement shape (the SQL text, whitespace collapsed, cut to 90 characters). */
export interface StatementStats {
  readonly statement: string;
  readonly calls: number;
  /** Summed ms from sending to the driver's answer (includes queueing behind the connection's earlier statement). */
  readonly totalMs: number;
}

/** What the probe saw since the last `reset`. */
export interface ProbeSnapshot {
  readonly statements: number;
  readonly byStatement: readonly StatementStats[];
  /** Pool checkouts and the summed ms callers waited for a connection (0 when one was idle). */
  readonly poolCheckouts: number;
  readonly poolWaitMs: number;
  readonly poolWaitMaxMs: number;
  /** Filled by server-child.ts: calls to the payment provider's API and their summed duration, ms. */
  readonly providerCalls?: number;
  readonly providerMs?: number;
  /** Filled by server-child.ts: CPU time (user + system) the server process used since the reset, ms. */
  readonly cpuMs?: number;
  /** The kernel's part of `cpuMs` (socket reads and writes, mostly), ms. */
  readonly cpuSystemMs?: number;
}

type Callback = (...args: unknown[]) => void;

const byText = new Map<string, { calls: number; totalMs: number }>();
let statements = 0;
let checkouts = 0;
let waitMs = 0;
let waitMaxMs = 0;
let timing = false;
let installed = false;

/** Shapes by SQL text: both sides send the same few texts again and again, so each is shaped once (cheap probe). */
const shapes = new Map<unknown, string>();

function shape(query: unknown): string {
  const text = typeof query === 'string' ? query : (query as { text?: unknown } | null)?.text;
  let shaped = shapes.get(text);
  if (shaped === undefined) {
    shaped = String(text ?? '?')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 90);
    if (shapes.size < 10_000) shapes.set(text, shaped);
  }
  return shaped;
}

function record(text: string, ms: number): void {
  const entry = byText.get(text);
  if (entry) {
    entry.calls += 1;
    entry.totalMs += ms;
  } else {
    byText.set(text, { calls: 1, totalMs: ms });
  }
}

/** Installs the probe (once per process); `times` also measures each statement's and each checkout's duration. */
export function installPgProbe(options: { times?: boolean } = {}): void {
  timing = options.times === true;
  if (installed) return;
  installed = true;
  const query = pg.Client.prototype.query as unknown as (this: pg.Client, ...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: typeof query }).query = function probedQuery(...args: unknown[]) {
    statements += 1;
    if (!timing) {
      record(shape(args[0]), 0);
      return query.apply(this, args);
    }
    const started = performance.now();
    const text = shape(args[0]);
    const done = () => record(text, performance.now() - started);
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      const callback = last as Callback;
      args[args.length - 1] = (...cbArgs: unknown[]) => {
        done();
        callback(...cbArgs);
      };
      return query.apply(this, args);
    }
    const result = query.apply(this, args);
    if (result instanceof Promise) result.then(done, done);
    return result;
  };
  const connect = pg.Pool.prototype.connect as unknown as (this: pg.Pool, ...args: unknown[]) => unknown;
  (pg.Pool.prototype as unknown as { connect: typeof connect }).connect = function probedConnect(...args: unknown[]) {
    checkouts += 1;
    if (!timing) return connect.apply(this, args);
    const started = performance.now();
    const done = () => {
      const ms = performance.now() - started;
      waitMs += ms;
      if (ms > waitMaxMs) waitMaxMs = ms;
    };
    const callback = args[0];
    if (typeof callback === 'function') {
      return connect.call(this, (...cbArgs: unknown[]) => {
        done();
        (callback as Callback)(...cbArgs);
      });
    }
    const result = connect.apply(this, args);
    if (result instanceof Promise) result.then(done, done);
    return result;
  };
}

/** Zeroes every count (e.g. after the warm-up). */
export function resetPgProbe(): void {
  byText.clear();
  statements = 0;
  checkouts = 0;
  waitMs = 0;
  waitMaxMs = 0;
}

/** What was counted since the last reset, the statement shapes by total time (or calls), largest first. */
export function pgProbeSnapshot(): ProbeSnapshot {
  const byStatement = [...byText.entries()]
    .map(([statement, { calls, totalMs }]) => ({ statement, calls, totalMs }))
    .sort((a, b) => b.totalMs - a.totalMs || b.calls - a.calls);
  return { statements, byStatement, poolCheckouts: checkouts, poolWaitMs: waitMs, poolWaitMaxMs: waitMaxMs };
}
