/**
 * Why a target of `targets/core.ts` or `targets/stack.ts` is missed, as CPU profiles and driver counts showed it (`CAUSES`, by target id),
 * printed in a run's summary only when that target is missed. The longer explanations live in `notes/*.md`.
 */

/** Why a target is missed, by target id (notes/profiles.md has the profiles behind it). */
export const CAUSES: Readonly<Record<string, string>> = {
  'postgres-guard':
    "(notes/profiles.md) PostgreSQL and MariaDB: payonce sends exactly the two statements of the bare minimum (counted by instrumenting the drivers), each compiled once per store (`packages/payonce/src/stores/sql/compiled-statement.ts`), so what is left is in-process CPU per delivery — Kysely's executor and connection handling, the guard (key validation, SHA-256 fingerprint, stored response) — on the same two cores as the database server; the per-run spread of this ratio is as wide as the gap.",
  'mysql-guard':
    "(notes/profiles.md) PostgreSQL and MariaDB: payonce sends exactly the two statements of the bare minimum (counted by instrumenting the drivers), each compiled once per store (`packages/payonce/src/stores/sql/compiled-statement.ts`), so what is left is in-process CPU per delivery — Kysely's executor and connection handling, the guard (key validation, SHA-256 fingerprint, stored response) — on the same two cores as the database server; the per-run spread of this ratio is as wide as the gap.",
  'postgres-tx':
    '(notes/profiles.md) a delivery inside a transaction needs five round trips — BEGIN, claim INSERT, the business INSERT, completion UPDATE, COMMIT (payonce sends exactly these, counted by instrumenting pg) — and pg sends one statement at a time (no pipelining), where the bare minimum sends two autocommit statements. The claim cannot be merged into the completion: it is what makes a concurrent delivery wait on the uncommitted unique-index entry instead of running the handler too. The summary gives this run\'s commit cost C in round trips and the ceiling 2 × (1 + C) ÷ (5 + C) of any one-commit design, and the row "bare minimum in one transaction" for that design hand-written on raw pg: 1.5× needs a commit worth 11 round trips, which this machine\'s PostgreSQL (WAL on local disk, group commit under 8 callers) does not have. Pipelining would not reach it either: pg 8 has no pipeline mode (the request for one is still open in node-postgres, and its pipeline pull requests were closed), and even with one, BEGIN + claim and completion + COMMIT could share a round trip but the business write sits between them — three round trips and one commit, ceiling 2 × (1 + C) ÷ (3 + C), which needs C ≥ 5 for 1.5×.',
  'stack-pg-vs-own':
    "(notes/stack.md) both sides send the same six statements per delivery (BEGIN, claim, business INSERT, outbox INSERT, completion, COMMIT; counted at pg), so a gap is client CPU: on node-postgres the adapter adds only the joined Kysely view (about 5 µs per transaction) and payonce's statements go straight to the client; a miss here is the host's spread (compare the pair min–max and `stack/cpu-per-delivery.ts`).",
  'stack-drizzle-vs-own':
    "(notes/stack.md) both sides send the same six statements per delivery, so a gap is client CPU: Drizzle's own `db.transaction` and query builder for the business INSERT (the application's cost with or without payonce); payonce's statements are prepared on the transaction's Drizzle session as compiled (`tx._.session.prepareQuery`), no longer rebuilt into Drizzle SQL.",
  'stack-postgres-js-vs-own':
    "(notes/stack.md) client CPU (about 1.45× that of `own` in `stack/cpu-per-delivery.ts`): postgres.js's `sql.begin` and `tx.unsafe` (parse and describe per statement text) against payonce's lean node-postgres path; no payonce hot spot in the profile.",
  'stack-kysely-vs-own':
    "(notes/stack.md) same six statements per delivery (counted at pg), so the gap is client CPU (about 1.45× that of `own`): the application's Kysely transaction, and payonce's three statements through `trx.withoutPlugins().executeQuery` (Kysely's executor and connection provider, which payonce's own transactions skip) plus a dialect probe per delivery; candidate fix: the transaction's connection directly, the dialect detected once per instance.",
  'stack-knex-vs-own':
    "(notes/stack.md) same six statements per delivery (counted at pg), so the gap is client CPU (about 1.9× that of `own`): Knex's transaction (a transaction client and knex instance per call, tarn) and payonce's statements through `trx.raw` ($n rewritten to ? by the adapter, then back to $n by Knex); candidate fix: payonce's compiled text on the transaction's connection (`trx.client.acquireConnection()`), or a per-text cache of the rewrite.",
  'stack-prisma-vs-own':
    "(notes/stack.md) same six statements per delivery (counted at pg), so the gap is client CPU (about 4× that of `own`): each of payonce's three statements is a full Prisma request (`$queryRawUnsafe`/`$executeRawUnsafe`: request pipeline, query engine, adapter mapping), `@prisma/client` the top package of the profile; candidate fix: the statements on the driver adapter's transaction object Prisma holds for the interactive transaction (internal API, with a fallback).",
  'stack-drizzle-postgres-js-vs-own':
    "(notes/stack.md) client CPU (about 1.8× that of `own`): postgres.js's `sql.begin` and `unsafe` plus Drizzle's own session, transaction objects and query builder (the same Drizzle overhead as on node-postgres); no payonce hot spot in the profile.",
};
