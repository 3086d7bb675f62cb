-- AlterEnum
ALTER TYPE "InvitationStatus" ADD VALUE 'revoked';

-- AlterTable
ALTER TABLE "Invitation" ADD COLUMN     "revokedAt" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "Invitation_organizationId_status_id_idx" ON "Invitation"("organizationId", "status", "id");
