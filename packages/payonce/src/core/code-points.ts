/**
 * `text` cut to at most `max` Unicode code points, so a surrogate pair is never split and a database column of
 * `max` characters takes it; `marker` (e.g. `…`) ends a text that was cut and counts within `max`. A text that fits
 * is returned as it is.
 */
export function cutToCodePoints(text: string, max: number, marker = ''): string {
  // A UTF-16 length within `max` means as many code points or fewer: count exactly only when it could matter.
  if (text.length <= max) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, max - Array.from(marker).length).join('')}${marker}`;
}
