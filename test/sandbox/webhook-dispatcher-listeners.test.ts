import { afterEach, describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../../packages/sandbox/src/webhook-dispatcher.js';

describe('WebhookDispatcher under load', () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  afterEach(() => {
    process.off('warning', onWarning);
    warnings.length = 0;
  });

  it("lets many deliveries and retry waits listen on its closing signal without Node's leak warning", async () => {
    process.on('warning', onWarning);
    const dispatcher = new WebhookDispatcher({
      scheduleMs: [0],
      timeScale: 1,
      deliveryTimeoutMs: 1_000,
      nowMs: () => Date.now(),
    });
    // 50 retry waits at once, each listening for the dispatcher's close (the soak has hundreds of deliveries in flight).
    const waits = Array.from({ length: 50 }, () => dispatcher.wait(60_000));
    await new Promise((resolve) => setImmediate(resolve));
    await dispatcher.close();
    await Promise.all(waits); // closing ends every wait at once
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
