// FAULTY, as an adapter file: the reference service accepting any webhook as authentic (scenarios 10 and 18 fail).
import type { StormAppSetup } from '@payonce/storm';
import { inProcessReferenceApp } from './reference-app.js';

export default (setup: StormAppSetup) =>
  inProcessReferenceApp(setup, {
    signatureScheme: (_endpoint, byDefault) => ({
      name: byDefault.name,
      verify: () => ({ ok: true, scheme: byDefault.name, secretIndex: 0, timestampSec: null }),
    }),
  });
