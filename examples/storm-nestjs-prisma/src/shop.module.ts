import { Global, Module } from '@nestjs/common';
import { configFromEnv, SHOP_CONFIG, type ShopConfig } from './config.js';
import { PrismaService } from './prisma.service.js';
import { STRIPE, stripeClient } from './stripe-client.js';

/** The shop's configuration (from the environment), its Prisma client and its Stripe SDK, for every module. */
@Global()
@Module({
  providers: [
    { provide: SHOP_CONFIG, useFactory: () => configFromEnv() },
    { provide: STRIPE, useFactory: (config: ShopConfig) => stripeClient(config), inject: [SHOP_CONFIG] },
    PrismaService,
  ],
  exports: [SHOP_CONFIG, STRIPE, PrismaService],
})
export class ShopModule {}
