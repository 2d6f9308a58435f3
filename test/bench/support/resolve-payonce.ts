// Prints where a bench process loads a payonce module from (test/bench/compiled-payonce.test.ts).
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';

process.stdout.write(
  `${import.meta.resolve('../../../packages/payonce/src/core/request-key.js')} ${typeof RequestKey}\n`,
);
