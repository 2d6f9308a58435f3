import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ALL_SCENARIOS } from '../../packages/storm/src/all-scenarios.js';

const doc = await readFile(new URL('../../docs/storm.md', import.meta.url), 'utf8');

/** `| n | name | defends | …` rows of the scenario table in docs/storm.md. */
const rows = doc
  .split('\n')
  .map((line) => /^\| (\d+) \| (.+?) \| (repeated [A-Za-z ]+?) \| (.+) \|$/.exec(line))
  .filter((match) => match !== null)
  .map((match) => ({ id: Number(match[1]), name: match[2], defends: match[3], cells: match[4]?.split(' | ') ?? [] }));

describe('the scenarios of SPEC §9', () => {
  it('are numbered 1 to 22 (19–22: replicas), each with a name, a pass criterion and a SPEC §1 duplicate level', () => {
    expect(ALL_SCENARIOS.map((s) => s.id)).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
    for (const scenario of ALL_SCENARIOS) {
      expect(scenario.name.length, `scenario ${scenario.id}`).toBeGreaterThan(5);
      expect(scenario.criterion.length, `scenario ${scenario.id}`).toBeGreaterThan(40);
      expect([
        'repeated HTTP request',
        'repeated payment attempt',
        'repeated charge',
        'repeated business effect',
      ]).toContain(scenario.defends);
    }
  });

  it('are each documented in docs/storm.md with the same name and level, what they do, pass rule and failure meaning', () => {
    expect(rows.map(({ id, name, defends }) => ({ id, name, defends }))).toEqual(
      ALL_SCENARIOS.map(({ id, name, defends }) => ({ id, name, defends })),
    );
    for (const row of rows) expect(row.cells, `row ${row.id}`).toHaveLength(3);
  });
});
