import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { HTTP_PROBLEMS } from '../../packages/payonce/src/http/problem-status.js';
import { PAYMENT_PROBLEMS } from '../../packages/payonce/src/payments/payment-problems.js';
import { type ProblemCatalogue, problemType } from '../../packages/payonce/src/problem/problem-details.js';
import { WEBHOOK_PROBLEMS } from '../../packages/payonce/src/webhooks/webhook-problems.js';
import { SERVICE_PROBLEMS } from '../../packages/service/src/service-problems.js';

const doc = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** `| \`CODE\` | status | type | …` rows of docs/errors.md, by code. */
const rows = new Map(
  doc
    .split('\n')
    .map((line) => /^\| `([A-Z_]+)` \| (\d{3}) \| (\S+) \|/.exec(line))
    .filter((match) => match !== null)
    .map((match) => [match[1], { status: Number(match[2]), type: match[3] }] as const),
);

/** Every layer's problem table: each owns its codes (a core code may be answered by two layers, same status). */
const CATALOGUES: Record<string, ProblemCatalogue<string>> = {
  http: HTTP_PROBLEMS,
  webhooks: WEBHOOK_PROBLEMS,
  payments: PAYMENT_PROBLEMS,
  service: SERVICE_PROBLEMS,
};

const entries = Object.entries(CATALOGUES).flatMap(([layer, catalogue]) =>
  Object.entries(catalogue).map(([code, { status }]) => [layer, code, status] as const),
);

describe('docs/errors.md', () => {
  it.each(entries)('%s: %s is documented with status %i and its type URI', (_layer, code, status) => {
    expect(rows.get(code)).toEqual({ status, type: problemType(code) });
  });

  it('documents no code that no layer answers', () => {
    const known = new Set(entries.map(([, code]) => code));
    expect([...rows.keys()].filter((code) => code !== undefined && !known.has(code))).toEqual([]);
  });
});
