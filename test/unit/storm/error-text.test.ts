import { describe, expect, it } from 'vitest';
import { errorText } from '../../../packages/storm/src/error-text.js';

// An adapter that throws a non-Error (`{ code, detail }`) made a scenario's reason read `[object Object]`.
describe('errorText', () => {
  it('says what was thrown: an Error by its message, a string as it is, anything else inspected on one line', () => {
    expect(errorText(new Error('no answer'))).toBe('no answer');
    expect(errorText('no answer')).toBe('no answer');
    expect(errorText({ code: 'E_READ', detail: { table: 'orders' } })).toBe(
      "{ code: 'E_READ', detail: { table: 'orders' } }",
    );
    expect(errorText(undefined)).toBe('undefined');
  });
});
