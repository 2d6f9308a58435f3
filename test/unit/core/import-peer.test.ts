import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  importPeer,
  importWithPeers,
  installArgumentOf,
  MissingPeer,
  requirePeer,
} from '../../../packages/payonce/src/core/import-peer.js';

const absent = 'payonce-test-no-such-package';

/**
 * Whether `suggested` (a major such as `8`, or an exact version) is accepted by `range`, for the range forms the
 * manifests use: `^M.m.p`, `>=M.m.p`, an exact version, joined by `||`.
 */
function accepts(range: string, suggested: string): boolean {
  const major = Number(suggested.split('.')[0]);
  return range.split('||').some((part) => {
    const alternative = part.trim();
    const lower = Number(alternative.replace(/^(\^|>=)/, '').split('.')[0]);
    if (alternative.startsWith('^')) return major === lower;
    if (alternative.startsWith('>=')) return major >= lower;
    return alternative === suggested;
  });
}

describe('importPeer', () => {
  it('names what needs the package, the package and the install line instead of a module-resolution stack', async () => {
    const failure = importPeer(absent, 'payonce/observe');
    await expect(failure).rejects.toBeInstanceOf(MissingPeer);
    await expect(failure).rejects.toThrow(`payonce/observe needs the package "${absent}": npm install ${absent}`);
    await expect(failure).rejects.toMatchObject({ code: 'MISSING_PEER_DEPENDENCY', packageName: absent });
  });

  it('suggests the supported major version of a known optional peer', () => {
    expect(new MissingPeer('fastify', 'payonce demo').message).toBe(
      'payonce demo needs the package "fastify": npm install fastify@5',
    );
  });

  it('passes the loaded module through and rethrows any other error unchanged', async () => {
    await expect(importPeer('pg', 'PostgresStore', async () => 42)).resolves.toBe(42);
    const other = new Error('boom');
    await expect(importPeer('pg', 'PostgresStore', async () => Promise.reject(other))).rejects.toBe(other);
  });

  it('rethrows a missing package other than the peer it loads (a broken install) unchanged', async () => {
    const failure = importPeer('pg', 'PostgresStore', () => import(/* @vite-ignore */ absent));
    await expect(failure).rejects.not.toBeInstanceOf(MissingPeer);
  });
});

describe('importWithPeers', () => {
  it('names whichever package the loaded module could not find', async () => {
    const failure = importWithPeers('payonce serve', () => import(/* @vite-ignore */ `${absent}/sub.js`));
    await expect(failure).rejects.toBeInstanceOf(MissingPeer);
    await expect(failure).rejects.toMatchObject({ packageName: absent });
  });

  it('rethrows a missing relative file unchanged', async () => {
    const missingFile = './no-such-file.js';
    const failure = importWithPeers('payonce serve', () => import(/* @vite-ignore */ missingFile));
    await expect(failure).rejects.not.toBeInstanceOf(MissingPeer);
  });
});

describe('requirePeer', () => {
  it('loads a CommonJS peer synchronously', () => {
    expect(typeof requirePeer<{ Registry: unknown }>('prom-client', 'payonce/observe').Registry).toBe('function');
  });

  it('throws MissingPeer for an absent package', () => {
    expect(() => requirePeer(absent, 'payonce/observe')).toThrow(MissingPeer);
  });
});

describe('the install suggestions', () => {
  it('satisfy the peer range of every optional peer of the library and the command line', () => {
    for (const dir of ['payonce', 'cli']) {
      const manifest = JSON.parse(
        readFileSync(new URL(`../../../packages/${dir}/package.json`, import.meta.url), 'utf8'),
      ) as { peerDependencies: Record<string, string> };
      for (const [name, range] of Object.entries(manifest.peerDependencies)) {
        const suggestion = installArgumentOf(name);
        expect(suggestion, `${dir}: ${name}`).toMatch(new RegExp(`^${name.replace('/', '\\/')}@`));
        const version = suggestion.slice(name.length + 1);
        expect(accepts(range, version), `${suggestion} vs ${range}`).toBe(true);
      }
    }
  });
});
