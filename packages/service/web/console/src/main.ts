import './theme.css';
import { html, LitElement, type TemplateResult } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import { loadSession, logout, operatorName } from './api.js';
import './pages/actions-page.js';
import './pages/attempts-page.js';
import './pages/deliveries-page.js';
import './pages/jobs-page.js';
import './pages/order-page.js';
import './pages/orders-page.js';
import './pages/overview-page.js';
import './pages/provider-transactions-page.js';
import './pages/receipts-page.js';

const NAV = [
  ['overview', 'Overview'],
  ['receipts', 'Receipts'],
  ['deliveries', 'Deliveries'],
  ['jobs', 'Jobs'],
  ['attempts', 'Attempts'],
  ['orders', 'Orders'],
  ['provider-transactions', 'Provider transactions'],
  ['actions', 'Actions'],
] as const;

/** The console shell: navigation and the page of the hash route (`#/<page>[/<id>][?filters]`). */
class ConsoleApp extends LitElement {
  static override properties = { route: { state: true }, ready: { state: true } };
  declare route: string;
  declare ready: boolean;

  constructor() {
    super();
    this.route = '';
    this.ready = false;
  }

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('hashchange', () => {
      this.route = window.location.hash;
    });
    this.route = window.location.hash || '#/overview';
    void loadSession().then(() => {
      this.ready = true;
    });
  }

  private page(): TemplateResult {
    const [path = ''] = this.route.replace(/^#\/?/, '').split('?');
    const [name, id] = path.split('/');
    switch (name) {
      case 'receipts':
        return html`<po-receipts></po-receipts>`;
      case 'deliveries':
        return html`<po-deliveries></po-deliveries>`;
      case 'jobs':
        return html`<po-jobs></po-jobs>`;
      case 'attempts':
        return html`<po-attempts></po-attempts>`;
      case 'orders':
        return id ? html`<po-order .orderId=${decodeURIComponent(id)}></po-order>` : html`<po-orders></po-orders>`;
      case 'provider-transactions':
        return html`<po-provider-transactions></po-provider-transactions>`;
      case 'actions':
        return html`<po-actions></po-actions>`;
      default:
        return html`<po-overview></po-overview>`;
    }
  }

  override render() {
    const current = (this.route.replace(/^#\/?/, '').split(/[/?]/)[0] || 'overview') as string;
    // A new element per route (keyed by the whole hash) so each page loads its data when shown.
    return html`<div class="shell">
      <nav class="nav">
        <div class="brand">payonce <span>console</span></div>
        ${NAV.map(([id, label]) => html`<a href=${`#/${id}`} class=${current === id ? 'active' : ''} data-nav=${id}>${label}</a>`)}
        <div class="who">operator <strong data-testid="operator">${operatorName()}</strong><br />
          <button @click=${() => logout()}>Log out</button></div>
      </nav>
      <main class="main">${this.ready ? keyed(this.route, this.page()) : html`<p class="muted">Loading…</p>`}</main>
    </div>`;
  }
}

customElements.define('payonce-console', ConsoleApp);
