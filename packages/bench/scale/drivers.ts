/**
 * The SQL drivers of the scale sides, loaded on first use, so a side process loads only its own backend's driver:
 * `pg` alone adds about 15 MB of RSS, which the MariaDB sides' peak-RSS check (< 200 MB) counted although
 * they never used it (notes/limits.md).
 */

import type { Connection } from 'mysql2/promise';
import type { Client, ClientConfig } from 'pg';

/** A new, unconnected `pg.Client`. */
export async function pgClient(config: ClientConfig): Promise<Client> {
  const { default: pg } = await import('pg');
  return new pg.Client(config);
}

/** A new connection of `mysql2/promise` to `uri`. */
export async function mysqlConnection(uri: string): Promise<Connection> {
  const { default: mysql } = await import('mysql2/promise');
  return mysql.createConnection({ uri });
}
