import type { Logger } from 'pino';
import type { GuardEventSource, IntakeEventSource } from './webhook-metrics.js';

/**
 * Logs every webhook delivery as one line (`info`, or `warn` for rejections and failures) with the journal row's
 * fields — provider, event key and type, signature result, decision, outcome, status, duration, object/payment
 * id and merchant reference, error — already redacted; the payload only at `debug`. A journal write failure is
 * logged at `error`, and so is a handler that threw (`handler-failed`: endpoint, provider, receipt key, the error's
 * name and redacted message; journal or not).
 * @returns a function that stops logging.
 * @see docs/design.md §5 "Journal".
 * @example logIntake(intake, createLogger({ redaction: intake.redactor }));
 */
export function logIntake(intake: IntakeEventSource, logger: Logger): () => void {
  const offDelivery = intake.on('delivery', ({ record }) => {
    // The level is asked first: a line that is not written costs no copy of the row and no parse of the payload.
    const bad = record.decision === 'rejected' || record.outcome === 'failed';
    if (logger.isLevelEnabled(bad ? 'warn' : 'info')) {
      const { payload: _payload, ...fields } = record;
      if (bad) logger.warn({ delivery: fields }, 'webhook delivery refused or failed');
      else logger.info({ delivery: fields }, 'webhook delivery');
    }
    if (record.payload !== null && logger.isLevelEnabled('debug')) {
      logger.debug({ deliveryId: record.id, payload: JSON.parse(record.payload) }, 'webhook payload');
    }
  });
  const offJournal = intake.on('journal-error', ({ record, error }) => {
    logger.error({ deliveryId: record.id, provider: record.provider, err: error }, 'delivery journal write failed');
  });
  const offHandler = intake.on('handler-failed', ({ endpoint, provider, receiptKey, error }) => {
    logger.error({ endpoint, provider, receiptKey, error }, 'webhook handler failed');
  });
  return () => {
    offDelivery();
    offJournal();
    offHandler();
  };
}

/**
 * Logs receipt guard events: claims, takeovers and replays at `debug`, in-progress at `info`, failures,
 * lost claims and payload mismatches at `warn`, a corrupted stored receipt and a store whose tables are missing
 * (`store:schema-missing`, once per guard, with the `payonce migrate` to run) at `error`. Keys are logged as `provider/externalId`.
 * @returns a function that stops logging.
 * @see docs/design.md §3; STYLE pattern 12.
 */
export function logGuard(guard: GuardEventSource, logger: Logger): () => void {
  const offs = [
    guard.on('receipt:claimed', ({ key, attempt, takeover, retry }) =>
      logger.debug({ key: key.toString(), attempt, takeover, retry }, 'receipt claimed'),
    ),
    guard.on('receipt:replayed', ({ key, ageMs }) => logger.debug({ key: key.toString(), ageMs }, 'receipt replayed')),
    guard.on('receipt:in-progress', ({ key, retryAfterMs }) =>
      logger.info({ key: key.toString(), retryAfterMs }, 'receipt in progress elsewhere'),
    ),
    guard.on('receipt:completed', ({ key, attempt, durationMs }) =>
      logger.debug({ key: key.toString(), attempt, durationMs }, 'receipt completed'),
    ),
    guard.on('receipt:failed', ({ key, attempt, durationMs, error }) =>
      logger.warn({ key: key.toString(), attempt, durationMs, error }, 'receipt handler failed'),
    ),
    guard.on('receipt:claim-lost', ({ key, attempt }) =>
      logger.warn({ key: key.toString(), attempt }, 'receipt claim was taken over; result not recorded'),
    ),
    guard.on('receipt:payload-mismatch', ({ key }) =>
      logger.warn({ key: key.toString() }, 'receipt key reused with a different payload'),
    ),
    guard.on('receipt:corrupted', ({ key, problem }) =>
      logger.error({ key: key.toString(), problem, code: 'RECEIPT_CORRUPTED' }, 'stored receipt is corrupted'),
    ),
    guard.on('store:schema-missing', ({ missing, schema, message }) =>
      logger.error({ code: 'STORE_SCHEMA_MISSING', missing, schema }, message),
    ),
  ];
  return () => {
    for (const off of offs) off();
  };
}
