-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "maxConcurrency" INTEGER NOT NULL DEFAULT 10,
ADD COLUMN     "pausedUntil" TIMESTAMPTZ(3),
ADD COLUMN     "rateLimit" INTEGER,
ADD COLUMN     "rateTokens" DOUBLE PRECISION,
ADD COLUMN     "rateTokensAt" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "Delivery_status_webhookId_nextAttemptAt_idx" ON "Delivery"("status", "webhookId", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "Delivery_webhookId_lockedUntil_idx" ON "Delivery"("webhookId", "lockedUntil");
