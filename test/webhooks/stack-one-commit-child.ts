/**
 * Child process of the stack one-commit intake test: serves the stack intake (express route) on the given PostgreSQL
 * schema and, after the handler's writes (inside the stack's open transaction, before the commit), prints
 * `written <eventId>` and hangs until the parent SIGKILLs it. argv: <pg|drizzle> <url> <schema>; prints `ready <url>`.
 */
import { PostgresStore } from '../../packages/payonce/src/stores/postgres/postgres-store.js';
import { appPool, type StackKind, stackIntake } from './support/stack-intake.js';
import { startWebhookApp } from './support/webhook-apps.js';

const [kind, url, schema] = process.argv.slice(2) as [StackKind, string, string];
const store = await PostgresStore.connect<unknown>({ connectionString: url, options: `-c search_path=${schema}` });
const { intake } = stackIntake(kind, store, appPool(url, schema), async (eventId) => {
  process.stdout.write(`written ${eventId}\n`);
  await new Promise(() => {
    setInterval(() => {}, 1_000);
  });
});
const app = await startWebhookApp('express', intake);
process.stdout.write(`ready ${app.url}\n`);
