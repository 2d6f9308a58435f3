import { InvalidOption } from 'payonce/internal/core/errors.js';
import { checkPaymentPlan, type PaymentPlan } from '../payment-plan.js';

/**
 * The faults one request or rule can ask for, by name (the `Payonce-Fault` header and `--faults` rules use these):
 * API: `drop-after-commit`, `gateway-timeout-after-commit`, `timeout-after-commit[=ms]` (alias
 * `hang-after-commit`), `timeout-before-commit[=ms]` (alias `timeout`, `hang-before-commit`), `500-before-commit`,
 * `500-after-commit`, `503-before-commit`, `503-after-commit`, `rate-limit[=Retry-After s]`, `delay=ms`,
 * `decline[=decline_code]`, `hold`, `requires-action`.
 * Webhooks: `webhook-duplicate=n`, `webhook-parallel=n`, `webhook-reorder`, `webhook-delay=ms`, `webhook-drop`,
 * `webhook-bad-signature`, `webhook-before-response`, `webhook-tampered-amount`, `webhook-resigned-amount`,
 * `webhook-two-event-ids`.
 * `repeat`: the header's faults strike every retry with the same idempotency key, not only the first request.
 */
export const FAULT_NAMES: readonly string[] = Object.freeze([
  'drop-after-commit',
  'gateway-timeout-after-commit',
  'timeout-after-commit',
  'hang-after-commit',
  'timeout-before-commit',
  'timeout',
  'hang-before-commit',
  '500-before-commit',
  '500-after-commit',
  '503-before-commit',
  '503-after-commit',
  'rate-limit',
  'delay',
  'decline',
  'hold',
  'requires-action',
  'webhook-duplicate',
  'webhook-parallel',
  'webhook-reorder',
  'webhook-delay',
  'webhook-drop',
  'webhook-bad-signature',
  'webhook-before-response',
  'webhook-tampered-amount',
  'webhook-resigned-amount',
  'webhook-two-event-ids',
  'repeat',
]);

/** Faults parsed from a header or rule: the plan knobs they set and their names as written (for the ledger). */
export interface FaultSet {
  readonly plan: PaymentPlan;
  readonly names: readonly string[];
  /** `repeat` was named: a header's faults strike every retry of an idempotency key, not only its first request. */
  readonly repeat?: boolean;
}

/** No fault. */
export const NO_FAULTS: FaultSet = Object.freeze({ plan: Object.freeze({}), names: Object.freeze([]) });

function numberArg(name: string, arg: string | undefined, fallback: number | undefined): number | undefined {
  if (arg === undefined) return fallback;
  if (!/^\d{1,7}$/.test(arg)) throw new InvalidOption(`Payonce-Fault ${name}`, 'takes a whole number');
  return Number(arg);
}

/** The plan knobs of one fault item. */
function planOf(name: string, arg: string | undefined): PaymentPlan {
  const n = (fallback?: number) => numberArg(name, arg, fallback);
  switch (name) {
    case 'drop-after-commit':
    case 'gateway-timeout-after-commit':
    case '500-before-commit':
    case '500-after-commit':
    case '503-before-commit':
    case '503-after-commit':
      return { responseFault: name };
    case 'timeout-after-commit':
    case 'hang-after-commit':
      return { responseFault: 'hang-after-commit', hangMs: n() };
    case 'timeout-before-commit':
    case 'timeout':
    case 'hang-before-commit':
      return { responseFault: 'hang-before-commit', hangMs: n() };
    case 'rate-limit':
      return { responseFault: 'rate-limit', retryAfterSec: n() };
    case 'delay':
      return { responseDelayMs: n(1_000) };
    case 'decline':
      return { outcome: 'decline', declineCode: arg };
    case 'hold':
      return { outcome: 'hold' };
    case 'requires-action':
      return { outcome: 'requires_action' };
    case 'webhook-duplicate':
      return { duplicateDeliveries: n(1) };
    case 'webhook-parallel':
      return { parallelDeliveries: n(2) };
    case 'webhook-reorder':
      return { reorder: true };
    case 'webhook-delay':
      return { webhookDelayMs: n(1_000) };
    case 'webhook-drop':
      return { webhookDrop: true };
    case 'webhook-bad-signature':
      return { forgedSignature: true };
    case 'webhook-before-response':
      return { webhookBeforeResponse: true };
    case 'webhook-tampered-amount':
      return { tamperedAmount: 'in-transit' };
    case 'webhook-resigned-amount':
      return { tamperedAmount: 'resigned' };
    case 'webhook-two-event-ids':
      return { twoEventIds: true };
    case 'repeat':
      return {};
    default:
      throw new InvalidOption(
        'Payonce-Fault',
        `unknown fault "${name.slice(0, 40)}" (known: ${FAULT_NAMES.join(', ')})`,
      );
  }
}

/**
 * Parses a fault list: items separated by commas, each `name` or `name=value`
 * (`drop-after-commit, webhook-duplicate=2`). At most 20 items; knobs are checked like a {@link PaymentPlan}.
 * @throws {InvalidOption} an unknown fault, a bad value or too many items.
 */
export function parseFaults(text: string): FaultSet {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length > 20) throw new InvalidOption('Payonce-Fault', 'takes at most 20 faults');
  let plan: PaymentPlan = {};
  let repeat = false;
  for (const item of items) {
    const eq = item.indexOf('=');
    const name = (eq < 0 ? item : item.slice(0, eq)).trim().toLowerCase();
    const arg = eq < 0 ? undefined : item.slice(eq + 1).trim();
    if (name === 'repeat' && arg !== undefined) throw new InvalidOption('Payonce-Fault repeat', 'takes no value');
    repeat ||= name === 'repeat';
    const knobs = Object.fromEntries(Object.entries(planOf(name, arg)).filter(([, v]) => v !== undefined));
    plan = { ...plan, ...knobs };
  }
  const names = Object.freeze(items.filter((item) => item.toLowerCase() !== 'repeat'));
  const checked = checkPaymentPlan(plan, 'Payonce-Fault');
  return Object.freeze(repeat ? { plan: checked, names, repeat } : { plan: checked, names });
}

/** Two fault sets as one: `b`'s knobs win. */
export function mergeFaults(a: FaultSet, b: FaultSet): FaultSet {
  if (b.names.length === 0) return a;
  if (a.names.length === 0) return b;
  return Object.freeze({ plan: { ...a.plan, ...b.plan }, names: Object.freeze([...a.names, ...b.names]) });
}
