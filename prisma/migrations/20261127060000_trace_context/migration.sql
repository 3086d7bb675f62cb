-- AlterTable
ALTER TABLE "DeliveryAttempt" ADD COLUMN     "traceparent" TEXT;

-- AlterTable
ALTER TABLE "OutboxEvent" ADD COLUMN     "traceparent" TEXT;
