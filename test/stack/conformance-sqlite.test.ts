import { conformanceSuite } from './conformance-cases.js';

// The stack conformance suite (test/stack/conformance-cases.ts) for every adapter whose stack runs on sqlite.
conformanceSuite('sqlite');
