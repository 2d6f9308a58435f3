import { html } from 'lit';
import { get, tone, when } from '../api.js';
import { PageElement, pill } from '../page-element.js';
import { type ClickTx, clickTable, type PaymeTx, paymeTable, type UzumTx, uzumTable } from '../provider-tables.js';

interface Entry {
  atMs: number;
  kind: string;
  title: string;
  detail: string | null;
  ref: string | null;
  tone: string;
}

interface Timeline {
  order: { id: string; status: string; amountMinor: number; currency: string; paidAttemptId: string | null };
  /** The order's trace (`payonce serve --otel`) and its link in the trace viewer (`--otel-trace-url`). */
  trace: { id: string; url: string | null } | null;
  attempts: { id: string; status: string; providerPaymentId: string | null }[];
  counts: {
    paidTransitions: number;
    deliveries: number;
    rejectedDeliveries: number;
    fulfilments: number;
    refunds: number;
  };
  entries: Entry[];
}

/** The order's transactions at the provider engines (`GET /admin/api/orders/:id/provider-transactions`). */
interface ProviderTransactions {
  payme: PaymeTx[];
  click: ClickTx[];
  uzum: UzumTx[];
}

/** One order's timeline: why it is in its state, fact by fact, oldest first; and its provider transactions. */
export class OrderPage extends PageElement {
  static override properties = {
    ...PageElement.properties,
    data: { state: true },
    transactions: { state: true },
    orderId: { type: String },
  };
  declare data: Timeline | null;
  declare transactions: ProviderTransactions | null;
  declare orderId: string;

  constructor() {
    super();
    this.data = null;
    this.transactions = null;
    this.orderId = '';
  }

  override connectedCallback(): void {
    super.connectedCallback();
    const id = encodeURIComponent(this.orderId);
    void this.load(async () => {
      [this.data, this.transactions] = await Promise.all([
        get<Timeline>(`/orders/${id}/timeline`),
        get<ProviderTransactions>(`/orders/${id}/provider-transactions`),
      ]);
    });
  }

  /** The order's trace id, a link when the service has `--otel-trace-url`; nothing when no trace was stored. */
  private traceLine() {
    const trace = this.data?.trace;
    if (!trace) return '';
    const id = trace.url
      ? html`<a class="mono" href=${trace.url} target="_blank" rel="noopener noreferrer" data-testid="order-trace-link">${trace.id}</a>`
      : html`<span class="mono">${trace.id}</span>`;
    return html`<p data-testid="order-trace">Trace ${id}</p>`;
  }

  /** The order's Payme, Click and Uzum transactions, one table per provider that has any. */
  private providerPanel() {
    const t = this.transactions;
    if (!t) return '';
    const none = t.payme.length + t.click.length + t.uzum.length === 0;
    return html`<div class="panel" data-testid="order-provider-transactions">
      <h2 style="margin-top:0">Provider transactions</h2>
      ${none ? html`<p class="muted">No Payme, Click or Uzum transactions for this order.</p>` : ''}
      ${t.payme.length > 0 ? paymeTable(t.payme, false) : ''}
      ${t.click.length > 0 ? clickTable(t.click, false) : ''}
      ${t.uzum.length > 0 ? uzumTable(t.uzum, false) : ''}
    </div>`;
  }

  override render() {
    const d = this.data;
    if (!d) return html`<h1>Order <span class="mono">${this.orderId}</span></h1>${this.flashLine()}`;
    const c = d.counts;
    return html`
      <h1>Order <span class="mono">${d.order.id}</span> ${pill(d.order.status, tone(d.order.status))}</h1>
      ${this.flashLine()}
      ${this.traceLine()}
      <div class="cards">
        <div class="card"><div class="n">${d.order.amountMinor}</div><div class="l">amount in minor units of ${d.order.currency}</div></div>
        <div class="card"><div class="n" data-testid="timeline-attempts">${d.attempts.length}</div><div class="l">attempts</div></div>
        <div class="card"><div class="n" data-testid="timeline-paid">${c.paidTransitions}</div><div class="l">paid transitions</div></div>
        <div class="card"><div class="n" data-testid="timeline-deliveries">${c.deliveries}</div><div class="l">deliveries</div></div>
        <div class="card ${c.rejectedDeliveries > 0 ? 'bad' : ''}"><div class="n" data-testid="timeline-rejected">${c.rejectedDeliveries}</div><div class="l">rejected deliveries</div></div>
        <div class="card"><div class="n" data-testid="timeline-fulfilments">${c.fulfilments}</div><div class="l">fulfilments</div></div>
        <div class="card"><div class="n">${c.refunds}</div><div class="l">refunds</div></div>
      </div>
      ${this.providerPanel()}
      <div class="panel">
        <ol class="timeline" data-testid="timeline">
          ${d.entries.map(
            (e) => html`<li class=${e.tone} data-kind=${e.kind}>
              <span class="when">${when(e.atMs)}</span><span class="kind">${e.kind}</span>
              <div class="title">${e.title}</div>
              ${e.detail ? html`<div class="detail">${e.detail}</div>` : ''}
            </li>`,
          )}
        </ol>
      </div>
    `;
  }
}
customElements.define('po-order', OrderPage);
