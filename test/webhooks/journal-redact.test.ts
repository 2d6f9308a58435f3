import { describe, expect, it } from 'vitest';
import { createRedactor, DEFAULT_REDACT_PATHS, REDACTED } from '../../packages/payonce/src/webhooks/journal/redact.js';

describe('redaction', () => {
  const redactor = createRedactor();

  it('redacts default sensitive keys at any depth, case-insensitively, inside arrays, without mutating the input', () => {
    const input = {
      customer: { Name: 'A Placeholder', EMAIL: 'a@example.com', phone: '+10000000000', id: 'cus_1' },
      items: [{ card: { number: '4111111111111111', brand: 'visa' } }, { token: 'tok_x', amount: 5 }],
      params: { account: { phone: '903595731', order_id: 'o-1' } },
    };
    const copy = structuredClone(input);
    expect(redactor.redact(input)).toEqual({
      customer: { Name: REDACTED, EMAIL: REDACTED, phone: REDACTED, id: 'cus_1' },
      items: [{ card: { number: REDACTED, brand: 'visa' } }, { token: REDACTED, amount: 5 }],
      params: { account: { phone: REDACTED, order_id: 'o-1' } },
    });
    expect(input).toEqual(copy);
  });

  it('anchors paths without "**." at the root and supports "*" for one key or index', () => {
    const custom = createRedactor({ paths: ['data.*.secret_note', 'list.*'], scrubValues: false });
    expect(custom.redact({ data: { a: { secret_note: 'x', keep: 1 } }, secret_note: 'root', list: [1, 2] })).toEqual({
      data: { a: { secret_note: REDACTED, keep: 1 } },
      secret_note: 'root',
      list: [REDACTED, REDACTED],
    });
    const extra = createRedactor({ extraPaths: ['**.passport'] });
    expect(extra.paths).toEqual([...DEFAULT_REDACT_PATHS, '**.passport']);
    expect(extra.redact({ a: { passport: 'P1', email: 'e@example.com' } })).toEqual({
      a: { passport: REDACTED, email: REDACTED },
    });
    expect(() => createRedactor({ paths: ['a.**.b'] })).toThrow(TypeError);
    expect(() => createRedactor({ paths: [''] })).toThrow(TypeError);
  });

  it('scrubs e-mail addresses and Luhn-valid card numbers in free text, and leaves other numbers alone', () => {
    expect(redactor.scrubText('mail first.last+tag@sub.example.co.uk now')).toBe(`mail ${REDACTED} now`);
    expect(redactor.scrubText('pan 4242 4242 4242 4242 and 5555-5555-5555-4444')).toBe(
      `pan ${REDACTED} and ${REDACTED}`,
    );
    expect(redactor.scrubText('order 1234567890123 (not Luhn), amount 500000')).toBe(
      'order 1234567890123 (not Luhn), amount 500000',
    );
    expect(redactor.scrubText('user@localhost and @handle')).toBe('user@localhost and @handle');
    expect(createRedactor({ scrubValues: false }).scrubText('a@example.com')).toBe('a@example.com');
  });

  it('stays linear on megabyte strings (no backtracking blow-up)', () => {
    const started = performance.now();
    const long = `${'x'.repeat(2_000_000)}@${'y'.repeat(100_000)}`;
    expect(redactor.scrubText(long)).toBe(long);
    expect(redactor.scrubText('a@'.repeat(200_000))).toBe('a@'.repeat(200_000));
    // A backtracking blow-up on these inputs takes minutes; 10 s only rules that out, whatever the host load.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('redaction keeps identifiers readable and never recurses (issue 11 items 2, 12)', () => {
  const redactor = createRedactor();

  it('redacts Luhn-valid card numbers standing alone, with or without separators', () => {
    for (const card of ['4242424242424242', '4242 4242 4242 4242', '4242-4242-4242-4242', '378282246310005']) {
      expect(redactor.scrubText(`card ${card}.`)).toBe(`card ${REDACTED}.`);
      expect(redactor.scrubText(`pan=${card}&x=1`)).toBe(`pan=${REDACTED}&x=1`);
      expect(redactor.redact({ note: card })).toEqual({ note: REDACTED });
    }
  });

  it('keeps identifiers readable around a card number: evt_[REDACTED], msg_x_[REDACTED], pi-[REDACTED]', () => {
    for (const prefix of ['evt_', 'msg_x_', 'pi-', 'ord']) {
      const id = `${prefix}4242424242424242`;
      expect(redactor.scrubText(`event ${id} failed`)).toBe(`event ${prefix}${REDACTED} failed`);
      expect(redactor.redact({ id, data: { object: { id } } })).toEqual({
        id: `${prefix}${REDACTED}`,
        data: { object: { id: `${prefix}${REDACTED}` } },
      });
    }
    for (const id of ['evt_1NG8Du2eZvKYlo2CUI3W8mBy', 'pi_3MtwBwLkdIwHu7ix28a3tqPa', 'evt_4242424242424241']) {
      expect(redactor.scrubText(`event ${id} failed`)).toBe(`event ${id} failed`);
    }
    // A longer digit run is no card number, and neither is its 16-digit tail.
    expect(redactor.scrubText('ref 42424242424242424242424')).toBe('ref 42424242424242424242424');
  });

  it('still redacts sensitive fields by path next to readable ids', () => {
    expect(
      redactor.redact({
        id: 'evt_1NG8Du2eZvKYlo2CUI3W8mBy',
        card: { number: '4242424242424242', last4: '4242' },
        email: 'a@b.co',
      }),
    ).toEqual({ id: 'evt_1NG8Du2eZvKYlo2CUI3W8mBy', card: { number: REDACTED, last4: '4242' }, email: REDACTED });
  });

  it('copies a value nested 200 000 levels deep without a stack overflow', () => {
    const depth = 200_000;
    const deep = JSON.parse(`${'['.repeat(depth)}"4242424242424242"${']'.repeat(depth)}`) as unknown;
    const copy = redactor.redact(deep);
    let node: unknown = copy;
    let levels = 0;
    while (Array.isArray(node)) {
      node = node[0];
      levels++;
    }
    expect(levels).toBe(depth);
    expect(node).toBe(REDACTED);
  });
});
