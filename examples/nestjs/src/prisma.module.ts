import { Global, Module } from '@nestjs/common';
import { configFromEnv, SHOP_CONFIG } from './config.js';
import { PrismaService } from './prisma.service.js';

/** The shop's configuration (from the environment) and its Prisma client, for every module. */
@Global()
@Module({
  providers: [{ provide: SHOP_CONFIG, useFactory: () => configFromEnv() }, PrismaService],
  exports: [SHOP_CONFIG, PrismaService],
})
export class PrismaModule {}
