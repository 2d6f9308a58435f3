import { MemoryStore } from '../../../packages/payonce/src/stores/memory/memory-store.js';
import type { TestBackend } from '../backend.js';

/** Memory has one namespace per process: every `open()` shares the same map, as two guards in one worker would. */
export async function memoryBackend(): Promise<TestBackend> {
  const store = new MemoryStore();
  return { name: 'memory', open: async () => store, cleanup: async () => {} };
}
