import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StormAppAdapter, StormAppSetup } from '@payonce/storm/internal/app/storm-app-adapter.js';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import { CliUsageError } from '../cli-usage-error.js';

/** The factory an adapter file's default export is turned into (a plain adapter object ignores the setup). */
export type StormAdapterFactory = (setup: StormAppSetup) => Promise<StormAppAdapter>;

const TYPESCRIPT = /\.(ts|mts|cts|tsx)$/;

async function importModule(url: string, file: string): Promise<Record<string, unknown>> {
  if (!TYPESCRIPT.test(file)) return (await import(url)) as Record<string, unknown>;
  // TypeScript goes through tsx (an optional peer of @payonce/cli), scoped to this one import.
  const tsx = await importWithPeers(`payonce storm --adapter ${file}`, () => import('tsx/esm/api'));
  return (await tsx.tsImport(url, import.meta.url)) as Record<string, unknown>;
}

function isAdapter(value: unknown): value is StormAppAdapter {
  const v = value as Partial<StormAppAdapter> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.name === 'string' &&
    ['health', 'webhookUrl', 'createOrder', 'startPayment', 'readOrder'].every(
      (method) => typeof (v as Record<string, unknown>)[method] === 'function',
    )
  );
}

/**
 * Loads `payonce storm --adapter FILE` (docs/storm-your-app.md): a TypeScript file through tsx, or plain JavaScript,
 * whose default export is a factory `(setup: StormAppSetup) => StormAppAdapter | Promise<StormAppAdapter>` (or an
 * adapter object). The factory returned checks what the default export made.
 * @throws {CliUsageError} the file does not exist, or has no default export of that shape (exit status 2).
 * @throws {MissingPeer} a `.ts` file and `tsx` is not installed (`npm install tsx`).
 * @throws whatever the file throws while it loads.
 */
export async function loadStormAdapter(file: string): Promise<StormAdapterFactory> {
  const path = resolve(file);
  const exists = await access(path).then(
    () => true,
    () => false,
  );
  if (!exists) throw new CliUsageError(`--adapter ${file}: no such file (payonce storm init writes a template)`);
  const module = await importModule(pathToFileURL(path).href, file);
  // tsx hands a CommonJS-shaped module's default over as `default.default`.
  let exported = module.default;
  if (typeof exported === 'object' && exported !== null && 'default' in exported && !isAdapter(exported)) {
    exported = (exported as { default: unknown }).default;
  }
  const shape = 'a default export (setup) => StormAppAdapter, or an adapter object';
  if (typeof exported !== 'function' && !isAdapter(exported)) {
    throw new CliUsageError(`--adapter ${file} must have ${shape}`);
  }
  return async (setup) => {
    const adapter: unknown = typeof exported === 'function' ? await exported(setup) : exported;
    if (!isAdapter(adapter)) {
      throw new CliUsageError(
        `--adapter ${file}: the default export made no StormAppAdapter (needs name, health, webhookUrl, createOrder, startPayment, readOrder)`,
      );
    }
    return adapter;
  };
}
