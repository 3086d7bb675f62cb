// Imported by main.ts before anything but @worktrack/config/young-generation: the instrumentations
// must be in place before the modules they trace (http, Express, pg, ioredis, undici) load. `.env` is
// read here so that OTEL_* settings in it count.
import { loadDotEnv } from '@worktrack/config';
import { startTracing } from '@worktrack/telemetry';

loadDotEnv();
startTracing('worktrack-api');
