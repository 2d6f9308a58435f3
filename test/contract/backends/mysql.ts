import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { MysqlStore } from '../../../packages/payonce/src/stores/mysql/mysql-store.js';
import type { SqlBatching } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import type { TestBackend } from '../backend.js';

/** The test server: `PAYONCE_TEST_MYSQL_URL`, or the machine's MariaDB (root, no password). */
export const MYSQL_TEST_URL = process.env.PAYONCE_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** A fresh database `payonce_t_<random>`; `url` connects to it. */
export interface MysqlNamespace {
  readonly database: string;
  readonly url: string;
  drop(): Promise<void>;
}

async function admin(statement: string): Promise<void> {
  const connection = await mysql.createConnection({ uri: MYSQL_TEST_URL });
  try {
    await connection.query(statement);
  } finally {
    await connection.end();
  }
}

/** Creates an empty database (not migrated). */
export async function createMysqlNamespace(): Promise<MysqlNamespace> {
  const database = `payonce_t_${randomBytes(6).toString('hex')}`;
  await admin(`create database ${database}`);
  const url = new URL(MYSQL_TEST_URL);
  url.pathname = `/${database}`;
  return { database, url: url.toString(), drop: () => admin(`drop database if exists ${database}`) };
}

/** A migrated MariaDB/MySQL database; every `open()` is a store on a new pool to it (with `options.batching`). */
export async function mysqlBackend(options: { batching?: boolean | SqlBatching } = {}): Promise<TestBackend> {
  const namespace = await createMysqlNamespace();
  const setup = await MysqlStore.connect(namespace.url);
  try {
    await setup.migrate();
  } finally {
    await setup.close();
  }
  const opened: MysqlStore[] = [];
  return {
    name: 'mysql',
    async open() {
      const store = await MysqlStore.connect(namespace.url, { batching: options.batching });
      opened.push(store);
      return store;
    },
    async cleanup() {
      await Promise.all(opened.map((store) => store.close()));
      await namespace.drop();
    },
  };
}
