import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { SHOP_CONFIG, type ShopConfig } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';

/** The shop's Prisma client on PostgreSQL (driver adapter `@prisma/adapter-pg`), in the shop's schema. */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(@Inject(SHOP_CONFIG) config: ShopConfig) {
    const pool = { connectionString: config.databaseUrl, options: `-c search_path=${config.schema}`, max: 10 };
    super({ adapter: new PrismaPg(pool, { schema: config.schema }) });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
