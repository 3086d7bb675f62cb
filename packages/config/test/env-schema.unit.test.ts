import { apiEnvSchema, workerEnvSchema } from '../src/index';

type Described = Record<string, { flags?: { default?: unknown; presence?: string } }>;

describe('the settings schemas', () => {
  // The parsed environment's type lets a setting be undefined only where it is marked maybeUnset.
  it('give every setting a default, or mark it maybeUnset', () => {
    for (const schema of [apiEnvSchema, workerEnvSchema]) {
      for (const [setting, { flags = {} }] of Object.entries(schema.describe().keys as Described)) {
        const alwaysSet = flags.default !== undefined || flags.presence === 'required';
        expect({ setting, maybeUnset: flags.presence === 'optional' }).toEqual({ setting, maybeUnset: !alwaysSet });
      }
    }
  });
});
