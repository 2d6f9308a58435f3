import { expect, it } from 'vitest';
import { cutToCodePoints } from '../../../packages/payonce/src/core/code-points.js';

/** Journal and error columns are counted in characters: a cut text must fit them and stay well-formed. */
it('cuts to code points, never inside a surrogate pair, the marker counted within the limit', () => {
  expect(cutToCodePoints('abc', 3)).toBe('abc');
  expect(cutToCodePoints('abcdef', 4)).toBe('abcd');
  expect(cutToCodePoints('abcdef', 4, '…')).toBe('abc…');
  // Five emoji are ten UTF-16 units and five code points: they fit five characters as they are.
  expect(cutToCodePoints('😀😀😀😀😀', 5)).toBe('😀😀😀😀😀');
  const cut = cutToCodePoints('😀😀😀😀😀', 3, '…');
  expect(cut).toBe('😀😀…');
  expect(cut.isWellFormed()).toBe(true);
});
