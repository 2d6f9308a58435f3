import { checkedSecret, checkedServiceId, checkedUrl } from '../acceptance/checked-options.js';
import type { UzumTarget } from './uzum-wire.js';

/** Checks the URL and credentials every Uzum sandbox entry takes. @throws {InvalidOption} */
export function checkUzumTarget(target: UzumTarget): void {
  checkedUrl(target?.merchantUrl, 'merchantUrl');
  checkedSecret(target.login, 'login');
  checkedSecret(target.password, 'password');
  checkedServiceId(target.serviceId, 'serviceId');
}
