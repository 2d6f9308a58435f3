import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CliUsageError } from '../../packages/cli/src/cli-usage-error.js';
import { DEMO_SERVICE_TIMINGS } from '../../packages/cli/src/demo/demo-service-timings.js';
import { parseOnlyScenarios } from '../../packages/cli/src/demo/only-scenarios.js';
import { payonceBin, serviceLaunch } from '../../packages/cli/src/demo/service-launch.js';

describe('payonce demo: --only', () => {
  it('reads scenario numbers ascending without duplicates', () => {
    expect(parseOnlyScenarios('12,1, 8,8')).toEqual([1, 8, 12]);
    expect(parseOnlyScenarios('18')).toEqual([18]);
    expect(parseOnlyScenarios('')).toEqual([]);
    expect(parseOnlyScenarios('none')).toEqual([]);
  });

  it.each(['0', '23', 'x', '1.5', '-3', '1,,x', '1e1'])('rejects %j with a usage error', (value) => {
    expect(() => parseOnlyScenarios(value)).toThrow(CliUsageError);
    expect(() => parseOnlyScenarios(value)).toThrow(/scenario number from 1 to 22/);
  });
});

describe('payonce demo: the service child', () => {
  const launch = serviceLaunch({
    port: 4567,
    databaseUrl: 'postgres://demo:placeholder-password@127.0.0.1:5432/test',
    providerUrl: 'http://127.0.0.1:4568',
    stripeWebhookSecret: 'whsec_placeholderstripe',
    standardWebhooksSecret: 'whsec_cGxhY2Vob2xkZXItc3RhbmRhcmQtd2ViaG9va3M=',
    adminToken: 'placeholder-admin-token',
    paymeKey: 'placeholder-payme-key',
    timings: DEMO_SERVICE_TIMINGS,
    baseEnv: {
      PATH: '/usr/bin',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PORT: '9999',
      DATABASE_URL: 'elsewhere.db',
      PAYONCE_PAYME_KEY: 'parent-payme-key',
      PAYONCE_PAYME_ACCOUNT_FIELD: 'parent_field',
    },
  });

  it('runs the package bin/payonce-cli.js, whatever the working directory', () => {
    expect(launch.script).toBe(payonceBin());
    expect(launch.script.endsWith('/bin/payonce-cli.js')).toBe(true);
    expect(existsSync(launch.script)).toBe(true);
  });

  it('passes port and compressed timings as serve flags, and no secret on the command line', () => {
    expect(launch.args[0]).toBe('serve');
    const flag = (name: string) => launch.args[launch.args.indexOf(name) + 1];
    expect(flag('--port')).toBe('4567');
    expect(flag('--host')).toBe('127.0.0.1');
    expect(flag('--worker-poll-ms')).toBe('20');
    expect(flag('--lease-ms')).toBe('1500');
    expect(flag('--fulfil-delay-ms')).toBe('150');
    expect(flag('--provider-timeout-ms')).toBe('1000');
    expect(Number(flag('--reconcile-after-ms'))).toBeLessThan(Number(flag('--lease-ms')));
    const commandLine = launch.args.join(' ');
    for (const secret of ['placeholder-password', 'whsec_', 'placeholder-admin-token', 'placeholder-payme-key']) {
      expect(commandLine).not.toContain(secret);
    }
    expect(launch.url).toBe('http://127.0.0.1:4567');
    expect(launch.healthUrl).toBe('http://127.0.0.1:4567/healthz');
  });

  it('puts database, provider, secrets, admin token and Payme key in the environment, drops the parent REDIS_URL, PORT and Payme settings', () => {
    expect(launch.env).toMatchObject({
      PATH: '/usr/bin',
      DATABASE_URL: 'postgres://demo:placeholder-password@127.0.0.1:5432/test',
      PAYONCE_PROVIDER_URL: 'http://127.0.0.1:4568',
      STRIPE_WEBHOOK_SECRET: 'whsec_placeholderstripe',
      STANDARD_WEBHOOKS_SECRET: 'whsec_cGxhY2Vob2xkZXItc3RhbmRhcmQtd2ViaG9va3M=',
      PAYONCE_ADMIN_TOKEN: 'placeholder-admin-token',
      PAYONCE_PAYME_KEY: 'placeholder-payme-key',
    });
    expect(launch.env.REDIS_URL).toBeUndefined();
    expect(launch.env.PORT).toBeUndefined();
    expect(launch.env.PAYONCE_PAYME_ACCOUNT_FIELD).toBeUndefined();
  });

  it('leaves /payme off without a paymeKey, whatever the parent says', () => {
    const plain = serviceLaunch({
      port: 4567,
      databaseUrl: 'payonce.sqlite',
      providerUrl: 'http://127.0.0.1:4568',
      stripeWebhookSecret: 'whsec_placeholderstripe',
      standardWebhooksSecret: 'whsec_cGxhY2Vob2xkZXItc3RhbmRhcmQtd2ViaG9va3M=',
      adminToken: 'placeholder-admin-token',
      timings: DEMO_SERVICE_TIMINGS,
      baseEnv: { PAYONCE_PAYME_KEY: 'parent-payme-key' },
    });
    expect(plain.env.PAYONCE_PAYME_KEY).toBeUndefined();
  });
});
