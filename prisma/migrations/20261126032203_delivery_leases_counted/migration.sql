-- DropIndex
DROP INDEX "Delivery_status_nextAttemptAt_idx";

-- DropIndex
DROP INDEX "Delivery_webhookId_lockedUntil_idx";

-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "inFlight" INTEGER NOT NULL DEFAULT 0;

-- A claim only sets lockedUntil, which no index holds now: with room left on each page, that update
-- is a HOT update (no index entry, no new page). Rows written before keep their pages until rewritten.
ALTER TABLE "Delivery" SET (fillfactor = 70);

-- The leases taken before this migration, counted once.
UPDATE "Webhook" w SET "inFlight" = (SELECT count(*) FROM "Delivery" d WHERE d."webhookId" = w.id AND d."lockedUntil" IS NOT NULL);
