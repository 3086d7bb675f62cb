-- Trace context (docs/decisions.md#traces): the W3C traceparent of the change that wrote an event,
-- which its fan-out and delivery attempts continue, and of each attempt, which the next links to.
-- Null when not traced.
-- AlterTable
ALTER TABLE "DeliveryAttempt" ADD COLUMN     "traceparent" TEXT;

-- AlterTable
ALTER TABLE "OutboxEvent" ADD COLUMN     "traceparent" TEXT;
