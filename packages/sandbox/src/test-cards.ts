/** What confirming with a test card does. */
export type CardOutcome =
  | { readonly kind: 'succeed' }
  | { readonly kind: 'decline'; readonly code: string; readonly declineCode: string | null; readonly message: string }
  | { readonly kind: 'requires_action' };

/** One documented test card: its number, the `pm_card_…` PaymentMethod that stands for it, brand and outcome. */
export interface TestCard {
  readonly number: string;
  readonly paymentMethod: string;
  readonly brand: string;
  readonly outcome: CardOutcome;
}

const OK: CardOutcome = { kind: 'succeed' };
const decline = (declineCode: string, message: string, code = 'card_declined'): CardOutcome => ({
  kind: 'decline',
  code,
  declineCode: code === 'card_declined' ? declineCode : code === 'processing_error' ? null : declineCode,
  message,
});

/**
 * Stripe's documented test cards the sandbox knows, by number and by PaymentMethod id.
 * @see https://docs.stripe.com/testing#cards and #declined-payments
 */
export const TEST_CARDS: readonly TestCard[] = Object.freeze([
  { number: '4242424242424242', paymentMethod: 'pm_card_visa', brand: 'visa', outcome: OK },
  { number: '4000056655665556', paymentMethod: 'pm_card_visa_debit', brand: 'visa', outcome: OK },
  { number: '5555555555554444', paymentMethod: 'pm_card_mastercard', brand: 'mastercard', outcome: OK },
  { number: '378282246310005', paymentMethod: 'pm_card_amex', brand: 'amex', outcome: OK },
  { number: '4000000000000077', paymentMethod: 'pm_card_bypassPending', brand: 'visa', outcome: OK },
  {
    number: '4000000000000002',
    paymentMethod: 'pm_card_chargeDeclined',
    brand: 'visa',
    outcome: decline('generic_decline', 'Your card was declined.'),
  },
  {
    number: '4000000000009995',
    paymentMethod: 'pm_card_chargeDeclinedInsufficientFunds',
    brand: 'visa',
    outcome: decline('insufficient_funds', 'Your card has insufficient funds.'),
  },
  {
    number: '4000000000009987',
    paymentMethod: 'pm_card_chargeDeclinedLostCard',
    brand: 'visa',
    outcome: decline('lost_card', 'Your card was declined.'),
  },
  {
    number: '4000000000009979',
    paymentMethod: 'pm_card_chargeDeclinedStolenCard',
    brand: 'visa',
    outcome: decline('stolen_card', 'Your card was declined.'),
  },
  {
    number: '4100000000000019',
    paymentMethod: 'pm_card_radarBlock',
    brand: 'visa',
    outcome: decline('fraudulent', 'Your card was declined.'),
  },
  {
    number: '4000000000000069',
    paymentMethod: 'pm_card_chargeDeclinedExpiredCard',
    brand: 'visa',
    outcome: decline('expired_card', 'Your card has expired.', 'expired_card'),
  },
  {
    number: '4000000000000127',
    paymentMethod: 'pm_card_chargeDeclinedIncorrectCvc',
    brand: 'visa',
    outcome: decline('incorrect_cvc', "Your card's security code is incorrect.", 'incorrect_cvc'),
  },
  {
    number: '4000000000000119',
    paymentMethod: 'pm_card_chargeDeclinedProcessingError',
    brand: 'visa',
    outcome: decline(
      'processing_error',
      'An error occurred while processing your card. Try again in a little bit.',
      'processing_error',
    ),
  },
  {
    number: '4000002760003184',
    paymentMethod: 'pm_card_authenticationRequired',
    brand: 'visa',
    outcome: { kind: 'requires_action' },
  },
  {
    number: '4000002500003155',
    paymentMethod: 'pm_card_authenticationRequiredOnSetup',
    brand: 'visa',
    outcome: { kind: 'requires_action' },
  },
]);

/** The test card a PaymentMethod id (`pm_card_visa`) or a card number stands for; `undefined` when unknown. */
export function testCardOf(paymentMethodOrNumber: string): TestCard | undefined {
  const digits = paymentMethodOrNumber.replace(/[\s-]/g, '');
  return TEST_CARDS.find((card) => card.paymentMethod === paymentMethodOrNumber || card.number === digits);
}

/** `tok_visa` and the like: the token test values map to the same cards (`tok_chargeDeclined` → declined). */
export function testCardOfToken(token: string): TestCard | undefined {
  if (!token.startsWith('tok_')) return undefined;
  return testCardOf(`pm_card_${token.slice(4)}`);
}
