/**
 * MariaDB's physical limit for payonce's statements on this machine: `mysqlslap` runs, per delivery, the exact claim
 * INSERT and fenced completion UPDATE that `MysqlStore` sent for one captured delivery (`capture.ts`; mysql2
 * interpolates the values into the text, so the statements are replayed as captured), two autocommit statements and
 * two commits, from 1, 8 and 64 concurrent clients. mysqlslap cannot bind a fresh key per delivery, so the claim
 * takes one from the server (`@k := uuid()` where the captured key was) and the completion reuses it (`@k`, the same
 * session). Runs in a temporary database migrated with payonce's migrations, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { MysqlStore } from 'payonce/internal/stores/mysql/mysql-store.js';
import { BENCH_URLS } from '../lib/namespaces.js';
import { CAPTURE_KEY, captureMysql } from './capture.js';
import { type LimitRow, runTool } from './run-tool.js';

const MYSQLSLAP = process.env.PAYONCE_MYSQLSLAP ?? '/usr/bin/mysqlslap';

/** The captured statements as SQL text, the key replaced by a server-made one (`@k`). */
async function statements(url: string): Promise<[string, string]> {
  const captured = await captureMysql(url);
  if (captured.length !== 2) throw new Error(`MysqlStore sent ${captured.length} receipts statements (expected 2)`);
  const keyHex = `X'${Buffer.from(CAPTURE_KEY, 'utf8').toString('hex')}'`;
  const texts = captured.map((s) => mysql.format(s.text, s.values as Parameters<typeof mysql.format>[1]));
  const [claim, complete] = texts as [string, string];
  if (!claim.includes(keyHex) || !complete.includes(keyHex)) {
    throw new Error(`the captured MariaDB statements do not carry the key as ${keyHex}: ${claim}`);
  }
  return [claim.replace(keyHex, '(@k := uuid())'), complete.replace(keyHex, '@k')];
}

/** Parses one mysqlslap run: mean seconds, clients, queries per client. */
function parseSlap(stdout: string): { seconds: number; clients: number; perClient: number } {
  const seconds = /Average number of seconds to run all queries: ([\d.]+)/.exec(stdout);
  const clients = /Number of clients running queries: (\d+)/.exec(stdout);
  const perClient = /Average number of queries per client: (\d+)/.exec(stdout);
  if (!seconds || !clients || !perClient) throw new Error(`mysqlslap printed no result: ${stdout.slice(-300)}`);
  return { seconds: Number(seconds[1]), clients: Number(clients[1]), perClient: Number(perClient[1]) };
}

/** Runs mysqlslap at each of `clients`, each client sending `deliveries` deliveries (2 statements each). */
export async function mysqlLimits(
  log: (line: string) => void,
  sizes: { clients: readonly number[]; deliveries: (clients: number) => number },
): Promise<LimitRow[]> {
  const database = `payonce_limits_${randomBytes(5).toString('hex')}`;
  const base = new URL(BENCH_URLS.mysql);
  const url = new URL(BENCH_URLS.mysql);
  url.pathname = `/${database}`;
  const admin = async (statement: string) => {
    const connection = await mysql.createConnection({ uri: base.toString() });
    try {
      await connection.query(statement);
    } finally {
      await connection.end();
    }
  };
  const count = async (where: string): Promise<number> => {
    const connection = await mysql.createConnection({ uri: url.toString() });
    try {
      const [result] = await connection.query<mysql.RowDataPacket[]>(
        `select count(*) as n from payonce_receipts where ${where}`,
      );
      return Number(result[0]!.n);
    } finally {
      await connection.end();
    }
  };
  const rows: LimitRow[] = [];
  try {
    await admin(`create database ${database}`);
    const store = await MysqlStore.connect(url.toString());
    try {
      await store.migrate();
    } finally {
      await store.close();
    }
    const [claim, complete] = await statements(url.toString());
    for (const clients of sizes.clients) {
      const args = [`--host=${base.hostname}`, `--port=${base.port || '3306'}`, `--user=${base.username || 'root'}`];
      if (base.password) args.push(`--password=${decodeURIComponent(base.password)}`);
      args.push(`--create-schema=${database}`, '--no-drop', `--concurrency=${clients}`, '--iterations=1');
      args.push(`--number-of-queries=${2 * sizes.deliveries(clients) * clients}`, '--delimiter=;');
      args.push(`--query=${claim};${complete}`);
      await admin(`truncate table ${database}.payonce_receipts`);
      const { stdout } = await runTool(MYSQLSLAP, args, { timeoutMs: 60_000 });
      const processing = await count(`status = 'processing'`);
      const completed = await count(`status = 'completed'`);
      const r = parseSlap(stdout);
      const deliveries = (r.clients * r.perClient) / 2;
      const perSec = deliveries / r.seconds;
      log(`  mysqlslap c${r.clients}: ${perSec.toFixed(0)} deliveries/s`);
      rows.push({
        what: 'MariaDB mysqlslap: payonce claim + completion, 2 autocommit statements (2 commits)',
        clients: r.clients,
        perSec,
        unit: 'deliveries',
        latencyMs: (r.seconds * 1_000) / (deliveries / r.clients),
        detail: `${(perSec * 2).toFixed(0)} commits/s; ${completed} rows completed, ${processing} left processing`,
      });
    }
  } finally {
    await admin(`drop database if exists ${database}`).catch((error: unknown) => log(`  drop ${database}: ${error}`));
  }
  return rows;
}
