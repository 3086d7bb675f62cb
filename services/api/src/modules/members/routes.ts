import { inviteMember } from './invite-member';
import { listInvitations } from './list-invitations';
import { listMembers } from './list-members';
import { removeMember } from './remove-member';
import { revokeInvitation } from './revoke-invitation';
import { updateMember } from './update-member';

/** The /members/invitations routes come before /members/:userId, which would otherwise capture them. */
export const memberRoutes = [listMembers, listInvitations, revokeInvitation, inviteMember, updateMember, removeMember];
