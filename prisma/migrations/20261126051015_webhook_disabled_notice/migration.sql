-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "disabledNoticeAt" TIMESTAMPTZ(3);
