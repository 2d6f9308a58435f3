import { html } from 'lit';
import { tone, when } from '../api.js';
import { pill } from '../page-element.js';
import { ListPageElement } from './list-page.js';

interface Job {
  id: string;
  topic: string;
  dedupeKey: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAtMs: number;
  finishedAtMs: number | null;
}

/** Outbox jobs; a dead-lettered job can be rerun once. */
export class JobsPage extends ListPageElement<Job> {
  protected readonly path = '/jobs';

  private async rerun(job: Job): Promise<void> {
    const done = await this.act(
      'Rerun this dead job?',
      `${job.topic} (${job.dedupeKey}) goes back to queued with fresh runs. Its effect is guarded by the effect ledger, so it is never applied twice.`,
      `/jobs/${encodeURIComponent(job.id)}/rerun`,
      {},
    );
    if (done) this.say(`Job ${job.id} queued again.`);
    await this.refresh();
  }

  override render() {
    const items = this.page?.items ?? [];
    return html`
      <h1>Outbox jobs</h1>
      ${this.flashLine()}
      <div class="filters">
        ${this.select('status', 'status', ['queued', 'running', 'done', 'dead'])}
        ${this.select('topic', 'topic', ['order.fulfil', 'order.refunded'])}
      </div>
      <table data-testid="jobs-table">
        <thead><tr><th>job</th><th>topic</th><th>dedupe key</th><th>state</th><th>runs</th><th>created</th><th>finished</th><th>last error</th><th></th></tr></thead>
        <tbody>
          ${items.length === 0 ? html`<tr><td colspan="9" class="muted">No jobs match.</td></tr>` : ''}
          ${items.map(
            (job) => html`<tr data-job-id=${job.id}>
              <td class="mono wrap">${job.id}</td>
              <td>${job.topic}</td>
              <td class="mono wrap">${
                job.dedupeKey.startsWith('order:')
                  ? html`<a href=${`#/orders/${job.dedupeKey.slice(6)}`}>${job.dedupeKey}</a>`
                  : job.dedupeKey
              }</td>
              <td>${pill(job.status, tone(job.status))}</td>
              <td>${job.attempts}</td>
              <td>${when(job.createdAtMs)}</td>
              <td>${when(job.finishedAtMs)}</td>
              <td class="wrap">${job.lastError ?? ''}</td>
              <td>${job.status === 'dead' ? html`<button data-testid="rerun" @click=${() => this.rerun(job)}>Rerun</button>` : ''}</td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${this.pager()}
    `;
  }
}
customElements.define('po-jobs', JobsPage);
