import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Small files, one concept per file: no source file of the library (packages/payonce/src) is over 400 lines unless
 * its first line is a comment saying why (`// Over 400 lines: <the reason>`).
 */
const MAX_LINES = 400;
const WHY = /^\/\/ Over 400 lines: \S/;
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../packages/payonce/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('library source files', () => {
  const files = sourceFiles(SRC);

  it('reads every source file (the test is not vacuous)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain(join(SRC, 'core/idempotency-guard.ts'));
  });

  it(`are at most ${MAX_LINES} lines, or say at their top why not`, () => {
    const unexplained = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      return lines > MAX_LINES && !WHY.test(text) ? [`${relative(SRC, file)}: ${lines} lines`] : [];
    });
    expect(unexplained).toEqual([]);
  });
});
