import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ALL_PAYME_SCENARIOS } from '../../packages/storm/src/payme/index.js';

const doc = await readFile(new URL('../../docs/storm.md', import.meta.url), 'utf8');

/** `| Pn | name | defends | …` rows of the Payme scenario table in docs/storm.md. */
const rows = doc
  .split('\n')
  .map((line) => /^\| P(\d+) \| (.+?) \| (repeated [A-Za-z ]+?) \| (.+) \|$/.exec(line))
  .filter((match) => match !== null)
  .map((match) => ({ id: Number(match[1]), name: match[2], defends: match[3], cells: match[4]?.split(' | ') ?? [] }));

describe('the Payme storm scenarios', () => {
  it('are numbered 1 to 11 and each documented in docs/storm.md with its name, level, action and criterion', () => {
    expect(ALL_PAYME_SCENARIOS.map((s) => s.id)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    expect(rows.map(({ id, name, defends }) => ({ id, name, defends }))).toEqual(
      ALL_PAYME_SCENARIOS.map(({ id, name, defends }) => ({ id, name, defends })),
    );
    for (const row of rows) expect(row.cells, `row P${row.id}`).toHaveLength(2);
    for (const scenario of ALL_PAYME_SCENARIOS) expect(scenario.criterion.length).toBeGreaterThan(40);
  });
});
