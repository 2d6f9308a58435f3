import { defineConfig } from 'prisma/config';

// `npx prisma generate` / `npx prisma migrate deploy` from examples/storm-nestjs-prisma.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
});
