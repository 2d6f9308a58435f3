-- The shop's tables (prisma/schema.prisma), as `prisma migrate deploy` applies them; the app also runs this file at
-- start (src/shop-tables.ts), so `IF NOT EXISTS`.
CREATE TABLE IF NOT EXISTS "shop_orders" (
    "id" TEXT NOT NULL,
    "customer" TEXT NOT NULL,
    "amount_minor" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    CONSTRAINT "shop_orders_pkey" PRIMARY KEY ("id")
);

CREATE TABLE IF NOT EXISTS "shop_payment_attempts" (
    "id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "provider_payment_id" TEXT,
    "amount_minor" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    CONSTRAINT "shop_payment_attempts_pkey" PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "shop_payment_attempts_order_id_idx" ON "shop_payment_attempts"("order_id");

CREATE TABLE IF NOT EXISTS "shop_order_events" (
    "id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "event_id" TEXT,
    CONSTRAINT "shop_order_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "shop_order_events_order_id_idx" ON "shop_order_events"("order_id");

CREATE TABLE IF NOT EXISTS "shop_fulfilments" (
    "id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    CONSTRAINT "shop_fulfilments_pkey" PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "shop_fulfilments_order_id_idx" ON "shop_fulfilments"("order_id");
