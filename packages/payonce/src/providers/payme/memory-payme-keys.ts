import { InvalidOption } from '../../core/errors.js';
import type { PaymeKeyProvider } from './payme-key-provider.js';

/** `keys` checked: one non-empty string or a non-empty array of them. */
export function checkPaymeKeys(keys: unknown, option: string): readonly string[] {
  const list = typeof keys === 'string' ? [keys] : keys;
  if (!Array.isArray(list) || list.length === 0 || list.some((key) => typeof key !== 'string' || key === '')) {
    throw new InvalidOption(option, 'must be a non-empty key or a non-empty array of non-empty keys');
  }
  return Object.freeze([...(list as string[])]);
}

/**
 * A {@link PaymeKeyProvider} holding the keys in this process only: `ChangePassword` replaces the key it was
 * authorised with here, and is lost on restart and unseen by other replicas — use `storedPaymeKeys` when more than
 * one process answers Payme.
 * @throws {InvalidOption} (`keys`) no key, or an empty one.
 */
export function memoryPaymeKeys(keys: string | readonly string[]): PaymeKeyProvider {
  let current = checkPaymeKeys(keys, 'keys');
  return {
    keys: async () => current,
    async changeKey(currentKey, newKey) {
      current = Object.freeze(current.map((key) => (key === currentKey ? newKey : key)));
    },
  };
}
