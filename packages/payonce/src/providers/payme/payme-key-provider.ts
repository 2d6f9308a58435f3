/**
 * Where the Payme engine gets the cashbox keys it accepts, asked on EVERY call (so a key changed by
 * `ChangePassword` on one replica is accepted by all of them), and where `ChangePassword` stores a new one.
 * @see https://developer.help.paycom.uz/metody-merchant-api/changepassword; fixtures payme/auth/*.json (Basic auth,
 *   login "Paycom", password = the key).
 */
export interface PaymeKeyProvider {
  /** The keys a call may be authorised with now (e.g. the production key and the test key). */
  keys(): Promise<readonly string[]>;
  /** Stores `newKey` in place of `currentKey` (the key the ChangePassword call was authorised with). */
  changeKey(currentKey: string, newKey: string): Promise<void>;
}
