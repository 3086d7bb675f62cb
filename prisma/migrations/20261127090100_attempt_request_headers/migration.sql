-- The headers each attempt sent (the subscription's own headers masked), shown with the attempt.
-- Null for attempts recorded before.
-- AlterTable
ALTER TABLE "DeliveryAttempt" ADD COLUMN     "requestHeaders" JSONB;
