import type { UzumErrorCode } from './uzum-errors.js';

/** A webhook's answer: the success body (HTTP 200), or an error code (HTTP 400, `status: "FAILED"`). */
export type UzumOutcome =
  | { readonly body: Readonly<Record<string, unknown>>; readonly errorCode?: undefined }
  | { readonly errorCode: UzumErrorCode; readonly body?: undefined };

/** Thrown inside a call's transaction when a concurrent call's row made the insert fail: the call runs again. */
export class UzumRaceLost extends Error {
  constructor() {
    super('a concurrent call wrote the same Uzum transaction or order first');
  }
}
