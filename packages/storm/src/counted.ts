/** `1 capture`, `2 captures`, `1 copy`, `3 copies`: a count and its noun in the right number. */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
