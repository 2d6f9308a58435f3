import { basicAuthScheme } from './basic-auth-scheme.js';
import type { SyncSignatureScheme } from './signature-scheme.js';

/**
 * Payme (Paycom) Merchant API: every JSON-RPC call carries `Authorization: Basic base64("Paycom:" + key)`,
 * where `key` is the cashbox key from the merchant cabinet (the test key and the production key differ, so
 * both may be configured). A rejected call must be answered with HTTP 200 and JSON-RPC error -32504
 * ("insufficient privilege"); that envelope is the intake's job.
 * @throws {InvalidOption} no key or an empty one.
 * @see https://developer.help.paycom.uz (Merchant API, authorisation); PaycomUZ/paycom-integration-php-template
 * Paycom/Merchant.php Authorize().
 * @example const scheme = paymeAuthScheme({ keys: [process.env.PAYME_KEY!, process.env.PAYME_TEST_KEY!] });
 */
export function paymeAuthScheme(options: { keys: string | readonly string[]; name?: string }): SyncSignatureScheme {
  return basicAuthScheme({ name: options.name ?? 'payme', username: 'Paycom', passwords: options.keys });
}
