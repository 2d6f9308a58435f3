// The adapter of dying-app.mjs: orders over HTTP; a checkout the app "accepts" without ever calling the sandbox,
// so every scenario that pays would wait for the provider's payment until its budget ran out.
export default function adapter(setup) {
  const answer = async (response) => {
    const text = await response.text();
    return { status: response.status, headers: {}, text, json: text === '' ? null : JSON.parse(text) };
  };
  return {
    name: 'dying app',
    async health() {
      const response = await fetch(`${setup.appUrl}/healthz`);
      if (response.status !== 200) throw new Error(`GET /healthz answered ${response.status}`);
    },
    webhookUrl: () => `${setup.appUrl}/webhooks/stripe`,
    async createOrder() {
      const created = await answer(await fetch(`${setup.appUrl}/orders`, { method: 'POST' }));
      return { ...created, orderId: created.json?.orderId ?? null };
    },
    async startPayment() {
      const ok = { status: 201, headers: {}, text: '{}', json: {} };
      return { ...ok, attemptId: 'attempt-1', attemptStatus: 'pending', providerPaymentId: null, outcome: 'created' };
    },
    async readOrder({ orderId }) {
      const read = await answer(await fetch(`${setup.appUrl}/orders/${orderId}`));
      if (read.status !== 200) throw new Error(`GET /orders/${orderId} answered ${read.status}`);
      return read.json;
    },
  };
}
