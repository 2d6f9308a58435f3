import { html } from 'lit';
import { tone, when } from '../api.js';
import { pill } from '../page-element.js';
import { ListPageElement } from './list-page.js';

interface Action {
  id: string;
  atMs: number;
  actor: string;
  via: string;
  action: string;
  target: string;
  orderId: string | null;
  dryRun: boolean;
  outcome: string;
  detail: unknown;
}

/** The operator action journal: who did what, when, with what result. */
export class ActionsPage extends ListPageElement<Action> {
  protected readonly path = '/actions';

  override render() {
    const items = this.page?.items ?? [];
    return html`
      <h1>Operator actions</h1>
      ${this.flashLine()}
      <div class="filters">
        ${this.select('action', 'action', ['release-claim', 'retry-receipt', 'rerun-job', 'reconcile-attempt', 'replay-delivery', 'replay-range'])}
      </div>
      <table data-testid="actions-table">
        <thead><tr><th>when</th><th>who</th><th>action</th><th>target</th><th>outcome</th><th>detail</th></tr></thead>
        <tbody>
          ${items.length === 0 ? html`<tr><td colspan="6" class="muted">No actions yet.</td></tr>` : ''}
          ${items.map(
            (a) => html`<tr data-action=${a.action}>
              <td>${when(a.atMs)}</td>
              <td>${a.actor} <span class="muted">(${a.via})</span></td>
              <td>${a.action}</td>
              <td class="mono wrap">${a.orderId ? html`<a href=${`#/orders/${a.orderId}`}>${a.target}</a>` : a.target}</td>
              <td>${pill(a.outcome, a.outcome === 'done' ? 'ok' : tone(a.outcome) || 'warn')}</td>
              <td class="mono wrap">${JSON.stringify(a.detail).slice(0, 240)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${this.pager()}
    `;
  }
}
customElements.define('po-actions', ActionsPage);
