import { randomBytes } from 'node:crypto';
import express, { type ErrorRequestHandler } from 'express';
import multer, { MulterError } from 'multer';
import request from 'supertest';
import { s3StorageEngine } from '../../../services/api/src/modules/files/s3-storage-engine';
import { createObjectStore, type ObjectStore } from '../src';
import { CLOSED_PORT } from '@test-support/processes';
import { listKeys, startTestStore, type TestStore } from '@test-support/embedded-store';

const MiB = 1024 * 1024;

/** The smallest Express app around multer with the engine: 201 on success, the error's name and code otherwise. */
function uploadApp(store: ObjectStore) {
  const app = express();
  const upload = multer({
    storage: s3StorageEngine({ store, keyFor: (_req, file) => `uploads/${file.originalname}` }),
    limits: { fileSize: MiB },
  });
  app.post('/files', upload.single('file'), (req, res) => {
    res.status(201).json({ storageKey: req.file?.storageKey, size: req.file?.size });
  });
  const onError: ErrorRequestHandler = (error: Error & { code?: string }, _req, res, _next) => {
    res.status(error instanceof MulterError ? 413 : 503).json({ name: error.name, code: error.code });
  };
  app.use(onError);
  return app;
}

let harness: TestStore;

beforeAll(async () => {
  harness = await startTestStore();
});

afterAll(async () => {
  await harness.close();
});

it('streams an upload under the limit into the store and reports its key and size', async () => {
  const bytes = randomBytes(MiB - 1000);

  const response = await request(uploadApp(harness.store))
    .post('/files')
    .attach('file', bytes, { filename: 'fits.bin', contentType: 'application/octet-stream' });

  expect(response.status).toBe(201);
  expect(response.body).toEqual({ storageKey: 'uploads/fits.bin', size: bytes.length });
  const { url } = await harness.store.presignDownload('uploads/fits.bin', { expiresInSeconds: 60 });
  expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(bytes)).toBe(true);
});

it('fails an upload over the limit with LIMIT_FILE_SIZE and leaves no object behind', async () => {
  const response = await request(uploadApp(harness.store))
    .post('/files')
    .attach('file', randomBytes(3 * MiB), { filename: 'too-big.bin', contentType: 'application/octet-stream' });

  expect(response.status).toBe(413);
  expect(response.body).toEqual({ name: 'MulterError', code: 'LIMIT_FILE_SIZE' });
  expect(await listKeys(harness.client)).not.toContain('uploads/too-big.bin');
});

it('passes StorageUnavailableError on when the store cannot be reached', async () => {
  const store = createObjectStore({ ...harness.settings, endpoint: `http://127.0.0.1:${CLOSED_PORT}` });

  const response = await request(uploadApp(store))
    .post('/files')
    .attach('file', randomBytes(1000), { filename: 'lost.bin', contentType: 'application/octet-stream' });
  store.close();

  expect(response.status).toBe(503);
  expect(response.body).toEqual({ name: 'StorageUnavailableError' });
});
