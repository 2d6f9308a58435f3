import { stripeId } from './stripe-objects.js';
import { type TestCard, testCardOf, testCardOfToken } from './test-cards.js';
import type { Params } from './wire/params.js';
import { invalidParam, StripeApiError } from './wire/stripe-api-error.js';

/** A card a PaymentIntent can be confirmed with: a documented test card, or a non-test number (declined). */
export interface CardChoice {
  readonly paymentMethod: string;
  readonly card: TestCard | null;
  readonly last4: string;
}

/**
 * PaymentMethods the sandbox knows: Stripe's `pm_card_…` test methods, and `pm_…` ids it minted for
 * `payment_method_data[card][number]` or `[card][token]` (`tok_visa`…).
 * @see https://docs.stripe.com/testing#cards
 */
export class PaymentMethods {
  private readonly minted = new Map<string, CardChoice>();

  /** The card behind `id`. @throws {StripeApiError} 400 resource_missing for an unknown id. */
  byId(id: string, param = 'payment_method'): CardChoice {
    const minted = this.minted.get(id);
    if (minted !== undefined) return minted;
    const card = testCardOf(id) ?? testCardOfToken(id);
    if (card === undefined || !/^(pm|tok)_/.test(id)) {
      throw new StripeApiError(400, 'invalid_request_error', `No such PaymentMethod: '${id.slice(0, 100)}'`, {
        code: 'resource_missing',
        param,
      });
    }
    return { paymentMethod: id, card, last4: card.number.slice(-4) };
  }

  /** Mints a PaymentMethod from `payment_method_data` (`type=card`, `card[number]` or `card[token]`). */
  fromData(data: Params): CardChoice {
    const type = data.string('type', 40);
    if (type !== 'card')
      throw invalidParam('payment_method_data[type]', 'The sandbox supports payment_method_data[type]=card.');
    const card = data.object('card');
    if (card === undefined)
      throw invalidParam(
        'payment_method_data[card]',
        'Missing required param: payment_method_data[card].',
        'parameter_missing',
      );
    const token = card.string('token', 100);
    const number = card.string('number', 30);
    let choice: CardChoice;
    if (token !== undefined) {
      choice = { ...this.byId(token, 'payment_method_data[card][token]'), paymentMethod: stripeId('pm') };
    } else if (number !== undefined) {
      const digits = number.replace(/[\s-]/g, '');
      if (!/^\d{12,19}$/.test(digits)) {
        throw new StripeApiError(402, 'card_error', 'Your card number is incorrect.', {
          code: 'incorrect_number',
          param: 'payment_method_data[card][number]',
        });
      }
      choice = { paymentMethod: stripeId('pm'), card: testCardOf(digits) ?? null, last4: digits.slice(-4) };
    } else {
      throw invalidParam(
        'payment_method_data[card][number]',
        'Missing required param: payment_method_data[card][number].',
        'parameter_missing',
      );
    }
    this.minted.set(choice.paymentMethod, choice);
    return choice;
  }
}
