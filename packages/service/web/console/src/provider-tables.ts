/**
 * Tables of provider transactions (Payme, Click, Uzum engines), shared by the order page and the provider
 * transactions page. Shapes as `GET /admin/api/provider-transactions` answers them (admin-provider-items.ts).
 */
import { html, type TemplateResult } from 'lit';
import { when } from './api.js';
import { pill } from './page-element.js';

/** A Payme transaction: state 1 created, 2 performed, -1 cancelled before perform, -2 cancelled after perform. */
export interface PaymeTx {
  provider: 'payme';
  id: string;
  transaction: string;
  orderId: string;
  state: 1 | 2 | -1 | -2;
  reason: number | null;
  amountTiyin: number;
  timeMs: number;
  createTimeMs: number;
  performTimeMs: number | null;
  cancelTimeMs: number | null;
}

/** A Click transaction. */
export interface ClickTx {
  provider: 'click';
  clickTransId: number;
  merchantPrepareId: number;
  clickPaydocId: number | null;
  orderId: string;
  status: 'prepared' | 'completed' | 'cancelled';
  clickError: number | null;
  amountTiyin: number;
  prepareTimeMs: number;
  completeTimeMs: number | null;
  cancelTimeMs: number | null;
}

/** An Uzum Bank transaction. */
export interface UzumTx {
  provider: 'uzum';
  transId: string;
  orderId: string;
  status: 'CREATED' | 'CONFIRMED' | 'REVERSED';
  amountTiyin: number;
  transTimeMs: number;
  confirmTimeMs: number | null;
  reverseTimeMs: number | null;
}

/** One provider transaction of any engine. */
export type ProviderTx = PaymeTx | ClickTx | UzumTx;

/** The names of Payme's states (fixtures payme/states-and-reasons.json). */
const PAYME_STATE: Readonly<Record<number, string>> = {
  1: '1 created',
  2: '2 performed',
  [-1]: '-1 cancelled',
  [-2]: '-2 cancelled after perform',
};

/** Pill tone of a provider state: paid `ok`, open `warn`, cancelled or reversed `bad`. */
function stateTone(state: string | number): 'ok' | 'warn' | 'bad' {
  if (state === 2 || state === 'completed' || state === 'CONFIRMED') return 'ok';
  if (state === 1 || state === 'prepared' || state === 'CREATED') return 'warn';
  return 'bad';
}

/** Amount in tiyin, with sum. */
function tiyin(amount: number): string {
  return `${amount} tiyin (${(amount / 100).toFixed(2)} UZS)`;
}

function orderLink(orderId: string, withOrder: boolean): TemplateResult | string {
  return withOrder
    ? html`<td class="mono wrap"><a href=${`#/orders/${encodeURIComponent(orderId)}`}>${orderId}</a></td>`
    : '';
}

/** Payme transactions as a table; `withOrder` adds the order column (the list page). */
export function paymeTable(items: readonly PaymeTx[], withOrder: boolean): TemplateResult {
  return html`<table data-testid="payme-transactions">
    <thead><tr><th>Payme id</th>${withOrder ? html`<th>order</th>` : ''}<th>state</th><th>reason</th><th>amount</th>
      <th>Payme time</th><th>created</th><th>performed</th><th>cancelled</th></tr></thead>
    <tbody>
      ${items.length === 0 ? html`<tr><td colspan="9" class="muted">No Payme transactions.</td></tr>` : ''}
      ${items.map(
        (t) => html`<tr data-payme-id=${t.id}>
          <td class="mono wrap">${t.id}<div class="muted">${t.transaction}</div></td>
          ${orderLink(t.orderId, withOrder)}
          <td>${pill(PAYME_STATE[t.state] ?? String(t.state), stateTone(t.state))}</td>
          <td>${t.reason ?? '—'}</td>
          <td>${tiyin(t.amountTiyin)}</td>
          <td>${when(t.timeMs)}</td>
          <td>${when(t.createTimeMs)}</td>
          <td>${when(t.performTimeMs)}</td>
          <td>${when(t.cancelTimeMs)}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

/** Click transactions as a table. */
export function clickTable(items: readonly ClickTx[], withOrder: boolean): TemplateResult {
  return html`<table data-testid="click-transactions">
    <thead><tr><th>click_trans_id</th><th>merchant_prepare_id</th>${withOrder ? html`<th>order</th>` : ''}<th>status</th>
      <th>Click error</th><th>amount</th><th>prepared</th><th>completed</th><th>cancelled</th></tr></thead>
    <tbody>
      ${items.length === 0 ? html`<tr><td colspan="9" class="muted">No Click transactions.</td></tr>` : ''}
      ${items.map(
        (t) => html`<tr data-click-trans-id=${String(t.clickTransId)}>
          <td class="mono">${t.clickTransId}${t.clickPaydocId === null ? '' : html`<div class="muted">paydoc ${t.clickPaydocId}</div>`}</td>
          <td class="mono">${t.merchantPrepareId}</td>
          ${orderLink(t.orderId, withOrder)}
          <td>${pill(t.status, stateTone(t.status))}</td>
          <td>${t.clickError ?? '—'}</td>
          <td>${tiyin(t.amountTiyin)}</td>
          <td>${when(t.prepareTimeMs)}</td>
          <td>${when(t.completeTimeMs)}</td>
          <td>${when(t.cancelTimeMs)}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

/** Uzum Bank transactions as a table. */
export function uzumTable(items: readonly UzumTx[], withOrder: boolean): TemplateResult {
  return html`<table data-testid="uzum-transactions">
    <thead><tr><th>transId</th>${withOrder ? html`<th>order</th>` : ''}<th>status</th><th>amount</th>
      <th>created</th><th>confirmed</th><th>reversed</th></tr></thead>
    <tbody>
      ${items.length === 0 ? html`<tr><td colspan="7" class="muted">No Uzum transactions.</td></tr>` : ''}
      ${items.map(
        (t) => html`<tr data-trans-id=${t.transId}>
          <td class="mono wrap">${t.transId}</td>
          ${orderLink(t.orderId, withOrder)}
          <td>${pill(t.status, stateTone(t.status))}</td>
          <td>${tiyin(t.amountTiyin)}</td>
          <td>${when(t.transTimeMs)}</td>
          <td>${when(t.confirmTimeMs)}</td>
          <td>${when(t.reverseTimeMs)}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}
