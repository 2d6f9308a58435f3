import { InvalidOption } from 'payonce/internal/core/errors.js';

/** `value` when it is an http(s) URL. @throws {InvalidOption} (`option`) otherwise. */
export function checkedUrl(value: unknown, option: string): string {
  let url: URL | null = null;
  try {
    url = new URL(String(value));
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidOption(option, 'must be an http(s) URL');
  }
  return String(value);
}

/** `value` when it is a non-empty string. @throws {InvalidOption} (`option`) otherwise. */
export function checkedSecret(value: unknown, option: string): string {
  if (typeof value !== 'string' || value === '') throw new InvalidOption(option, 'must be a non-empty string');
  return value;
}

/** `value` when it is a positive safe integer. @throws {InvalidOption} (`option`) otherwise. */
export function checkedServiceId(value: unknown, option: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidOption(option, 'must be a positive integer');
  }
  return value;
}
