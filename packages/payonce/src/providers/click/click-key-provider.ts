/**
 * Where the Click engine gets the SECRET_KEY(s) a `sign_string` may be made with, asked on EVERY call (so a key
 * rotated in your configuration store is used by every replica at once). Several keys: during a rotation.
 * @see https://docs.click.uz/en/click-api-request/ ("SECRET_KEY – a unique string issued to a supplier when connecting").
 */
export interface ClickKeyProvider {
  /** The secret keys accepted now, at least one, none empty. */
  secretKeys(): Promise<readonly string[]>;
}
