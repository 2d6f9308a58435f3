'use strict';
/**
 * The `require` condition of every entry point of payonce (package.json `exports`). payonce is an ES module
 * package (`"type": "module"`, top-level `import`/`export`), so `require('payonce')` and `require('payonce/…')`
 * cannot load it; without this file Node would answer ERR_PACKAGE_PATH_NOT_EXPORTED, which does not say why.
 * This file throws an error that does: code `ERR_REQUIRE_ESM` (Node's own code for requiring an ES module).
 * @throws {Error} always, with `code: 'ERR_REQUIRE_ESM'`.
 * @see README "Quick example"; Node.js "Modules: Packages" (conditional exports).
 */
const error = new Error(
  'payonce is ESM only: it cannot be loaded with require(). Use `import { IdempotencyGuard } from "payonce"` in an ' +
    'ES module (a .mjs file, or "type": "module" in package.json), or `const payonce = await import("payonce")` ' +
    'from CommonJS.',
);
error.code = 'ERR_REQUIRE_ESM';
throw error;
