import { readFile } from 'node:fs/promises';
import pg from 'pg';
import type { ShopConfig } from './config.js';

/**
 * Creates the shop's tables if missing: runs prisma/migrations/…/migration.sql (what `prisma migrate deploy` does at
 * deploy in a real app; here at start, so `npm start` on a fresh database works). payonce's own tables are made by
 * `store.migrate()` in src/payonce.ts.
 */
export async function createShopTables(config: ShopConfig): Promise<void> {
  const file = new URL('../prisma/migrations/20261207000000_shop/migration.sql', import.meta.url);
  const client = new pg.Client({ connectionString: config.databaseUrl, options: `-c search_path=${config.schema}` });
  await client.connect();
  try {
    await client.query(await readFile(file, 'utf8'));
  } finally {
    await client.end();
  }
}
