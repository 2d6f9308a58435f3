// Bench processes load every payonce module under src/ from its compiled copy in dist/ (what `npm run build` emits and
// what a deployment of the package runs), not through tsx's transform of the TypeScript. tsx keeps function names by
// wrapping every named function and closure in a `__name(…)` call, which defines a property each time a closure is
// created: a per-request tax the published package does not pay. The bench's own TypeScript (harness, side scripts,
// the hand-written subjects) still runs under tsx. Load it after tsx (the hook registered last runs first):
//   node --import tsx --import ./bench/lib/compiled-payonce.mjs <script>
// `bench/lib/side-node-args.ts` builds that command line and checks that dist/ is not older than src/.
import { register } from 'node:module';

const root = new URL('../../', import.meta.url);
register('./compiled-payonce-hooks.mjs', { parentURL: import.meta.url, data: { root: root.href } });
