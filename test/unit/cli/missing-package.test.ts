import { describe, expect, it } from 'vitest';
import { loadCommand, MissingPackage } from '../../../packages/cli/src/missing-package.js';

describe('loadCommand', () => {
  it('names the missing package and the install line instead of a module-resolution stack', async () => {
    const pkg = 'payonce-test-no-such-package';
    const failure = loadCommand('serve', () => import(/* @vite-ignore */ pkg));
    await expect(failure).rejects.toBeInstanceOf(MissingPackage);
    await expect(failure).rejects.toThrow(`payonce serve needs the package "${pkg}": npm install ${pkg}`);
  });

  it('suggests the supported major version of a known optional peer', () => {
    expect(new MissingPackage('demo', 'fastify').message).toBe(
      'payonce demo needs the package "fastify": npm install fastify@5',
    );
  });

  it('passes the loaded module through and rethrows any other error unchanged', async () => {
    await expect(loadCommand('serve', async () => 42)).resolves.toBe(42);
    const other = new Error('boom');
    await expect(loadCommand('serve', async () => Promise.reject(other))).rejects.toBe(other);
  });
});
