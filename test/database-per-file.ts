import { copyTemplateDatabase } from './support/template-copy';

/** Copies the run's migrated template into a database of this test file's own. */
beforeAll(async () => {
  process.env.DATABASE_URL = await copyTemplateDatabase();
});
