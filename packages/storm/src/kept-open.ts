import type { StormAppAdapter } from './app/storm-app-adapter.js';

/**
 * `app` without its `close`, so `runStorm` (which closes the adapter it is given) leaves it open for the next run;
 * the caller closes `app` itself. Methods are delegated, so a class-based adapter keeps its `this`.
 */
export function keptOpen(app: StormAppAdapter): StormAppAdapter {
  return {
    name: app.name,
    health: () => app.health(),
    webhookUrl: (scheme, replica) => app.webhookUrl(scheme, replica),
    createOrder: (call) => app.createOrder(call),
    startPayment: (call) => app.startPayment(call),
    readOrder: (call) => app.readOrder(call),
    ...(app.capabilities === undefined ? {} : { capabilities: app.capabilities }),
  };
}
