import { type Charge, type ChargeInput, ProviderUnavailable } from '../../../examples/shared/payments-api.js';

/** What one charge call does: succeed, wait for a gate, report the provider down (503), or throw (500). */
export type Step =
  | { kind: 'ok' }
  | { kind: 'gate'; until: Promise<void> }
  | { kind: 'unavailable' }
  | { kind: 'throw' };

/**
 * The payment provider port of the examples, scripted per `reference`: each call takes the next step of its
 * reference's script (then succeeds). Every call is recorded, so a test counts how often the route handler ran.
 */
export class FakeProvider {
  readonly calls: ChargeInput[] = [];
  private readonly scripts = new Map<string, Step[]>();
  private readonly started = new Map<string, () => void>();

  readonly charge: Charge = async (input) => {
    this.calls.push(input);
    this.started.get(input.reference)?.();
    const step = this.scripts.get(input.reference)?.shift() ?? { kind: 'ok' };
    if (step.kind === 'gate') await step.until;
    if (step.kind === 'unavailable') throw new ProviderUnavailable();
    if (step.kind === 'throw') throw new Error('unexpected provider response');
    return { id: `pay_${input.reference}_${this.count(input.reference)}` };
  };

  /** Sets the steps of the next calls for `reference`. */
  script(reference: string, ...steps: Step[]): void {
    this.scripts.set(reference, steps);
  }

  /** Resolves when the handler first calls the provider for `reference` (the key is then claimed). */
  whenCalled(reference: string): Promise<void> {
    return new Promise((resolve) => this.started.set(reference, resolve));
  }

  /** How many times the route handler reached the provider for `reference`. */
  count(reference: string): number {
    return this.calls.filter((call) => call.reference === reference).length;
  }
}
