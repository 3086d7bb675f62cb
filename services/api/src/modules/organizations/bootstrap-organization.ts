import type { Plan, UnscopedPrismaData } from '@worktrack/db';
import { issueApiKey } from '../api-keys/issue-api-key';

export interface BootstrapInput {
  name: string;
  email: string;
  plan: Plan;
  dailyQuota: number | null;
}

export interface BootstrapResult {
  organization: { id: string; name: string; plan: Plan };
  user: { id: string; email: string };
  liveKey: string;
  testKey: string;
}

/** Creates an organization with its first admin and a live and a test key with every permission. */
export async function bootstrapOrganization(data: UnscopedPrismaData, input: BootstrapInput): Promise<BootstrapResult> {
  return data.transaction(async (tx) => {
    const email = input.email.toLowerCase();
    const { organization, user } = await tx.createOrganization({ name: input.name, plan: input.plan, dailyQuota: input.dailyQuota }, email);
    const keyFor = (mode: 'live' | 'test') =>
      issueApiKey(tx.insertApiKey, { organizationId: organization.id, userId: user.id, name: `Bootstrap ${mode} key`, mode, permissions: ['*'] });
    const live = await keyFor('live');
    const test = await keyFor('test');
    return {
      organization: { id: organization.id, name: organization.name, plan: organization.plan },
      user: { id: user.id, email: user.email },
      liveKey: live.key,
      testKey: test.key,
    };
  });
}
