import { Module } from '@nestjs/common';
import { PayonceModule, payonceWebhookController } from 'payonce/nestjs';
import { SHOP_CONFIG, type ShopConfig } from './config.js';
import { HealthController } from './health.controller.js';
import { FulfilmentWorker } from './orders/fulfilment.worker.js';
import { OrdersModule } from './orders/orders.module.js';
import { OrdersService } from './orders/orders.service.js';
import { payonceOptions } from './payonce.js';
import { PrismaService } from './prisma.service.js';
import { ShopModule } from './shop.module.js';

/** The shop: orders, the Stripe webhook (`POST /webhooks/stripe`), the fulfilment worker, `GET /healthz`. */
@Module({
  imports: [
    ShopModule,
    OrdersModule,
    PayonceModule.forRootAsync({
      imports: [ShopModule, OrdersModule],
      inject: [SHOP_CONFIG, PrismaService, OrdersService],
      useFactory: (config: ShopConfig, prisma: PrismaService, orders: OrdersService) =>
        payonceOptions(config, prisma, orders),
      global: true,
    }),
  ],
  controllers: [HealthController, payonceWebhookController()],
  providers: [FulfilmentWorker],
})
export class AppModule {}
