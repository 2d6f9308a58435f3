import { html } from 'lit';
import { get, when } from '../api.js';
import { drawDeliveriesChart, type MinuteCounts } from '../deliveries-chart.js';
import { PageElement } from '../page-element.js';

type Counts = Record<string, number>;

interface Overview {
  atMs: number;
  receipts: { byProvider: Record<string, Counts>; total: number; stuck: number; failed: number };
  jobs: Counts & { total: number };
  parkedEvents: number;
  attempts: { unresolved: number; unknown: number; waiting: number; total: number };
  orders: Counts & { total: number };
  deliveries: { lastHour: Counts & { total: number }; perMinute: MinuteCounts[] };
}

/** The overview: counts that need attention, and deliveries per minute by decision for the last hour. */
export class OverviewPage extends PageElement {
  static override properties = { ...PageElement.properties, data: { state: true } };
  declare data: Overview | null;

  constructor() {
    super();
    this.data = null;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load(async () => {
      this.data = await get<Overview>('/overview');
    });
  }

  override updated(): void {
    const target = this.querySelector<HTMLElement>('#deliveries-chart');
    if (target && this.data) drawDeliveriesChart(target, this.data.deliveries.perMinute);
  }

  private card(id: string, n: number, label: string, href: string, alert = false) {
    const cls =
      alert && n > 0 ? (id.includes('failed') || id.includes('dead') || id.includes('unknown') ? 'bad' : 'warn') : '';
    const body = html`<div class="n" data-testid=${`count-${id}`}>${n}</div>
      <div class="l">${label}</div>`;
    return href ? html`<a class="card ${cls}" href=${href}>${body}</a>` : html`<div class="card ${cls}">${body}</div>`;
  }

  override render() {
    const d = this.data;
    if (!d) return html`${this.flashLine()}<p class="muted">Loading…</p>`;
    const providers = Object.entries(d.receipts.byProvider).sort(([a], [b]) => a.localeCompare(b));
    return html`
      <h1>Overview <span class="muted" style="font-size:12px;font-weight:400">at ${when(d.atMs)}</span></h1>
      ${this.flashLine()}
      <div class="cards">
        ${this.card('receipts-stuck', d.receipts.stuck, 'stuck receipts (processing past stale limit)', '#/receipts?stuck=true', true)}
        ${this.card('receipts-failed', d.receipts.failed, 'failed receipts', '#/receipts?status=failed', true)}
        ${this.card('jobs-dead', d.jobs.dead ?? 0, 'dead-lettered jobs', '#/jobs?status=dead', true)}
        ${this.card('parked-events', d.parkedEvents, 'parked payment events (no attempt matches yet)', '', true)}
        ${this.card('attempts-unresolved', d.attempts.unresolved, 'attempts unresolved (creating / unknown)', '#/attempts?status=unresolved', true)}
        ${this.card('attempts-unknown', d.attempts.unknown, 'attempts with unknown result', '#/attempts?status=unknown', true)}
        ${this.card('receipts-total', d.receipts.total, 'receipts', '#/receipts')}
        ${this.card('jobs-total', d.jobs.total, 'outbox jobs', '#/jobs')}
        ${this.card('jobs-queued', d.jobs.queued ?? 0, 'jobs queued', '#/jobs?status=queued')}
        ${this.card('orders-total', d.orders.total, 'orders', '#/orders')}
        ${this.card('orders-completed', d.orders.completed ?? 0, 'orders completed', '#/orders?status=completed')}
        ${this.card('deliveries-hour', d.deliveries.lastHour.total, 'deliveries in the last hour', '#/deliveries')}
        ${this.card('deliveries-rejected-hour', d.deliveries.lastHour.rejected ?? 0, 'rejected in the last hour', '#/deliveries?decision=rejected', true)}
      </div>
      <div class="panel">
        <h2 style="margin-top:0">Deliveries and decisions per minute (last hour)</h2>
        <div id="deliveries-chart" data-testid="deliveries-chart"></div>
      </div>
      <h2>Receipts by provider and state</h2>
      <table data-testid="receipts-by-provider">
        <thead><tr><th>provider</th><th>processing</th><th>completed</th><th>failed</th></tr></thead>
        <tbody>
          ${providers.map(
            ([provider, c]) => html`<tr data-provider=${provider}>
              <td class="mono">${provider}</td><td>${c.processing ?? 0}</td><td>${c.completed ?? 0}</td><td>${c.failed ?? 0}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    `;
  }
}
customElements.define('po-overview', OverviewPage);
