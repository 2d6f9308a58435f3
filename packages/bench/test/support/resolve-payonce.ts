// Prints where a bench process loads a payonce module from (test/compiled-payonce.test.ts).
import { RequestKey } from 'payonce/internal/core/request-key.js';

process.stdout.write(`${import.meta.resolve('payonce/internal/core/request-key.js')} ${typeof RequestKey}\n`);
