import { html } from 'lit';
import { tone, when } from '../api.js';
import { pill } from '../page-element.js';
import { ListPageElement } from './list-page.js';

interface Attempt {
  id: string;
  orderId: string;
  status: string;
  amountMinor: number;
  currency: string;
  providerPaymentId: string | null;
  lastError: string | null;
  createdAtMs: number;
  updatedAtMs: number;
}

/** Payment attempts; any attempt can be reconciled with the provider now. */
export class AttemptsPage extends ListPageElement<Attempt> {
  protected readonly path = '/attempts';

  private async reconcile(a: Attempt): Promise<void> {
    const done = await this.act<{ result: { outcome: string } }>(
      'Reconcile this attempt now?',
      `The provider is asked about attempt ${a.id}; a different status it reports is applied forward-only, as a provider event.`,
      `/attempts/${encodeURIComponent(a.id)}/reconcile`,
      {},
    );
    if (done) this.say(`Attempt ${a.id}: ${done.result.outcome}.`);
    await this.refresh();
  }

  override render() {
    const items = this.page?.items ?? [];
    return html`
      <h1>Payment attempts</h1>
      ${this.flashLine()}
      <div class="filters">
        ${this.select('status', 'status', ['unresolved', 'creating', 'unknown', 'pending', 'requires_action', 'succeeded', 'failed', 'cancelled'])}
      </div>
      <table data-testid="attempts-table">
        <thead><tr><th>attempt</th><th>order</th><th>state</th><th>amount (minor)</th><th>provider payment</th><th>updated</th><th>last error</th><th></th></tr></thead>
        <tbody>
          ${items.length === 0 ? html`<tr><td colspan="8" class="muted">No attempts match.</td></tr>` : ''}
          ${items.map(
            (a) => html`<tr data-attempt-id=${a.id}>
              <td class="mono wrap">${a.id}</td>
              <td class="mono wrap"><a href=${`#/orders/${a.orderId}`}>${a.orderId}</a></td>
              <td>${pill(a.status, tone(a.status))}</td>
              <td>${a.amountMinor} ${a.currency}</td>
              <td class="mono">${a.providerPaymentId ?? '—'}</td>
              <td>${when(a.updatedAtMs)}</td>
              <td class="wrap">${a.lastError ?? ''}</td>
              <td><button class="secondary" data-testid="reconcile" @click=${() => this.reconcile(a)}>Reconcile</button></td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${this.pager()}
    `;
  }
}
customElements.define('po-attempts', AttemptsPage);
