import { Module } from '@nestjs/common';
import { PayonceModule, payonceWebhookController } from 'payonce/nestjs';
import { SHOP_CONFIG, type ShopConfig } from './config.js';
import { OrdersModule } from './orders/orders.module.js';
import { OrdersService } from './orders/orders.service.js';
import { payonceOptions } from './payonce.js';
import { PrismaModule } from './prisma.module.js';
import { PrismaService } from './prisma.service.js';

/** The shop: orders (`POST /orders`) and the Stripe webhook (`POST /webhooks/stripe`). */
@Module({
  imports: [
    PrismaModule,
    OrdersModule,
    PayonceModule.forRootAsync({
      imports: [PrismaModule, OrdersModule],
      inject: [SHOP_CONFIG, PrismaService, OrdersService],
      useFactory: (config: ShopConfig, prisma: PrismaService, orders: OrdersService) =>
        payonceOptions(config, prisma, orders),
      global: true,
    }),
  ],
  controllers: [payonceWebhookController()],
})
export class AppModule {}
