// A plain-JavaScript adapter file for healthz-app.mjs: it can only answer /healthz, and checks that the started app
// got the storm's setup in its environment. No scenario applies without replicas: --only 19 is skipped. It declares
// no Payme, Click or Uzum endpoint: under --provider payme, click or uzum every scenario of that storm is skipped.
export default function adapter(setup) {
  const fail = () => Promise.reject(new Error('healthz-app has no orders'));
  return {
    name: 'healthz app',
    async health() {
      const answer = await fetch(`${setup.appUrl}/healthz`);
      const seen = await answer.json();
      for (const key of ['appUrl', 'sandboxUrl', 'webhookSecret', 'apiKey']) {
        if (seen[key] !== setup[key]) throw new Error(`the app got ${key} ${seen[key]}, not ${setup[key]}`);
      }
      const paymeKey = setup.providers?.paymeKey;
      if (!paymeKey || seen.paymeKey !== paymeKey)
        throw new Error(`the app got paymeKey ${seen.paymeKey}, not ${paymeKey}`);
      globalThis.stormHealthzAppPid = seen.pid;
    },
    webhookUrl: () => `${setup.appUrl}/webhooks/stripe`,
    createOrder: fail,
    startPayment: fail,
    readOrder: fail,
  };
}
