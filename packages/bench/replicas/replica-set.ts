import { randomBytes } from 'node:crypto';
import { DEMO_SERVICE_TIMINGS } from '@payonce/cli/internal/demo/demo-service-timings.js';
import { findFreePort } from '@payonce/cli/internal/demo/free-port.js';
import {
  type RoundRobinForwarder,
  startRoundRobinForwarder,
} from '@payonce/cli/internal/demo/round-robin-forwarder.js';
import { serviceLaunch } from '@payonce/cli/internal/demo/service-launch.js';
import { ServiceSupervisor } from '@payonce/cli/internal/demo/service-supervisor.js';
import { createSandbox, type Sandbox } from '@payonce/sandbox/internal/create-sandbox.js';
import { newSigningSecret } from '@payonce/sandbox/internal/webhook-signer.js';

/** When a replica was down: from its SIGKILL until its restarted process answered `/healthz` (epoch ms). */
export interface Outage {
  readonly replica: number;
  readonly fromMs: number;
  toMs: number | null;
}

/** N supervised `payonce serve` replicas on one database, the sandbox, and a webhook round-robin forwarder. */
export interface ReplicaSet {
  readonly urls: readonly string[];
  readonly sandbox: Sandbox;
  readonly outages: readonly Outage[];
  /** SIGKILLs replica `index` (its supervisor restarts it); the outage closes when the new pid is healthy. */
  kill(index: number): void;
  /** True when `atMs` falls in an outage of `replica` (with `graceMs` after the restart). */
  wasDown(replica: number, atMs: number, graceMs?: number): boolean;
  stop(): Promise<void>;
}

/**
 * Starts the sandbox (Stripe signing, compressed time), then `count` replicas one after the other (the first runs
 * the migrations) with the demo's timings (but a 20 ms simulated warehouse call), `--wait-for-in-flight-ms 3000` and
 * a short Idempotency-Key takeover (3 s), and points the sandbox's webhooks at a round-robin forwarder in front of them.
 */
export async function startReplicaSet(databaseUrl: string, count: number): Promise<ReplicaSet> {
  const sandbox = await createSandbox({
    timeScale: 0.001,
    signing: { scheme: 'stripe', secret: newSigningSecret('stripe') },
    deliveryTimeoutMs: 5_000,
  });
  const supervisors: ServiceSupervisor[] = [];
  const outages: Outage[] = [];
  let forwarder: RoundRobinForwarder | null = null;
  const stop = async () => {
    await Promise.all(supervisors.map((s) => s.stop()));
    await forwarder?.close();
    await sandbox.close();
  };
  try {
    const urls: string[] = [];
    for (let i = 0; i < count; i++) {
      const launch = serviceLaunch({
        port: await findFreePort(),
        databaseUrl,
        providerUrl: sandbox.url,
        stripeWebhookSecret: sandbox.controls.signing().secret,
        standardWebhooksSecret: newSigningSecret('standard-webhooks'),
        adminToken: randomBytes(16).toString('hex'),
        timings: DEMO_SERVICE_TIMINGS,
      });
      const index = i;
      supervisors.push(
        await ServiceSupervisor.start({
          ...launch,
          // Short takeovers, so a key or webhook receipt held by a killed replica is served again within the
          // client's retry budget and the sandbox's (time-compressed) redelivery schedule; pending payments whose
          // webhooks were all lost are re-checked with the provider after 5 s.
          args: [
            ...launch.args,
            '--idempotency-stale-after-ms',
            '3000',
            '--receipt-stale-after-ms',
            '3000',
            '--reconcile-pending-after-ms',
            '5000',
            '--fulfil-delay-ms',
            '20',
          ],
          maxFailedRestarts: 10,
          onRestart: (restart) => {
            const open = outages.find((o) => o.replica === index && o.toMs === null);
            if (open) open.toMs = restart.atMs;
          },
        }),
      );
      urls.push(launch.url);
    }
    forwarder = await startRoundRobinForwarder(urls);
    sandbox.controls.setWebhookUrl(`${forwarder.url}/webhooks/stripe`);
    return {
      urls,
      sandbox,
      outages,
      kill(index) {
        const supervisor = supervisors[index];
        if (!supervisor || outages.some((o) => o.replica === index && o.toMs === null)) return;
        outages.push({ replica: index, fromMs: Date.now(), toMs: null });
        process.kill(supervisor.pid, 'SIGKILL');
      },
      wasDown(replica, atMs, graceMs = 1_000) {
        return outages.some(
          (o) =>
            o.replica === replica && atMs >= o.fromMs - 50 && atMs <= (o.toMs ?? Number.POSITIVE_INFINITY) + graceMs,
        );
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
