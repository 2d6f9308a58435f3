import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the clone: test/webhooks/ is two levels down. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The shared provider fixtures, laid beside the clone (CI does the same). */
export const fixturesRoot = path.resolve(repoRoot, '..', 'shared', 'fixtures', 'providers');

/** Parsed JSON of a fixture file, path relative to {@link fixturesRoot}. */
export function readFixture(relative: string): unknown {
  return JSON.parse(readFileSync(path.join(fixturesRoot, relative), 'utf8'));
}

/** Relative paths of the `*.json` files directly inside `<provider>/<sub>` for every provider directory. */
export function fixtureFiles(sub: string): string[] {
  const out: string[] = [];
  for (const provider of readdirSync(fixturesRoot).sort()) {
    const dir = path.join(fixturesRoot, provider, sub);
    if (!statSync(path.join(fixturesRoot, provider)).isDirectory()) continue;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names.sort()) if (name.endsWith('.json')) out.push(`${provider}/${sub}/${name}`);
  }
  return out;
}

/** A signature/auth vector in the README's common schema. */
export interface Vector {
  description: string;
  secret: string;
  headers: Record<string, string>;
  raw_body: string;
  timestamp_now: number | null;
  tolerance_seconds?: number;
  expected: 'valid' | 'invalid';
  reason: string;
}

/** True when `value` has the common vector schema (fields `secret`, `headers`, `raw_body`, `expected`). */
export function isVector(value: unknown): value is Vector {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.secret === 'string' &&
    typeof v.headers === 'object' &&
    typeof v.raw_body === 'string' &&
    (v.expected === 'valid' || v.expected === 'invalid')
  );
}

/** The exact bytes a provider sent for a fixture's `raw_body` (UTF-8, as the README says). */
export function bodyBytes(rawBody: string): Uint8Array {
  return Buffer.from(rawBody, 'utf8');
}
