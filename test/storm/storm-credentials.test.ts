import { describe, expect, it } from 'vitest';
import type { ProviderScenario } from '../../packages/storm/src/provider/provider-scenario.js';
import { runProviderScenarios } from '../../packages/storm/src/provider/run-provider-scenarios.js';
import { literalSecrets, redactSecrets } from '../../packages/storm/src/storm-timeline.js';

// Placeholders in the formats the storm's own apps use (packages/cli/src/storm-app/storm-app-world.ts).
const PAYME_KEY = 'storm-payme-key-0f1e2d3c4b5a69788796a5b4';
const CLICK_SECRET = 'storm-click-key-a1b2c3d4e5f60718293a4b5c';
const BOT_TOKEN = '123456:storm-00112233445566778899aabbccddeeff';
const WHSEC = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/K+u+0ZpgaE=';

describe('the credentials a provider storm was given never reach its results', () => {
  it('redacts the run’s own secrets as given, URL-encoded and JSON-escaped, and the known formats', () => {
    const literals = literalSecrets([PAYME_KEY, CLICK_SECRET, '', 'short']);
    const texts = [
      `-32504: expected key ${PAYME_KEY}`,
      `sign_string mismatch (secret ${encodeURIComponent(CLICK_SECRET)})`,
      JSON.stringify({ data: `key "${PAYME_KEY}"` }),
      `bad Authorization: Basic ${Buffer.from(`Paycom:${PAYME_KEY}`).toString('base64')}`,
      `fetch failed: https://api.telegram.org/bot${BOT_TOKEN}/sendInvoice`,
      `secret=${encodeURIComponent(WHSEC)}`,
      JSON.stringify({ secret: WHSEC }).replace(/\//g, '\\/'),
    ];
    for (const text of texts) {
      const out = redactSecrets(text, literals);
      expect(out).toContain('[redacted]');
      for (const fragment of [PAYME_KEY, CLICK_SECRET, 'storm-00112233', 'MfKQ9r8', 'UGF5Y29t']) {
        expect(out).not.toContain(fragment);
      }
    }
    // Words after `Basic` are no credential: a scenario's name stays as written.
    expect(redactSecrets('forged auth: wrong Basic credentials, none', literals)).toBe(
      'forged auth: wrong Basic credentials, none',
    );
    // Shorter than 6 characters is no secret of its own: ordinary words stay.
    expect(redactSecrets('a short answer', literals)).toBe('a short answer');
    // Identifiers stay readable.
    expect(redactSecrets('order 8f299abe-b8a8-4a02 paid by 2019-10-01', literals)).toBe(
      'order 8f299abe-b8a8-4a02 paid by 2019-10-01',
    );
  });

  it('runProviderScenarios returns and reports results without the secrets an app echoed', async () => {
    const result = { id: 1, verdict: 'fail', reasons: [`the app answered: wrong key ${PAYME_KEY}`] };
    const scenario: ProviderScenario<{ conclude(): Promise<typeof result> }, typeof result> = {
      id: 1,
      name: 'echoes the key',
      defends: 'repeated HTTP request',
      criterion: 'none',
      run: (ctx) => ctx.conclude(),
    };
    const progressed: string[] = [];
    const results = await runProviderScenarios({
      scenarios: [scenario],
      timeoutMs: 5_000,
      concurrency: 1,
      secrets: [PAYME_KEY],
      settleMs: 0,
      onProgress: (event) => {
        if (event.kind === 'finished') progressed.push(JSON.stringify(event.result));
      },
      open: () => ({
        conclude: async () => result,
        fail: () => {},
        stop: () => {},
        beginRecheck: () => false,
      }),
    });
    expect(JSON.stringify(results)).not.toContain(PAYME_KEY);
    expect(results[0]?.reasons).toEqual(['the app answered: wrong key [redacted]']);
    expect(progressed.join('')).not.toContain(PAYME_KEY);
  });
});
