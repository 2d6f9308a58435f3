import { describe, expect, it } from 'vitest';
import { OutputTail } from '../../packages/cli/src/demo/output-tail.js';

describe('payonce demo: captured child output', () => {
  it('joins chunks into lines per stream and keeps an unterminated last line until end()', () => {
    const tail = new OutputTail();
    tail.write('7 out', 'payonce service list');
    tail.write('7 err', 'warn: slow\r\n');
    tail.write('7 out', 'ening on http://127.0.0.1:1\npartial');
    expect(tail.lines()).toEqual(['[7 err] warn: slow', '[7 out] payonce service listening on http://127.0.0.1:1']);
    tail.end('7 out');
    expect(tail.lines().at(-1)).toBe('[7 out] partial');
  });

  it('keeps only the last maxLines lines and cuts long lines', () => {
    const tail = new OutputTail(3, 5);
    tail.write('1 out', 'a\nb\nc\nd\n0123456789\n');
    expect(tail.lines()).toEqual(['[1 out] c', '[1 out] d', '[1 out] 01234…']);
  });
});
