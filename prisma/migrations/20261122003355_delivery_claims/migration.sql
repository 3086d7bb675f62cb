-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "lockedUntil" TIMESTAMPTZ(3),
ADD COLUMN     "test" BOOLEAN NOT NULL DEFAULT false;
