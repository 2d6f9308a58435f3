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

/** Reads a `name=count` fault count 1…100 (`fallback` when no count is given). @throws {InvalidOption} (`faults`) */
export function faultCount(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 100) {
    throw new InvalidOption('faults', `${name}=${value}: the count must be an integer 1…100`);
  }
  return Number(value);
}
