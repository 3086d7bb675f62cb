-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "attemptsBeforeRecovery" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "DeliveryAttempt" ADD COLUMN     "responseBody" TEXT,
ADD COLUMN     "responseHeaders" JSONB;

-- CreateTable
CREATE TABLE "DashboardLink" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DashboardLink_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DashboardSession" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "mode" "Mode" NOT NULL DEFAULT 'live',
    "csrfSecret" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DashboardSession_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "DashboardLink_tokenHash_key" ON "DashboardLink"("tokenHash");

-- CreateIndex
CREATE INDEX "DashboardLink_organizationId_userId_idx" ON "DashboardLink"("organizationId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "DashboardSession_tokenHash_key" ON "DashboardSession"("tokenHash");

-- CreateIndex
CREATE INDEX "DashboardSession_organizationId_userId_idx" ON "DashboardSession"("organizationId", "userId");

-- CreateIndex
CREATE INDEX "Delivery_webhookId_lastAttemptAt_idx" ON "Delivery"("webhookId", "lastAttemptAt");

-- CreateIndex
CREATE INDEX "OutboxEvent_organizationId_mode_createdAt_idx" ON "OutboxEvent"("organizationId", "mode", "createdAt");

-- AddForeignKey
ALTER TABLE "DashboardLink" ADD CONSTRAINT "DashboardLink_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DashboardLink" ADD CONSTRAINT "DashboardLink_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DashboardSession" ADD CONSTRAINT "DashboardSession_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DashboardSession" ADD CONSTRAINT "DashboardSession_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
