import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest (measured 2026-12-07: whole storms, example apps under tsx, fresh installs,
 * three-dialect conformance with SIGKILLs), longest first. Without a cache of earlier runs (a fresh clone in CI)
 * vitest starts the larger files first, and most of these are small files that drive a lot: started last, they
 * made a tail of minutes with one worker busy and two idle.
 */
const HEAVY = [
  'test/cli/demo-servers.test.ts',
  'test/storm/storm-example-providers.test.ts',
  'test/packaging/stack-fresh-app.test.ts',
  'test/relay/relay-storm-postgres.test.ts',
  'test/relay/relay-storm-sqlite.test.ts',
  'test/docs/docs-run.test.ts',
  'test/stack/conformance-postgres.test.ts',
  'test/stack/conformance-mysql.test.ts',
  'test/stack/conformance-sqlite.test.ts',
  'test/cli/demo.test.ts',
  'test/sandbox/storm-processes.test.ts',
  'test/http/idempotency-behaviour.test.ts',
  'test/contract/store-contract.test.ts',
  'test/service/serve-process.test.ts',
  'test/stores/redis/attack/hammer.test.ts',
  'test/stores/sql/drizzle-kit-push.test.ts',
  'test/service/orders-crash.test.ts',
  'test/webhooks/one-commit-acceptance.test.ts',
  'test/replay/real-input.test.ts',
];

/** Runs the files of {@link HEAVY} first, in its order, then the rest in vitest's own order. */
export class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = HEAVY.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return at === -1 ? HEAVY.length : at;
    };
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
