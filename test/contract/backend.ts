import type { Store } from '../../packages/payonce/src/core/store.js';

/** Every backend the contract suite runs against. Adding a name here is a compile error until it has a factory. */
export type BackendName = 'memory' | 'sqlite' | 'postgres' | 'mysql' | 'redis';

/**
 * One isolated namespace on a real backend (a fresh SQLite file, PostgreSQL schema, MariaDB database or Redis
 * key prefix). `open()` returns a new store on a NEW connection to the same namespace each time, so
 * multi-instance tests really use separate connections; `cleanup()` closes them all and drops the namespace.
 */
export interface TestBackend {
  readonly name: BackendName;
  open(): Promise<Store>;
  cleanup(): Promise<void>;
}

export type BackendFactory = () => Promise<TestBackend>;
