import { html, nothing } from 'lit';
import { get, when } from '../api.js';
import { pill } from '../page-element.js';
import {
  type ClickTx,
  clickTable,
  type PaymeTx,
  type ProviderTx,
  paymeTable,
  type UzumTx,
  uzumTable,
} from '../provider-tables.js';
import { ListPageElement } from './list-page.js';

/** Filterable states by provider (the admin API's `state` values). */
const STATES = {
  payme: ['1', '2', '-1', '-2'],
  click: ['prepared', 'completed', 'cancelled'],
  uzum: ['CREATED', 'CONFIRMED', 'REVERSED'],
} as const;
type Provider = keyof typeof STATES;

/** One row of a Payme statement: GetStatement's transaction object (times 0 when not set). */
interface StatementRow {
  id: string;
  time: number;
  amount: number;
  account: Record<string, unknown>;
  create_time: number;
  perform_time: number;
  cancel_time: number;
  transaction: string;
  state: number;
  reason: number | null;
}

/** `YYYY-MM-DDTHH:MM` (a datetime-local value, read as UTC) as epoch ms, or `null`. */
function utcMs(value: string): number | null {
  const ms = Date.parse(`${value}:00Z`);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The provider engines' transactions, one provider at a time (Payme, Click, Uzum), filtered by state, newest
 * first; for Payme also the statement of a time range (the rows GetStatement answers).
 */
export class ProviderTransactionsPage extends ListPageElement<ProviderTx> {
  static override properties = { ...ListPageElement.properties, statement: { state: true } };
  declare statement: { fromMs: number; toMs: number; transactions: StatementRow[] } | null;
  protected readonly path = '/provider-transactions';

  constructor() {
    super();
    this.statement = null;
  }

  private provider(): Provider {
    const chosen = this.filters.provider;
    return chosen === 'click' || chosen === 'uzum' ? chosen : 'payme';
  }

  /** Another provider: its states differ, so the state filter is dropped. */
  private chooseProvider(provider: string): void {
    const next = { ...this.filters };
    delete next.state;
    this.filters = next;
    this.statement = null;
    this.setFilter('provider', provider === 'payme' ? '' : provider);
  }

  private async readStatement(form: HTMLFormElement): Promise<void> {
    const data = new FormData(form);
    const fromMs = utcMs(String(data.get('from') ?? ''));
    const toMs = utcMs(String(data.get('to') ?? ''));
    if (fromMs === null || toMs === null) {
      this.say('Give both ends of the range (UTC).', true);
      return;
    }
    await this.load(async () => {
      this.statement = await get('/payme/statement', { fromMs, toMs });
      this.say(`Statement: ${this.statement?.transactions.length ?? 0} transactions.`);
    });
  }

  private statementPanel() {
    if (this.provider() !== 'payme') return nothing;
    const s = this.statement;
    return html`<div class="panel">
      <h2 style="margin-top:0">Payme statement</h2>
      <form class="filters" data-testid="statement-form" @submit=${(e: Event) => {
        e.preventDefault();
        void this.readStatement(e.target as HTMLFormElement);
      }}>
        <label>from (UTC) <input type="datetime-local" name="from" data-testid="statement-from" required /></label>
        <label>to (UTC) <input type="datetime-local" name="to" data-testid="statement-to" required /></label>
        <button type="submit" class="secondary" data-testid="statement-read">Show statement</button>
      </form>
      ${
        s
          ? html`<table data-testid="payme-statement">
          <thead><tr><th>Payme id</th><th>time</th><th>amount (tiyin)</th><th>account</th><th>state</th><th>reason</th>
            <th>created</th><th>performed</th><th>cancelled</th></tr></thead>
          <tbody>
            ${s.transactions.length === 0 ? html`<tr><td colspan="9" class="muted">No transactions in this range.</td></tr>` : ''}
            ${s.transactions.map(
              (t) => html`<tr data-payme-id=${t.id}>
                <td class="mono wrap">${t.id}<div class="muted">${t.transaction}</div></td>
                <td>${when(t.time)}</td>
                <td>${t.amount}</td>
                <td class="mono wrap">${JSON.stringify(t.account)}</td>
                <td>${pill(String(t.state), t.state === 2 ? 'ok' : t.state === 1 ? 'warn' : 'bad')}</td>
                <td>${t.reason ?? '—'}</td>
                <td>${when(t.create_time || null)}</td>
                <td>${when(t.perform_time || null)}</td>
                <td>${when(t.cancel_time || null)}</td>
              </tr>`,
            )}
          </tbody>
        </table>`
          : ''
      }
    </div>`;
  }

  private table() {
    const items = this.page?.items ?? [];
    // The rows' own provider: right after a provider change the previous page is still shown until the new one loads.
    switch (items[0]?.provider ?? this.provider()) {
      case 'click':
        return clickTable(items as ClickTx[], true);
      case 'uzum':
        return uzumTable(items as UzumTx[], true);
      default:
        return paymeTable(items as PaymeTx[], true);
    }
  }

  override render() {
    const provider = this.provider();
    return html`
      <h1>Provider transactions</h1>
      ${this.flashLine()}
      <div class="filters">
        <label>provider
          <select data-testid="filter-provider" @change=${(e: Event) => this.chooseProvider((e.target as HTMLSelectElement).value)}>
            ${(['payme', 'click', 'uzum'] as const).map((p) => html`<option value=${p} ?selected=${provider === p}>${p}</option>`)}
          </select></label>
        ${this.select('state', 'state', STATES[provider])}
      </div>
      ${this.table()}
      ${this.pager()}
      ${this.statementPanel()}
    `;
  }
}
customElements.define('po-provider-transactions', ProviderTransactionsPage);
