// An adapter file as `payonce storm --adapter` loads it: the reference service, started in the storm's process.
import type { StormAppSetup } from '@payonce/storm';
import { inProcessReferenceApp } from './reference-app.js';

export default (setup: StormAppSetup) => inProcessReferenceApp(setup);
