import { newId, type Db, type Plan } from '@worktrack/db';
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
export async function bootstrapOrganization(db: Db, input: BootstrapInput): Promise<BootstrapResult> {
  return db.$transaction(async (tx) => {
    const organization = await tx.organization.create({
      data: { id: newId('organization'), name: input.name, plan: input.plan, dailyQuota: input.dailyQuota },
    });
    const user = await tx.user.upsert({
      where: { email: input.email.toLowerCase() },
      create: { id: newId('user'), email: input.email.toLowerCase() },
      update: {},
    });
    await tx.membership.create({ data: { organizationId: organization.id, userId: user.id, role: 'admin' } });
    const keyFor = (mode: 'live' | 'test') =>
      issueApiKey(tx, { organizationId: organization.id, userId: user.id, name: `Bootstrap ${mode} key`, mode, permissions: ['*'] });
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
