import 'reflect-metadata';
import type { INestApplication, Type } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';

/** The two HTTP platforms of NestJS payonce/nestjs supports. */
export const PLATFORMS = ['express', 'fastify'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Boots `module` on `platform` with `rawBody: true`, listening on an ephemeral port of 127.0.0.1. */
export async function bootNest(
  module: Type<unknown>,
  platform: Platform,
): Promise<{ app: INestApplication; url: string }> {
  const ref = await Test.createTestingModule({ imports: [module] }).compile();
  const app =
    platform === 'fastify'
      ? ref.createNestApplication(new FastifyAdapter(), { rawBody: true, logger: false })
      : ref.createNestApplication({ rawBody: true, logger: false });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url };
}

/** POSTs `body` (a string, sent as its bytes) with `headers`; the answer with its body as text. */
export async function postText(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
