import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type ProblemCode, problemType, STATUS_BY_CODE } from '../../src/http/problem-status.js';

const doc = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** `| \`CODE\` | status | type | …` rows of docs/errors.md, by code. */
const rows = new Map(
  doc
    .split('\n')
    .map((line) => /^\| `([A-Z_]+)` \| (\d{3}) \| (\S+) \|/.exec(line))
    .filter((match) => match !== null)
    .map((match) => [match[1], { status: Number(match[2]), type: match[3] }] as const),
);

describe('docs/errors.md', () => {
  it.each(Object.entries(STATUS_BY_CODE) as [ProblemCode, number][])(
    '%s is documented with status %i and its type URI',
    (code, status) => {
      expect(rows.get(code)).toEqual({ status, type: problemType(code) });
    },
  );

  it('documents no code that STATUS_BY_CODE does not know', () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(STATUS_BY_CODE).sort());
  });
});
