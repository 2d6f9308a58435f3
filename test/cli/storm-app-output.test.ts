import { describe, expect, it } from 'vitest';
import { AppOutput, TAIL_BYTES, TAIL_LINES } from '../../packages/cli/src/storm-app/app-output.js';

describe('payonce storm --start: the app output an error shows', () => {
  it('keeps the last 80 lines, in order, stdout and stderr joined, an unterminated line flushed at its end', () => {
    const output = new AppOutput([]);
    for (let i = 1; i <= 100; i++) output.write(i % 2 === 0 ? 'stderr' : 'stdout', `line ${i}\r\n`);
    output.write('stderr', 'the last wo');
    output.write('stderr', 'rds');
    expect(output.tail().at(-1)).toBe('line 100');
    output.end('stderr');
    expect(output.tail()).toHaveLength(TAIL_LINES);
    expect(output.tail().slice(-2)).toEqual(['line 100', 'the last words']);
    expect(output.describe()).toMatch(/^its last 80 lines of 101:\nline 22\n/);
  });

  it('shows at most 8 KiB: fewer lines when they are long, the end of a single longer line', () => {
    const output = new AppOutput([]);
    for (let i = 0; i < 20; i++) output.write('stdout', `${String(i).padStart(2, '0')}${'x'.repeat(998)}\n`);
    const tail = output.tail();
    expect(tail.map((line) => line.slice(0, 2))).toEqual(['12', '13', '14', '15', '16', '17', '18', '19']);
    expect(tail.join('\n').length).toBeLessThanOrEqual(TAIL_BYTES);
    output.write('stdout', `${'y'.repeat(20_000)}the end\n`);
    const [only] = output.tail();
    expect(output.tail()).toHaveLength(1);
    expect(only).toMatch(/^…y+the end$/);
    expect(Buffer.byteLength(only ?? '')).toBeLessThanOrEqual(TAIL_BYTES);
  });

  it('redacts every secret the storm gave the app, as each line arrives (also when a chunk splits it)', () => {
    const output = new AppOutput(['sk_test_storm_abc123', 'whsec_secret', '']);
    output.write('stdout', 'key sk_test_st');
    output.write('stdout', 'orm_abc123 and whsec_secret twice: whsec_secret\n');
    expect(output.tail()).toEqual(['key [redacted] and [redacted] twice: [redacted]']);
    expect(new AppOutput([]).describe()).toBe('it wrote no output');
  });

  it('drops terminal colour codes (the reports are plain text)', () => {
    const output = new AppOutput([]);
    output.write(
      'stderr',
      '\u001b[31m\u001b[1mERROR\u001b[22m\u001b[39m [Nest] \u001b]8;;http://x\u0007link\u001b]8;;\u0007 done\n',
    );
    expect(output.tail()).toEqual(['ERROR [Nest] link done']);
  });
});
