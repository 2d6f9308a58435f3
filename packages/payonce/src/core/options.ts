import { InvalidOption } from './errors.js';

// The checks of numeric options, shared by every constructor and factory of the library, with one message format:
// `invalid option <name>: must be <rule>, got <what>`, where `<what>` is the number itself, or only the kind of
// a value that is not a number (`a string`, `an object`, `null`), never its text. Each check returns the value.
// Source of the rules: docs/errors.md `INVALID_OPTION` (thrown once, at construction, before any I/O).

/** `an object`, `null`, `a number`: what a wrong argument was, for messages that never echo its value. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** What a wrong option value was: a number as written, anything else by its kind only. */
function shown(value: unknown): string {
  return typeof value === 'number' ? String(value) : kindOf(value);
}

/** Throws the typed error of one option in the one format. @throws {InvalidOption} always. */
function refuse(name: string, rule: string, value: unknown): never {
  throw new InvalidOption(name, `must be ${rule}, got ${shown(value)}`);
}

/**
 * `value` when it is a safe integer from 1 to `max` (counts, sizes, milliseconds).
 * @throws {InvalidOption} (option `name`) anything else: 0, negative, fractional, NaN, ±Infinity, unsafe, above
 *   `max`, not a number.
 */
export function positiveInt(name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= max) return value;
  return refuse(name, max === Number.MAX_SAFE_INTEGER ? 'a positive integer' : `an integer from 1 to ${max}`, value);
}

/**
 * `value` when it is a safe integer from 0 to `max` (a budget or an age where 0 means "none" or "now").
 * @throws {InvalidOption} (option `name`) negative, fractional, NaN, ±Infinity, unsafe, above `max`, not a number.
 */
export function nonNegativeInt(name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= max) return value;
  return refuse(name, max === Number.MAX_SAFE_INTEGER ? 'an integer, 0 or more' : `an integer from 0 to ${max}`, value);
}

/**
 * The longest delay a Node.js timer keeps: 2 147 483 647 ms (2^31 − 1, about 24.8 days). `setTimeout` runs a
 * longer delay after 1 ms instead (Node.js "Timers": a delay above it "will be set to 1"), so an interval or a
 * timeout above it would turn into a busy loop or an instant timeout. Every option that becomes a timer is checked
 * against it; ages and retentions (compared with timestamps, never slept on) are not.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * `value` when it is a whole number of milliseconds from 1 to {@link MAX_TIMER_MS} (an interval, a delay, a
 * timeout: anything the library sleeps on).
 * @throws {InvalidOption} (option `name`) 0, negative, fractional, NaN, ±Infinity, above the timer limit, not a number.
 */
export function timerMs(name: string, value: unknown): number {
  return positiveInt(name, value, MAX_TIMER_MS);
}

/**
 * The options object of a constructor or factory: `{}` when `undefined`, the object itself otherwise.
 * @throws {InvalidOption} (option `name`) `null`, an array, a number, a string or anything else that is not an object.
 */
export function optionsObject<T extends object>(name: string, value: T | undefined): T {
  if (value === undefined) return {} as T;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  return refuse(name, 'an object', value);
}

/**
 * `value` when it is a finite number above 0 (a rate, a fraction allowed).
 * @throws {InvalidOption} (option `name`) 0, negative, NaN, ±Infinity, not a number.
 */
export function positiveNumber(name: string, value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  return refuse(name, 'a positive number', value);
}

/**
 * `value` when it is a finite number, 0 or more (an age in ms, a fraction allowed).
 * @throws {InvalidOption} (option `name`) negative, NaN, ±Infinity, not a number.
 */
export function nonNegativeNumber(name: string, value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  return refuse(name, 'a number, 0 or more', value);
}
