import type { ClickAnswer } from './click-answers.js';
import type { ClickTransaction } from './click-transaction.js';

/** An action's answer: the error (0 for success) and the transaction it concerns, when there is one. */
export interface ClickOutcome {
  readonly answer: ClickAnswer;
  readonly transaction: ClickTransaction | null;
}

/** Thrown inside a call's transaction when a concurrent call's row made the insert fail: the call runs again. */
export class ClickRaceLost extends Error {
  constructor() {
    super('a concurrent call wrote the same Click transaction or order first');
  }
}
