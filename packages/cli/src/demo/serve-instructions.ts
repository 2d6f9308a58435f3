/** Where `payonce demo --serve` left things running. */
export interface ServeInstructionsInput {
  /** The service's base URL. */
  readonly serviceUrl: string;
  readonly servicePid: number;
  /** The sandbox provider's base URL. */
  readonly providerUrl: string;
  /** The database, as printed (password redacted). */
  readonly database: string;
  /** Whether the admin token came from `PAYONCE_ADMIN_TOKEN` (so the user can use it) or was generated. */
  readonly adminTokenFromEnv: boolean;
}

/**
 * The lines `payonce demo --serve` prints once the service and the sandbox are kept running: their URLs and
 * `curl` lines for the service's contract (docs/service.md: create an order, check out with an Idempotency-Key,
 * read the order view, metrics) and the sandbox's charge ledger. Never prints a secret: the admin route is shown
 * with `$PAYONCE_ADMIN_TOKEN`.
 */
export function serveInstructions(input: ServeInstructionsInput): string[] {
  const { serviceUrl: s, providerUrl: p } = input;
  const customer = "-H 'x-customer-id: demo-customer'";
  return [
    `service  ${s}  (pid ${input.servicePid}, ${input.database})`,
    `sandbox  ${p}  (Stripe-shaped provider; webhooks go to ${s}/webhooks/stripe)`,
    '',
    'try (replace ORDER_ID with the id the first call returns):',
    `  curl -s -X POST ${s}/orders ${customer} -H 'content-type: application/json' -d '{"amountMinor":1999,"currency":"EUR"}'`,
    `  curl -s -X POST ${s}/orders/ORDER_ID/checkout ${customer} -H 'idempotency-key: demo-checkout-1'`,
    `  curl -s ${s}/orders/ORDER_ID ${customer}`,
    `  curl -s '${p}/_sandbox/charges?order_id=ORDER_ID'`,
    `  curl -s ${s}/metrics`,
    input.adminTokenFromEnv
      ? `  curl -s ${s}/admin/api/jobs?status=dead -H "authorization: Bearer $PAYONCE_ADMIN_TOKEN"  (console: ${s}/console/)`
      : '  (operator console: set PAYONCE_ADMIN_TOKEN, 32+ characters, before payonce demo to choose its token)',
    '',
    'Ctrl-C stops both.',
  ];
}
