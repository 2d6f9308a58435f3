import { html, nothing } from 'lit';
import { tone, when } from '../api.js';
import { pill } from '../page-element.js';
import { ListPageElement } from './list-page.js';

interface Delivery {
  id: string;
  receivedAtMs: number;
  provider: string;
  eventKey: string | null;
  eventType: string | null;
  signature: string;
  decision: string;
  outcome: string;
  responseStatus: number;
  error: string | null;
  merchantReference: string | null;
  paymentId: string | null;
}

interface ReplayItem {
  deliveryId: string;
  eventKey: string | null;
  eventType: string | null;
  verdict: string;
  reason: string;
  result?: { status: number; decision: string | null; outcome: string | null };
}

interface RangeResult {
  dryRun: boolean;
  result: { selected: number; considered: number; byVerdict: Record<string, number>; items: ReplayItem[] };
}

/** Webhook deliveries with their decision; one delivery or the filtered range can be replayed (dry run first). */
export class DeliveriesPage extends ListPageElement<Delivery> {
  static override properties = { ...ListPageElement.properties, range: { state: true } };
  declare range: RangeResult | null;
  protected readonly path = '/deliveries';

  constructor() {
    super();
    this.range = null;
  }

  private rangeFilter() {
    const f = this.filters;
    const filter: Record<string, string | number> = {};
    for (const name of ['provider', 'decision', 'outcome', 'eventType', 'eventKey'])
      if (f[name]) filter[name] = f[name] as string;
    for (const name of ['fromMs', 'toMs']) if (f[name]) filter[name] = Number(f[name]);
    return filter;
  }

  private async replayRange(dryRun: boolean): Promise<void> {
    const filter = this.rangeFilter();
    const done = await this.act<RangeResult>(
      dryRun ? 'Dry run: replay the filtered deliveries?' : 'Replay the filtered deliveries?',
      dryRun
        ? 'Nothing is sent: each selected delivery is checked against its receipt and the verdict shown.'
        : 'Each selected event (once, its newest authentic delivery) is re-signed and sent through the webhook intake. Forgeries are never replayed. Rate-limited.',
      '/deliveries/replay',
      { filter, limit: 50, dryRun },
    );
    if (done) {
      this.range = done;
      const counts = Object.entries(done.result.byVerdict)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ');
      this.say(`${dryRun ? 'Dry run' : 'Replay'}: ${done.result.considered} considered — ${counts || 'nothing'}.`);
    }
    if (!dryRun) await this.refresh();
  }

  private async replayOne(d: Delivery, dryRun: boolean): Promise<void> {
    const done = await this.act<{ result: ReplayItem }>(
      dryRun ? 'Dry run: replay this delivery?' : 'Replay this delivery?',
      `${d.provider} ${d.eventType ?? ''} ${d.eventKey ?? ''}`,
      `/deliveries/${encodeURIComponent(d.id)}/replay`,
      { dryRun },
    );
    if (done)
      this.say(
        `${dryRun ? 'Would' : 'Did'}: ${done.result.verdict} — ${done.result.reason}${done.result.result ? ` (answered ${done.result.result.status})` : ''}`,
      );
    if (!dryRun) await this.refresh();
  }

  private rangeTable() {
    if (!this.range) return nothing;
    return html`<div class="panel" data-testid="range-result">
      <h2 style="margin-top:0">${this.range.dryRun ? 'Dry run' : 'Replay'} of the range</h2>
      <table>
        <thead><tr><th>delivery</th><th>event</th><th>verdict</th><th>why</th><th>answer</th></tr></thead>
        <tbody>
          ${this.range.result.items.map(
            (i) => html`<tr data-verdict=${i.verdict}>
              <td class="mono wrap">${i.deliveryId}</td>
              <td class="mono wrap">${i.eventType ?? '—'} ${i.eventKey ?? ''}</td>
              <td>${pill(i.verdict, i.verdict === 'refused' ? 'bad' : i.verdict === 'duplicate' ? 'warn' : 'ok')}</td>
              <td>${i.reason}</td>
              <td>${i.result ? `${i.result.status} ${i.result.decision ?? ''}/${i.result.outcome ?? ''}` : '—'}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
  }

  override render() {
    const items = this.page?.items ?? [];
    return html`
      <h1>Webhook deliveries</h1>
      ${this.flashLine()}
      <div class="filters">
        ${this.select('decision', 'decision', ['new', 'duplicate', 'in-progress', 'rejected'])}
        ${this.select('outcome', 'outcome', ['completed', 'declined', 'replayed', 'deferred', 'failed', 'rejected'])}
        <label>event type <input data-testid="filter-eventType" .value=${this.filters.eventType ?? ''}
          @change=${(e: Event) => this.setFilter('eventType', (e.target as HTMLInputElement).value.trim())} /></label>
        <label>event key <input data-testid="filter-eventKey" .value=${this.filters.eventKey ?? ''}
          @change=${(e: Event) => this.setFilter('eventKey', (e.target as HTMLInputElement).value.trim())} /></label>
        <button class="secondary" data-testid="range-dry-run" @click=${() => this.replayRange(true)}>Dry run replay of this range</button>
        <button data-testid="range-replay" @click=${() => this.replayRange(false)}>Replay this range</button>
      </div>
      ${this.rangeTable()}
      <table data-testid="deliveries-table">
        <thead><tr><th>received</th><th>provider</th><th>event</th><th>signature</th><th>decision</th><th>answer</th><th>reason</th><th></th></tr></thead>
        <tbody>
          ${items.length === 0 ? html`<tr><td colspan="8" class="muted">No deliveries match.</td></tr>` : ''}
          ${items.map(
            (d) => html`<tr data-delivery-id=${d.id}>
              <td>${when(d.receivedAtMs)}</td>
              <td class="mono">${d.provider}</td>
              <td class="mono wrap">${d.eventType ?? '—'}<div class="muted">${d.eventKey ?? ''}</div></td>
              <td>${pill(d.signature, d.signature === 'valid' ? 'ok' : 'bad')}</td>
              <td>${pill(d.decision, tone(d.decision))} ${pill(d.outcome, tone(d.outcome))}</td>
              <td>${d.responseStatus}</td>
              <td class="wrap">${d.error ?? ''}</td>
              <td>${
                d.signature === 'valid'
                  ? html`<button class="secondary" data-testid="replay-dry-run" @click=${() => this.replayOne(d, true)}>Dry run</button>
                    <button data-testid="replay" @click=${() => this.replayOne(d, false)}>Replay</button>`
                  : html`<span class="muted">not replayable</span>`
              }</td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${this.pager()}
    `;
  }
}
customElements.define('po-deliveries', DeliveriesPage);
