import { settled } from '../../stores/sql/support/group-gate.js';

/**
 * The gate of an intake's group-commit batch (an intake with one batch slot): a gate delivery, whose event id starts
 * with `evt_gate`, holds the only transaction in its handler (`pass`) until the deliveries sent after it queued, so
 * that they run as ONE batch.
 */
export class BatchGate {
  private open: { readonly reached: () => void; readonly release: Promise<void> } | null = null;

  /** First thing in the endpoint's handler: the gate delivery waits here while `inOneBatch` queues the others. */
  async pass(eventId: string | null | undefined): Promise<void> {
    const open = this.open;
    if (open === null || !eventId?.startsWith('evt_gate')) return;
    open.reached();
    await open.release;
  }

  /**
   * Sends the gate delivery (`deliverGate`), then, once it holds the slot, the others (`deliverAll`), and opens the
   * gate when they have queued; resolves with both answers.
   */
  async inOneBatch<G, T>(
    deliverGate: () => Promise<G>,
    deliverAll: () => Promise<T>,
  ): Promise<{ gate: G; answers: T }> {
    let reached!: () => void;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    this.open = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
    const gated = deliverGate();
    await atGate;
    const answers = deliverAll();
    await settled();
    release();
    this.open = null;
    return { gate: await gated, answers: await answers };
  }
}
