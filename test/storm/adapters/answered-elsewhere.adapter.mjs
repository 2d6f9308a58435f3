// An adapter whose health() passes whether or not the started app runs (as when another process answers on the
// app's port): it waits for the marker file the start command writes (PAYONCE_TEST_MARKER), then 300 ms more.
import { access } from 'node:fs/promises';

export default function adapter(setup) {
  const fail = () => Promise.reject(new Error('no orders here'));
  return {
    name: 'answered elsewhere',
    async health() {
      for (;;) {
        if (
          await access(process.env.PAYONCE_TEST_MARKER).then(
            () => true,
            () => false,
          )
        )
          break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    },
    webhookUrl: () => `${setup.appUrl}/webhooks/stripe`,
    createOrder: fail,
    startPayment: fail,
    readOrder: fail,
  };
}
