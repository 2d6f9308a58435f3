// describeStorm in a jest suite, on jest's globals (no `runner` option): scenario 8 passes against the reference
// service; against an adapter that creates no order it fails (the failure names its seed); scenario 14 needs
// `capabilities.jobs`, which that adapter object lacks, so it is registered as a skipped test.
import { describeStorm } from '@payonce/storm/testing';
import { referenceApp } from './reference-app.mjs';

describeStorm(referenceApp, {
  name: 'storm under jest',
  only: [8],
  appUrl: process.env.PAYONCE_JEST_STORM_APP_URL,
  timeoutMs: 15_000,
});

const fail = () => Promise.reject(new Error('this adapter runs no scenario'));
const noJobs = {
  name: 'no jobs',
  capabilities: {},
  health: async () => {},
  webhookUrl: () => 'http://127.0.0.1:9/webhooks/stripe',
  createOrder: fail,
  startPayment: fail,
  readOrder: fail,
};
describeStorm(noJobs, { name: 'storm under jest, adapter without jobs', only: [14] });

// The same adapter through a factory: scenario 8 runs, cannot create an order, and fails naming its seed.
describeStorm(() => noJobs, { name: 'storm under jest, app without orders', only: [8], seed: 5, timeoutMs: 5_000 });
