import { describe, expect, it } from 'vitest';
import type { JunitCase } from '../../../packages/storm/src/storm-junit.js';
import { stormJunitXml } from '../../../packages/storm/src/storm-junit.js';
import { elementsNamed, parseXml } from '../../storm/junit-xml.js';

/** Characters outside XML 1.0's `Char` production (https://www.w3.org/TR/xml/#charsets), code point by code point. */
function forbidden(text: string): string[] {
  return [...text].filter((ch) => {
    const cp = ch.codePointAt(0) ?? 0;
    const allowed =
      cp === 0x9 ||
      cp === 0xa ||
      cp === 0xd ||
      (cp >= 0x20 && cp <= 0xd7ff) ||
      (cp >= 0xe000 && cp <= 0xfffd) ||
      (cp >= 0x10000 && cp <= 0x10ffff);
    return !allowed;
  });
}

const failed = (reason: string): JunitCase => ({
  id: 8,
  name: 'same webhook twice',
  criterion: 'both deliveries are acknowledged',
  verdict: 'fail',
  reasons: [reason],
  notes: [],
  durationMs: 5,
});

// Found by an attacker: an app's answer quoted in a reason with U+FFFE or U+FFFF made the JUnit file invalid XML
// (only C0 control characters were dropped).
describe('stormJunitXml', () => {
  it('drops every character XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF, lone surrogates) and keeps the rest', () => {
    const reason = 'answered 500: a\u0000b\u0007c\u001bd\uFFFEe\uFFFFf\uD800g\uDFFFh, tab\tok, 😀 ok, é ok';
    const text = stormJunitXml({
      target: 't',
      provider: 'p',
      seed: 1,
      startedAtMs: 0,
      durationMs: 5,
      results: [failed(reason)],
    });
    expect(forbidden(text)).toEqual([]);
    const failure = elementsNamed(parseXml(text), 'failure')[0];
    expect(failure?.attrs.message).toBe('answered 500: abcdefgh, tab\tok, 😀 ok, é ok');
  });
});
