import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import {
  CLICK_ANSWERS,
  clickMerchantAuth,
  clickSignString,
  tiyinFromClickAmount,
} from '../../../packages/payonce/src/providers/click/index.js';
import { PROTOCOL, SIGNATURES } from './click-fixtures.js';

/** The signed fields of a fixture body, as the engine reads them. */
function signedFields(rawBody: string) {
  const form = new URLSearchParams(rawBody);
  const get = (name: string) => form.get(name) ?? '';
  return {
    fields: {
      click_trans_id: get('click_trans_id'),
      service_id: get('service_id'),
      merchant_trans_id: get('merchant_trans_id'),
      merchant_prepare_id: form.get('merchant_prepare_id') ?? undefined,
      amount: get('amount'),
      action: get('action'),
      sign_time: get('sign_time'),
    },
    sign: get('sign_string'),
  };
}

describe('Click SHOP API wire format (no I/O)', () => {
  it('computes the sign_string of every signature fixture marked valid, and not of those marked invalid', () => {
    for (const fixture of Object.values(SIGNATURES)) {
      const { fields, sign } = signedFields(fixture.raw_body);
      expect(clickSignString(fields, fixture.secret) === sign, fixture.description).toBe(fixture.expected === 'valid');
    }
  });

  it('signs a Complete with merchant_prepare_id after merchant_trans_id, and a Prepare without it', () => {
    const complete = signedFields(SIGNATURES.complete.raw_body).fields;
    expect(clickSignString({ ...complete, action: '0' }, SIGNATURES.complete.secret)).toBe(
      clickSignString({ ...complete, action: '0', merchant_prepare_id: undefined }, SIGNATURES.complete.secret),
    );
    expect(clickSignString(complete, SIGNATURES.complete.secret)).not.toBe(
      clickSignString({ ...complete, merchant_prepare_id: undefined }, SIGNATURES.complete.secret),
    );
  });

  it('converts sums to tiyin exactly and refuses more than 2 decimals, signs, exponents and commas', () => {
    expect(tiyinFromClickAmount('1000')).toBe(100_000);
    expect(tiyinFromClickAmount('1000.00')).toBe(100_000);
    expect(tiyinFromClickAmount('1000.5')).toBe(100_050);
    expect(tiyinFromClickAmount('0.29')).toBe(29); // 0.29 * 100 is 28.999… in floating point
    expect(tiyinFromClickAmount('1005.07')).toBe(100_507);
    expect(tiyinFromClickAmount('9999999999999.99')).toBe(999_999_999_999_999);
    expect(tiyinFromClickAmount('99999999999999')).toBeNull(); // 14 digits: past a safe integer of tiyin soon after
    for (const bad of ['1000.001', '1000.000', '-1', '1e3', '1,00', ' 1', '', '01', '.5', '5.', 'NaN']) {
      expect(tiyinFromClickAmount(bad), bad).toBeNull();
    }
  });

  it('uses Click’s error codes and notes from protocol.json', () => {
    for (const { error, note } of Object.values(CLICK_ANSWERS)) {
      expect(PROTOCOL.errors_returned_by_supplier[String(error)], String(error)).toBeDefined();
      expect(note.toLowerCase()).toBe(
        PROTOCOL.errors_returned_by_supplier[String(error)]?.split(' (')[0]?.toLowerCase(),
      );
    }
  });

  it('makes the Merchant API Auth header merchant_user_id:sha1(timestamp + secret_key):timestamp', () => {
    // Vectors computed outside node: printf '%s' '1700000000placeholder-secret' | sha1sum
    expect(
      clickMerchantAuth({ merchantUserId: 123, secretKey: 'placeholder-secret', timestampSec: 1_700_000_000 }),
    ).toBe('123:9101e9168255085a8f082fdc9a955be1fb2b579c:1700000000');
    const clock = new ManualClock(1_519_051_543_999);
    expect(clickMerchantAuth({ merchantUserId: 7, secretKey: 'AAAAAAAA', clock })).toBe(
      '7:d68137d799e1436eb45457c9bb289c072b5012e5:1519051543',
    );
    expect(() => clickMerchantAuth({ merchantUserId: 0, secretKey: 'x' })).toThrow(InvalidOption);
    expect(() => clickMerchantAuth({ merchantUserId: 1, secretKey: '' })).toThrow(InvalidOption);
    expect(() => clickMerchantAuth({ merchantUserId: 1, secretKey: 'x', timestampSec: 1.5 })).toThrow(InvalidOption);
  });
});
