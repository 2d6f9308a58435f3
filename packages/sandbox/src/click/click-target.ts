import { checkedSecret, checkedServiceId, checkedUrl } from '../acceptance/checked-options.js';
import type { ClickTarget } from './click-wire.js';

/** Checks the URLs and credentials every Click sandbox entry takes. @throws {InvalidOption} */
export function checkClickTarget(target: ClickTarget): void {
  checkedUrl(target?.prepareUrl, 'prepareUrl');
  checkedUrl(target.completeUrl, 'completeUrl');
  checkedServiceId(target.serviceId, 'serviceId');
  checkedSecret(target.secretKey, 'secretKey');
}
