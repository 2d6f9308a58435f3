import { describe, expect, it } from 'vitest';
import { targetProblems } from '../lib/target-files.js';
import { loadSubject } from '../subjects/load-subject.js';
import { OTEL_BASE_DIST_ENV } from '../subjects/payonce-base.js';
import { targets } from '../targets/otel.js';

describe('the OpenTelemetry targets (targets/otel.ts)', () => {
  it('are the four otel-guard rows, well formed, each with the goal 0.95', () => {
    expect(targetProblems('otel.ts', targets)).toEqual([]);
    expect(targets.map((t) => t.id)).toEqual([
      'otel-guard-sdk-vs-none-redis',
      'otel-guard-sdk-vs-none-postgres',
      'otel-guard-none-vs-before-redis',
      'otel-guard-none-vs-before-postgres',
    ]);
    for (const target of targets) expect(target.min).toBe(0.95);
  });

  it('run the same workload on both sides of a pair; only the subject differs', () => {
    const withoutSubject = (args: readonly string[]) => args.filter((_, i) => i !== 1);
    for (const target of targets) {
      expect(target.a.args[0]).toBe('--subject');
      expect(withoutSubject(target.a.args)).toEqual(withoutSubject(target.b.args));
      expect(target.a.backend).toBe(target.b.backend);
    }
  });

  it('load their subjects: the SDK row registers an SDK; the baseline row needs the built baseline', async () => {
    const sdk = await loadSubject('redis/payonce-otel');
    expect(sdk.id).toBe('redis/payonce-otel');
    expect(sdk.kind).toBe('payonce');
    const saved = process.env[OTEL_BASE_DIST_ENV];
    delete process.env[OTEL_BASE_DIST_ENV];
    try {
      await expect(loadSubject('postgres/payonce-base')).rejects.toThrow(OTEL_BASE_DIST_ENV);
    } finally {
      if (saved !== undefined) process.env[OTEL_BASE_DIST_ENV] = saved;
    }
  });
});
