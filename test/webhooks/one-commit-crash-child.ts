/**
 * Child process of the one-commit acceptance test: serves the credits app on the given frameworks and, after each
 * handler's business write (inside the open transaction, before the commit), prints `written <eventId>` and hangs
 * until the parent SIGKILLs it. argv: <dialect> <target> <framework,...>; prints `ready <json urls>` once listening.
 */
import type { SqlDialectName } from '../../packages/payonce/src/stores/sql/sql-dialect.js';
import { openTarget } from '../outbox/sql-backends.js';
import { creditsIntake } from './support/credits-app.js';
import { type Framework, startWebhookApp } from './support/webhook-apps.js';

const [dialect, target, frameworks] = process.argv.slice(2);
const store = await openTarget(dialect as SqlDialectName, target ?? '');
const { intake } = creditsIntake(store, async (eventId) => {
  process.stdout.write(`written ${eventId}\n`);
  await new Promise(() => {
    setInterval(() => {}, 1_000);
  });
});
const urls: Record<string, string> = {};
for (const framework of (frameworks ?? '').split(',') as Framework[]) {
  urls[framework] = (await startWebhookApp(framework, intake)).url;
}
process.stdout.write(`ready ${JSON.stringify(urls)}\n`);
