// Generates the Prisma clients of the stack suite (test/stack/prisma/<database>.prisma → test/stack/prisma/generated/
// <database>/), of the Prisma guide's doc blocks (test/docs/prisma/schema.prisma → test/docs/prisma/generated/) and of the
// NestJS example (examples/nestjs/prisma/schema.prisma → examples/nestjs/src/generated/prisma/; all
// gitignored) with the Prisma CLI of the root devDependencies. Offline: `prisma generate` looks for the
// schema engine at start (and would download it), so PRISMA_SCHEMA_ENGINE_BINARY points at a stub that is never asked
// for work, and PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING=1 stops the checksum download. A client newer than its schema
// and than the CLI is kept. Run by `npm run pretest` (the type check and the suite import the clients).
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const folder = `${root}test/stack/prisma/`;
const cli = `${root}node_modules/prisma/build/index.js`;
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: `${folder}schema-engine-stub.sh`,
  PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

/** Each schema and the client file it generates: the stack suite's, one per database, and the Prisma guide's. */
const SCHEMAS = [
  ...['postgres', 'mysql', 'sqlite'].map((database) => ({
    schema: `${folder}${database}.prisma`,
    client: `${folder}generated/${database}/client.ts`,
  })),
  // docs/your-stack.md "Prisma": its schema block is this file; test/docs/docs-run.test.ts links the client in.
  { schema: `${root}test/docs/prisma/schema.prisma`, client: `${root}test/docs/prisma/generated/prisma/client.ts` },
  // The NestJS example app (examples/nestjs): its Prisma client, imported by its e2e test.
  {
    schema: `${root}examples/nestjs/prisma/schema.prisma`,
    client: `${root}examples/nestjs/src/generated/prisma/client.ts`,
  },
];

for (const { schema, client } of SCHEMAS) {
  if (mtime(client) > Math.max(mtime(schema), mtime(cli))) continue;
  execFileSync(process.execPath, [cli, 'generate', '--schema', schema], { cwd: root, env, stdio: 'inherit' });
}
