import { html } from 'lit';
import { tone, when } from '../api.js';
import { pill } from '../page-element.js';
import { ListPageElement } from './list-page.js';

interface Order {
  id: string;
  status: string;
  amountMinor: number;
  currency: string;
  paidAttemptId: string | null;
  createdAtMs: number;
  updatedAtMs: number;
}

/** Orders; each links to its timeline. */
export class OrdersPage extends ListPageElement<Order> {
  protected readonly path = '/orders';

  override render() {
    const items = this.page?.items ?? [];
    return html`
      <h1>Orders</h1>
      ${this.flashLine()}
      <div class="filters">
        ${this.select('status', 'status', ['draft', 'awaiting_payment', 'paid', 'fulfilling', 'completed', 'cancelled', 'refunded'])}
        <label>open order by id <input data-testid="order-id" placeholder="order id" @change=${(e: Event) => {
          const id = (e.target as HTMLInputElement).value.trim();
          if (id) window.location.hash = `#/orders/${encodeURIComponent(id)}`;
        }} /></label>
      </div>
      <table data-testid="orders-table">
        <thead><tr><th>order</th><th>state</th><th>amount (minor)</th><th>paid by attempt</th><th>created</th><th>updated</th></tr></thead>
        <tbody>
          ${items.length === 0 ? html`<tr><td colspan="6" class="muted">No orders match.</td></tr>` : ''}
          ${items.map(
            (o) => html`<tr data-order-id=${o.id}>
              <td class="mono"><a href=${`#/orders/${o.id}`}>${o.id}</a></td>
              <td>${pill(o.status, tone(o.status))}</td>
              <td>${o.amountMinor} ${o.currency}</td>
              <td class="mono">${o.paidAttemptId ?? '—'}</td>
              <td>${when(o.createdAtMs)}</td>
              <td>${when(o.updatedAtMs)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${this.pager()}
    `;
  }
}
customElements.define('po-orders', OrdersPage);
