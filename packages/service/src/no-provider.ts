import type { PaymentProvider } from 'payonce/internal/payments/payment-provider.js';

/**
 * A Stripe-shaped provider for a process started without one (`payonce console` or `payonce serve` without
 * `--provider-url`): every call rejects with `refusal()`. Nothing that opens a payment reaches it (the service
 * refuses checkout before any attempt is written); reconciliation finds no attempt of it to ask about.
 */
export function noProvider(refusal: () => Error): PaymentProvider {
  return Object.freeze({
    name: 'stripe',
    createPayment: () => Promise.reject(refusal()),
    getPaymentByReference: () => Promise.reject(refusal()),
    cancel: () => Promise.reject(refusal()),
  });
}
