-- What a delivery costs Postgres (docs/performance.md#what-a-delivery-costs-postgres).
-- The claim's index holds pending deliveries only: the record that settles or fails a delivery adds
-- no entry to it (every other index gets one: the record changes indexed columns, so it cannot be a
-- HOT update), and the claim's skip scan and probes never step over finished deliveries.
-- DropIndex
DROP INDEX "Delivery_status_webhookId_nextAttemptAt_idx";

-- CreateIndex
CREATE INDEX "Delivery_pending_webhookId_nextAttemptAt_idx" ON "Delivery"("webhookId", "nextAttemptAt") WHERE (status = 'pending');

-- Room on each page for the claim's lease (it sets lockedUntil, which no index holds): with the new
-- version on the row's own page the lease is a HOT update, writing no index entry. A claim leases
-- neighbouring rows (the fan-out inserted them together), so every row needs its own room: packed
-- full, as inserts leave a page, three leases in four moved their row to another page and wrote an
-- entry in every index; at 70 half did. The record's new version reuses the lease's room once the
-- claim's version is pruned. The price is space: a delivery's page holds half as many rows.
ALTER TABLE "Delivery" SET (fillfactor = 50);
