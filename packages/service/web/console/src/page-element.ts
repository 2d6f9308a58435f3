import { html, LitElement, nothing, type TemplateResult } from 'lit';
import { ApiError, post } from './api.js';
import { confirmDialog } from './confirm-dialog.js';

/** A console page: rendered in the light DOM (the global theme applies), with a flash line and confirmed actions. */
export class PageElement extends LitElement {
  static override properties = { flash: { state: true }, flashBad: { state: true }, loading: { state: true } };
  declare flash: string;
  declare flashBad: boolean;
  declare loading: boolean;

  constructor() {
    super();
    this.flash = '';
    this.flashBad = false;
    this.loading = false;
  }

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  /** The flash line (result of the last action), or nothing. */
  protected flashLine(): TemplateResult | typeof nothing {
    if (!this.flash) return nothing;
    return html`<p class="flash ${this.flashBad ? 'bad' : ''}" data-testid="flash" role="status">${this.flash}</p>`;
  }

  /** Shows `message` as the page's flash line. */
  protected say(message: string, bad = false): void {
    this.flash = message;
    this.flashBad = bad;
  }

  /**
   * Asks for confirmation, then POSTs the action once with one Idempotency-Key (made before the dialog opens, so a
   * double click or a retry of the same confirmation is the same request). Returns the answer, or `null` when
   * cancelled or refused (the refusal is shown).
   */
  protected async act<T>(title: string, message: string, path: string, body: unknown): Promise<T | null> {
    const key = crypto.randomUUID();
    const confirmed = await confirmDialog(title, message);
    if (!confirmed) return null;
    try {
      return await post<T>(path, body, key);
    } catch (error) {
      const text = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
      this.say(`Refused — ${text}`, true);
      return null;
    }
  }

  /** Runs a read and shows its error as the flash line. */
  protected async load(read: () => Promise<void>): Promise<void> {
    this.loading = true;
    try {
      await read();
    } catch (error) {
      const text = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
      this.say(text, true);
    } finally {
      this.loading = false;
    }
  }
}

/** A status pill. */
export function pill(status: string, toneName: string): TemplateResult {
  return html`<span class="pill ${toneName}">${status}</span>`;
}
