import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { intIn, runtimeOptions } from '../../packages/cli/src/commands/serve.js';
import { workerOptions } from '../../packages/cli/src/commands/worker.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { resolveServiceConfig } from '../../packages/service/src/service-config.js';

function capture(): CliIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
}

describe('payonce serve / worker flags', () => {
  it.each([
    [['serve', '--port', 'abc'], '--port: "abc" is not a port'],
    [['serve', '--port', '70000'], 'is not a port'],
    [['serve', '--lease-ms', '0', '--provider-url', 'http://127.0.0.1:9'], '--lease-ms: "0" is not an integer'],
    [['serve', '--fulfil-delay-ms', '1.5', '--provider-url', 'http://127.0.0.1:9'], '--fulfil-delay-ms'],
    [['serve', '--provider-url', 'ftp://x'], 'is not an http(s) URL'],
    [['serve', '--provider-url', 'http://127.0.0.1:9', '--database-url', 'redis://x'], 'unsupported scheme'],
    [['worker', '--provider-url', ''], '--provider-url (or PAYONCE_PROVIDER_URL) is required'],
    [['serve', '--log-level', 'loud', '--provider-url', 'http://127.0.0.1:9'], 'loud'],
    [
      ['serve', '--webhook-tolerance-sec', '0', '--provider-url', 'http://127.0.0.1:9'],
      '--webhook-tolerance-sec: "0" is not an integer of seconds >= 1',
    ],
    [
      ['serve', '--idempotency-stale-after-ms', 'soon', '--provider-url', 'http://127.0.0.1:9'],
      '--idempotency-stale-after-ms: "soon" is not an integer of milliseconds from 1 to',
    ],
    [
      ['serve', '--worker-poll-ms', '3000000000', '--provider-url', 'http://127.0.0.1:9'],
      '--worker-poll-ms: "3000000000" is not an integer of milliseconds from 1 to 2147483647',
    ],
    [['worker', '--webhook-tolerance-sec', '5m', '--provider-url', 'http://127.0.0.1:9'], '--webhook-tolerance-sec'],
    [
      ['serve', '--database-pool-size', '0', '--provider-url', 'http://127.0.0.1:9'],
      '--database-pool-size: "0" is not an integer 1…1000',
    ],
    [
      ['serve', '--database-pool-size', '1001', '--provider-url', 'http://127.0.0.1:9'],
      '--database-pool-size: "1001" is not an integer 1…1000',
    ],
    [
      ['serve', '--database-pool-size', '2.5', '--provider-url', 'http://127.0.0.1:9'],
      '--database-pool-size: "2.5" is not an integer 1…1000',
    ],
    [['worker', '--database-pool-size', 'ten', '--provider-url', 'http://127.0.0.1:9'], '--database-pool-size'],
    [
      ['worker', '--concurrency', '0', '--provider-url', 'http://127.0.0.1:9'],
      '--concurrency: "0" is not an integer 1…1000',
    ],
  ])('payonce %j exits 2 and says why', async (args, message) => {
    const io = capture();
    const previous = process.env.PAYONCE_PROVIDER_URL;
    delete process.env.PAYONCE_PROVIDER_URL;
    try {
      expect(await runCli(args, io)).toBe(2);
    } finally {
      if (previous !== undefined) process.env.PAYONCE_PROVIDER_URL = previous;
    }
    expect(io.lines.join('\n')).toContain(message);
  });

  it('lists serve and worker with their flags in the help', async () => {
    const io = capture();
    expect(await runCli(['serve', '--help'], io)).toBe(0);
    const help = io.lines.join('\n');
    for (const flag of [
      '--database-url',
      '--database-pool-size',
      '--redis-url',
      '--port',
      '--host',
      '--provider-url',
      '--provider-timeout-ms',
      '--no-worker',
      '--worker-poll-ms',
      '--lease-ms',
      '--reconcile-every-ms',
      '--reconcile-after-ms',
      '--fulfil-delay-ms',
      '--webhook-tolerance-sec',
      'PAYONCE_WEBHOOK_TOLERANCE_SEC',
      '--idempotency-stale-after-ms',
      '--receipt-purge-every-ms',
      '--webhook-receipt-retention-ms',
      '--otel',
      'PAYONCE_OTEL_URL',
      '--otel-trace-url',
      'PAYONCE_OTEL_TRACE_URL',
    ]) {
      expect(help).toContain(flag);
    }
    const workerIo = capture();
    expect(await runCli(['worker', '--help'], workerIo)).toBe(0);
    expect(workerIo.lines.join('\n')).not.toContain('--no-worker');
    expect(workerIo.lines.join('\n')).toContain('--concurrency');
    expect(workerIo.lines.join('\n')).toContain('--otel <url>');
  });

  it('refuses an --otel endpoint that is not http(s) with exit 2', async () => {
    const io = capture();
    expect(await runCli(['serve', '--provider-url', 'http://127.0.0.1:9', '--otel', 'grpc://127.0.0.1:4317'], io)).toBe(
      2,
    );
    expect(io.lines.join('\n')).toContain('--otel (or PAYONCE_OTEL_URL) "grpc://127.0.0.1:4317" is not an http(s) URL');
  });

  it('reads PAYONCE_WEBHOOK_TOLERANCE_SEC and refuses a bad value with exit 2', async () => {
    const io = capture();
    const previous = process.env.PAYONCE_WEBHOOK_TOLERANCE_SEC;
    process.env.PAYONCE_WEBHOOK_TOLERANCE_SEC = '-3';
    try {
      expect(await runCli(['serve', '--provider-url', 'http://127.0.0.1:9'], io)).toBe(2);
    } finally {
      if (previous === undefined) delete process.env.PAYONCE_WEBHOOK_TOLERANCE_SEC;
      else process.env.PAYONCE_WEBHOOK_TOLERANCE_SEC = previous;
    }
    expect(io.lines.join('\n')).toContain('--webhook-tolerance-sec: "-3" is not an integer of seconds >= 1');
  });

  it('passes --database-pool-size through to the service configuration (10 when not given)', () => {
    expect(intIn('--database-pool-size', 1, 1_000)(' 32 ')).toBe(32);
    const base = { databaseUrl: 'postgres://127.0.0.1/x', providerUrl: 'http://127.0.0.1:9' };
    expect(resolveServiceConfig(runtimeOptions({ ...base, databasePoolSize: 32 }, {})).databasePoolSize).toBe(32);
    expect(resolveServiceConfig(runtimeOptions(base, {})).databasePoolSize).toBe(10);
  });

  it('passes payonce worker --concurrency through to the service configuration (4 when not given)', () => {
    const base = { databaseUrl: 'payonce.sqlite', providerUrl: 'http://127.0.0.1:9' };
    expect(resolveServiceConfig(workerOptions({ ...base, concurrency: 16 }, {})).workerConcurrency).toBe(16);
    expect(resolveServiceConfig(workerOptions(base, {})).workerConcurrency).toBe(4);
  });

  it('passes the receipt purge flags through to the service configuration', () => {
    const options = runtimeOptions(
      {
        databaseUrl: 'payonce.sqlite',
        providerUrl: 'http://127.0.0.1:9',
        receiptPurgeEveryMs: 5_000,
        webhookReceiptRetentionMs: 86_400_000,
      },
      {},
    );
    const config = resolveServiceConfig(options);
    expect(config.receiptPurgeEveryMs).toBe(5_000);
    expect(config.webhookReceiptRetentionMs).toBe(86_400_000);
  });
});
