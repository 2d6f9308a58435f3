import { html, type TemplateResult } from 'lit';
import { get } from '../api.js';
import { PageElement } from '../page-element.js';

/** A page of a list as the admin API answers it. */
export interface ListPage<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * A filtered, cursor-paginated list page: `path` of the admin API, filters kept in the hash's query string
 * (`#/receipts?stuck=true`), "Newer"/"Older" paging by the API's opaque cursors.
 */
export abstract class ListPageElement<T> extends PageElement {
  static override properties = { ...PageElement.properties, page: { state: true }, filters: { state: true } };
  declare page: ListPage<T> | null;
  declare filters: Record<string, string>;
  private cursors: (string | undefined)[] = [undefined];

  protected abstract readonly path: string;

  constructor() {
    super();
    this.page = null;
    this.filters = {};
  }

  override connectedCallback(): void {
    super.connectedCallback();
    const query = window.location.hash.split('?')[1] ?? '';
    this.filters = Object.fromEntries(new URLSearchParams(query));
    void this.refresh();
  }

  /** Reloads the current page. */
  protected refresh(): Promise<void> {
    return this.load(async () => {
      const cursor = this.cursors[this.cursors.length - 1];
      this.page = await get<ListPage<T>>(this.path, { ...this.filters, cursor, limit: 25 });
    });
  }

  /** Sets one filter (empty removes it), back to the first page. */
  protected setFilter(name: string, value: string): void {
    const next = { ...this.filters };
    if (value) next[name] = value;
    else delete next[name];
    this.filters = next;
    this.cursors = [undefined];
    const query = new URLSearchParams(next).toString();
    history.replaceState(null, '', `#/${this.path.slice(1)}${query ? `?${query}` : ''}`);
    void this.refresh();
  }

  /** A select bound to a filter. */
  protected select(name: string, label: string, options: readonly string[]): TemplateResult {
    return html`<label>${label}
      <select data-testid=${`filter-${name}`} @change=${(e: Event) => this.setFilter(name, (e.target as HTMLSelectElement).value)}>
        <option value="" ?selected=${!this.filters[name]}>any</option>
        ${options.map((o) => html`<option value=${o} ?selected=${this.filters[name] === o}>${o}</option>`)}
      </select></label>`;
  }

  /** The pager under the table. */
  protected pager(): TemplateResult {
    return html`<div class="pager">
      <button class="secondary" ?disabled=${this.cursors.length <= 1} @click=${() => {
        this.cursors = this.cursors.slice(0, -1);
        void this.refresh();
      }}>Newer</button>
      <button class="secondary" data-testid="older" ?disabled=${!this.page?.nextCursor} @click=${() => {
        this.cursors = [...this.cursors, this.page?.nextCursor ?? undefined];
        void this.refresh();
      }}>Older</button>
    </div>`;
  }
}
