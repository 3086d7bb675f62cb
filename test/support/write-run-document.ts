import { writeFileSync } from 'node:fs';
import { apiDocument } from '../../services/api/src/routes';

/** `node --import tsx test/support/write-run-document.ts <file>`: the run's OpenAPI document, for test/global-setup.ts. */
writeFileSync(process.argv[2]!, JSON.stringify(apiDocument('http://127.0.0.1')));
