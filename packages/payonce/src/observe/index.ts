/**
 * `payonce/observe`: Prometheus metrics (prom-client) and pino logging with redaction, fed by listening to
 * guard and intake events; nothing in core or the intake imports them.
 * @see docs/design.md §2 `src/observe`, §5 "Metrics".
 */
export { logGuard, logIntake } from './log-events.js';
export { createLogger, type PayonceLoggerOptions, pinoRedactPaths } from './logger.js';
export { sqlStuckReceipts } from './sql-stuck-receipts.js';
export {
  type GuardEventSource,
  type IntakeEventSource,
  WebhookMetrics,
  type WebhookMetricsOptions,
} from './webhook-metrics.js';
