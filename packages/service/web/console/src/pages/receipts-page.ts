import { html } from 'lit';
import { age, tone, when } from '../api.js';
import { pill } from '../page-element.js';
import { ListPageElement } from './list-page.js';

interface Receipt {
  provider: string;
  externalId: string;
  status: string;
  attempts: number;
  claimedAtMs: number;
  finishedAtMs: number | null;
  staleAfterMs: number;
  stuck: boolean;
  responseStatus: number | null;
  error: string | null;
}

/** Receipts: stuck claims can be released (compare-and-set on the attempt), failed webhook receipts retried. */
export class ReceiptsPage extends ListPageElement<Receipt> {
  protected readonly path = '/receipts';

  private async release(r: Receipt): Promise<void> {
    const done = await this.act<{ result: { releasedAttempt: number } }>(
      'Release this stuck claim?',
      `${r.provider} / ${r.externalId}: claim of attempt ${r.attempts}, ${age(Date.now() - r.claimedAtMs)} old. ` +
        'It is marked failed so the next delivery runs it; refused if the claim is no longer stale or its attempt changed.',
      '/receipts/release',
      { provider: r.provider, externalId: r.externalId, expectedAttempts: r.attempts },
    );
    if (done) this.say(`Released ${r.externalId} (attempt ${done.result.releasedAttempt}); the receipt is now failed.`);
    await this.refresh();
  }

  private async retry(r: Receipt): Promise<void> {
    const done = await this.act<{ result: { verdict: string; result?: { status: number } } }>(
      'Retry this failed receipt?',
      `${r.provider} / ${r.externalId}: its newest authentic delivery is replayed through the intake and the handler runs again.`,
      '/receipts/retry',
      { provider: r.provider, externalId: r.externalId },
    );
    if (done)
      this.say(`Retried ${r.externalId}: ${done.result.verdict}, answered ${done.result.result?.status ?? '—'}.`);
    await this.refresh();
  }

  override render() {
    const items = this.page?.items ?? [];
    return html`
      <h1>Receipts</h1>
      ${this.flashLine()}
      <div class="filters">
        ${this.select('status', 'status', ['processing', 'completed', 'failed'])}
        ${this.select('stuck', 'stuck only', ['true'])}
        <label>provider <input data-testid="filter-provider" .value=${this.filters.provider ?? ''}
          @change=${(e: Event) => this.setFilter('provider', (e.target as HTMLInputElement).value.trim())} /></label>
      </div>
      <table data-testid="receipts-table">
        <thead><tr><th>provider</th><th>external id</th><th>state</th><th>attempt</th><th>claimed</th><th>finished</th><th>error</th><th></th></tr></thead>
        <tbody>
          ${items.length === 0 ? html`<tr><td colspan="8" class="muted">No receipts match.</td></tr>` : ''}
          ${items.map(
            (r) => html`<tr data-external-id=${r.externalId}>
              <td class="mono">${r.provider}</td>
              <td class="mono wrap">${r.externalId}</td>
              <td>${pill(r.status, tone(r.status))} ${r.stuck ? pill('stuck', 'bad') : ''}</td>
              <td>${r.attempts}</td>
              <td>${when(r.claimedAtMs)}<div class="muted">${age(Date.now() - r.claimedAtMs)} ago · stale after ${age(r.staleAfterMs)}</div></td>
              <td>${when(r.finishedAtMs)}</td>
              <td class="wrap">${r.error ?? ''}</td>
              <td>
                ${r.status === 'processing' ? html`<button class="danger" data-testid="release" @click=${() => this.release(r)}>Release</button>` : ''}
                ${r.status === 'failed' ? html`<button data-testid="retry" @click=${() => this.retry(r)}>Retry</button>` : ''}
              </td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${this.pager()}
    `;
  }
}
customElements.define('po-receipts', ReceiptsPage);
