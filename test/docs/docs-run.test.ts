/**
 * THE DOC TEST: every TypeScript code block (```ts / ```typescript) of README.md and docs/*.md is a complete
 * program, and this test runs each one, so a documented example cannot rot.
 *
 * How (see docs/README.md "Code blocks are tested"):
 * 1. Each block is written verbatim to `.doc-blocks/<run>/<file>-L<line>.ts` inside the repository, so
 *    `import … from 'payonce/…'` resolves to this package's BUILT entry points (dist/, as a user gets them;
 *    `npm test` builds first; run `npm run build` before running this file alone).
 * 2. All blocks are type-checked together with `tsc --noEmit` (strict, NodeNext) against the public types.
 * 3. All blocks are compiled together, once, by esbuild (types stripped, local TypeScript imports such as the Prisma
 *    guide's generated client bundled, `payonce/…` and every other package left as imports) into
 *    `<file>-L<line>.mjs` beside each block, with an inline source map: a failure points at the block's own line.
 * 4. Each block runs as its own process (`node --enable-source-maps`), in a fresh empty working directory (SQLite files
 *    land there), with fresh services in its environment: `DATABASE_URL` (an empty PostgreSQL schema),
 *    `MYSQL_URL` (an empty MariaDB database), `REDIS_URL` + `PAYONCE_REDIS_PREFIX` (a unique key prefix),
 *    `PAYONCE_SCHEMA` (the name of a second empty PostgreSQL schema, for payonce's own tables: `--schema`); the
 *    databases are created only for blocks whose text names `DATABASE_URL` / `MYSQL_URL` / `PAYONCE_SCHEMA`.
 *    It must exit 0 within 90 s on its own (a few seconds on a quiet machine): close what it opens, listen on port 0, call loopback only.
 * A snippet that is not a whole program is not TypeScript for this test: mark it ```text (or ```sh, ```json).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { deleteKeysWithPrefix, redisTestClient, redisTestUrl } from '../contract/backends/redis.js';
import { esbuild } from '../support/ts-child.js';
import { type DocBlock, docFiles, tsBlocks } from './doc-blocks.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const runDir = path.join(root, '.doc-blocks', `${process.pid}-${randomBytes(3).toString('hex')}`);
const blocks: DocBlock[] = docFiles(root).flatMap((file) => tsBlocks(root, file));
/** A block's own limit once it runs (a quiet machine runs each in 2–6 s; a loaded one many times that). */
const BLOCK_TIMEOUT_MS = 90_000;
/**
 * Each block's vitest timeout also covers its wait for a slot (all blocks start at once, two run at a time), so it
 * is the whole file's budget rather than one block's.
 */
const QUEUED_BLOCK_TIMEOUT_MS = 600_000;

const fileOf = (block: DocBlock) => path.join(runDir, `${block.file.replace(/[/.]/g, '_')}-L${block.line}.ts`);
const compiledOf = (block: DocBlock) => fileOf(block).replace(/\.ts$/, '.mjs');

/**
 * Compiles every block at once (one esbuild pass, a fraction of a second) rather than each under `tsx` in its own
 * process (about 0.5 s of CPU more per block): the same transform tsx applies, done once.
 */
async function compileBlocks(): Promise<void> {
  await esbuild.build({
    entryPoints: blocks.map(fileOf),
    outdir: runDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'silent',
  });
}

interface Run {
  readonly code: number | null;
  readonly output: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => {
      output += `\n[doc test] killed after ${timeoutMs} ms: a block must finish on its own`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** At most two blocks run at once: the machine has two cores and other test files run beside this one. */
const slots = { free: 2, waiting: [] as (() => void)[] };
async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  if (slots.free === 0) await new Promise<void>((resolve) => slots.waiting.push(resolve));
  else slots.free -= 1;
  try {
    return await work();
  } finally {
    const next = slots.waiting.shift();
    if (next) next();
    else slots.free += 1;
  }
}

/** Runs one block in a fresh directory with fresh databases, then removes them. */
async function runBlock(block: DocBlock): Promise<Run> {
  return inSlot(() => runFresh(block));
}

async function runFresh(block: DocBlock): Promise<Run> {
  const cwd = await mkdtemp(path.join(tmpdir(), 'payonce-doc-'));
  // Databases only for the blocks that read them (creating them costs a round of DDL per block).
  const none = { url: '', drop: async () => {} };
  const [pg, mysql, payonceSchema] = await Promise.all([
    block.code.includes('DATABASE_URL') ? createPostgresNamespace() : none,
    block.code.includes('MYSQL_URL') ? createMysqlNamespace() : none,
    block.code.includes('PAYONCE_SCHEMA') ? createPostgresNamespace() : { ...none, schema: '' },
  ]);
  const prefix = `payonce-doc-${randomBytes(4).toString('hex')}:`;
  try {
    const env = {
      ...process.env,
      DATABASE_URL: pg.url,
      MYSQL_URL: mysql.url,
      REDIS_URL: redisTestUrl(),
      PAYONCE_REDIS_PREFIX: prefix,
      PAYONCE_SCHEMA: payonceSchema.schema,
      NODE_ENV: 'test',
    };
    return await run(process.execPath, ['--enable-source-maps', compiledOf(block)], cwd, env, BLOCK_TIMEOUT_MS);
  } finally {
    await Promise.all([pg.drop(), mysql.drop(), payonceSchema.drop(), rm(cwd, { recursive: true, force: true })]);
    const redis = redisTestClient();
    await deleteKeysWithPrefix(redis, prefix).finally(() => redis.quit());
  }
}

beforeAll(async () => {
  if (!existsSync(path.join(root, 'packages', 'payonce', 'dist', 'index.js'))) {
    throw new Error(
      'packages/payonce/dist/ is missing: the doc blocks import the built package; run npm run build (npm test does)',
    );
  }
  await mkdir(runDir, { recursive: true });
  // The Prisma guide's blocks import the client generated from test/docs/prisma/schema.prisma (npm run
  // prisma:generate, run by pretest) as a user's file beside its `generated/` folder does.
  await symlink(path.join(root, 'test', 'docs', 'prisma', 'generated'), path.join(runDir, 'generated'));
  for (const block of blocks) await writeFile(fileOf(block), block.code);
  await compileBlocks();
});

afterAll(async () => {
  await rm(runDir, { recursive: true, force: true });
});

describe('TypeScript code blocks of README.md and docs/*.md', () => {
  it('finds the blocks (every doc with examples has some)', () => {
    expect(blocks.length).toBeGreaterThan(5);
  });

  // Concurrent with the blocks below: tsc works on one core while the blocks mostly wait on their databases.
  it.concurrent('type-check against the public API (tsc --noEmit, strict)', async () => {
    const config = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM'],
        types: ['node'],
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        isolatedModules: true,
      },
      include: ['*.ts'],
    };
    await writeFile(path.join(runDir, 'tsconfig.json'), JSON.stringify(config));
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', runDir], runDir, process.env, 120_000);
    const located = result.output.replaceAll(runDir + path.sep, '');
    expect(result.code, located).toBe(0);
  }, 120_000);

  // Blocks run concurrently, two processes at a time (`inSlot`).
  describe.concurrent.each(blocks.map((block) => [`${block.file}:${block.line}`, block] as const))(
    '%s',
    (_name, block) => {
      it(
        'runs to completion (exit 0)',
        async () => {
          const result = await runBlock(block);
          expect(result.code, `${block.file}:${block.line} failed:\n${result.output}`).toBe(0);
        },
        QUEUED_BLOCK_TIMEOUT_MS,
      );
    },
  );
});
