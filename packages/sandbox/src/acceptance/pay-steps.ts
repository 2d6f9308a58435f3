/**
 * A point inside one sandbox payment where the caller may hold it: the storm's double-pay scenarios line two payers
 * up so both first steps (Click's Prepare, Payme's CreateTransaction, Uzum's /create) are answered before either
 * payment is completed, as two browser tabs paying at once would, whatever the host's timing.
 */
export interface PaySteps {
  /**
   * Awaited once the payment's first step was accepted (Click Prepare answered 0, Payme CreateTransaction answered
   * state 1, Uzum /create answered `CREATED`), before its completing call is sent. Not called for a payment that was
   * refused or left unclear before that point.
   */
  readonly afterFirstStep?: () => Promise<void>;
}
