import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ALL_CLICK_SCENARIOS } from '../../packages/storm/src/click/index.js';
import { ALL_PAYME_SCENARIOS } from '../../packages/storm/src/payme/index.js';
import { ALL_TELEGRAM_SCENARIOS } from '../../packages/storm/src/telegram/index.js';
import { ALL_UZUM_SCENARIOS } from '../../packages/storm/src/uzum/index.js';

const doc = await readFile(new URL('../../docs/storm.md', import.meta.url), 'utf8');

/** `| Xn | name | defends | …` rows of a provider's scenario table in docs/storm.md (X: P, C, U or T). */
const rowsOf = (letter: string) =>
  doc
    .split('\n')
    .map((line) => new RegExp(`^\\| ${letter}(\\d+) \\| (.+?) \\| (repeated [A-Za-z ]+?) \\| (.+) \\|$`).exec(line))
    .filter((match) => match !== null)
    .map((match) => ({
      id: Number(match[1]),
      name: match[2],
      defends: match[3],
      cells: match[4]?.split(' | ') ?? [],
    }));

const PROVIDERS = [
  { provider: 'Payme', letter: 'P', scenarios: ALL_PAYME_SCENARIOS, count: 11 },
  { provider: 'Click', letter: 'C', scenarios: ALL_CLICK_SCENARIOS, count: 10 },
  { provider: 'Uzum', letter: 'U', scenarios: ALL_UZUM_SCENARIOS, count: 10 },
  { provider: 'Telegram', letter: 'T', scenarios: ALL_TELEGRAM_SCENARIOS, count: 8 },
] as const;

describe.each(PROVIDERS)('the $provider storm scenarios', ({ letter, scenarios, count }) => {
  it('are numbered from 1 and each documented in docs/storm.md with its name, level, action and criterion', () => {
    const rows = rowsOf(letter);
    expect(scenarios.map((s) => s.id)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(rows.map(({ id, name, defends }) => ({ id, name, defends }))).toEqual(
      scenarios.map(({ id, name, defends }) => ({ id, name, defends })),
    );
    for (const row of rows) expect(row.cells, `row ${letter}${row.id}`).toHaveLength(2);
    for (const scenario of scenarios) expect(scenario.criterion.length).toBeGreaterThan(40);
  });
});
