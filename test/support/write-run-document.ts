import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiDocument } from '../../services/api/src/routes';
import { validatorsModule } from './openapi-conformance';

/**
 * `node --import tsx test/support/write-run-document.ts <document file> <validators file>`: the run's
 * OpenAPI document and the validators of its responses, for test/global-setup.ts.
 */
const [documentFile, validatorsFile] = process.argv.slice(2) as [string, string];
const document = apiDocument('http://127.0.0.1');
writeFileSync(documentFile, JSON.stringify(document));
mkdirSync(path.dirname(validatorsFile), { recursive: true });
writeFileSync(validatorsFile, validatorsModule(document));
