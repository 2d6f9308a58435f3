import { InvalidOption } from 'payonce/internal/core/errors.js';

/** The settings of the Click and Uzum endpoints (docs/service.md "Payme, Click and Uzum"). */
export interface LocalProviderSettings {
  /**
   * Your Click `service_id` (a positive integer); with `clickSecretKey`, `POST /click/prepare` and
   * `POST /click/complete` serve Click's SHOP API on the service's orders. @default none (no `/click/*` routes)
   */
  clickServiceId?: number | null;
  /** The SECRET_KEY of that Click service (comma-separated or listed during a rotation). @default none */
  clickSecretKey?: string | readonly string[] | null;
  /** The Basic-authorization login Uzum Bank issued; with the password and service id, `POST /uzum/*`. */
  uzumLogin?: string | null;
  /** The Basic-authorization password Uzum Bank issued (never logged). @default none */
  uzumPassword?: string | null;
  /** Your service id issued by Uzum Bank (a positive integer). @default none */
  uzumServiceId?: number | null;
}

/** Click's endpoint settings, checked. */
export interface ClickConfig {
  readonly serviceId: number;
  readonly secretKeys: readonly string[];
}

/** Uzum's endpoint settings, checked. */
export interface UzumConfig {
  readonly login: string;
  readonly password: string;
  readonly serviceId: number;
}

/** {@link LocalProviderSettings} checked: each provider's settings, or `null` when it is not enabled. */
export interface LocalProviderConfig {
  readonly click: ClickConfig | null;
  readonly uzum: UzumConfig | null;
}

function given(value: unknown): boolean {
  return value !== null && value !== undefined && value !== '';
}

function serviceIdOf(value: unknown, name: string): number {
  const n = typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0) {
    throw new InvalidOption(name, 'must be a positive integer');
  }
  return n;
}

function textOf(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidOption(name, 'must be a non-empty string');
  return value;
}

function keysOf(value: string | readonly string[] | null | undefined): readonly string[] {
  if (value === null || value === undefined) return Object.freeze([]);
  const list = typeof value === 'string' ? value.split(',') : [...value];
  return Object.freeze(list.map((s) => String(s).trim()).filter((s) => s !== ''));
}

/**
 * Checks the Click and Uzum settings: each provider is enabled only by ALL its settings (Click: service id and
 * secret key; Uzum: login, password and service id), so a half-configured provider is refused at start rather
 * than answering every call with an authentication error.
 * @throws {InvalidOption} some but not all of a provider's settings, a service id that is not a positive integer,
 *   a blank login or password.
 */
export function resolveLocalProviders(settings: LocalProviderSettings): LocalProviderConfig {
  const clickKeys = keysOf(settings.clickSecretKey);
  const clickParts = [given(settings.clickServiceId), clickKeys.length > 0];
  if (clickParts.some(Boolean) && !clickParts.every(Boolean)) {
    throw new InvalidOption('clickServiceId', 'Click needs both the service id and the secret key');
  }
  const uzumParts = [settings.uzumLogin, settings.uzumPassword, settings.uzumServiceId].map(given);
  if (uzumParts.some(Boolean) && !uzumParts.every(Boolean)) {
    throw new InvalidOption('uzumLogin', 'Uzum needs the login, the password and the service id');
  }
  const click = clickParts[0]
    ? Object.freeze({ serviceId: serviceIdOf(settings.clickServiceId, 'clickServiceId'), secretKeys: clickKeys })
    : null;
  const uzum = uzumParts[0]
    ? Object.freeze({
        login: textOf(settings.uzumLogin, 'uzumLogin'),
        password: textOf(settings.uzumPassword, 'uzumPassword'),
        serviceId: serviceIdOf(settings.uzumServiceId, 'uzumServiceId'),
      })
    : null;
  return Object.freeze({ click, uzum });
}
