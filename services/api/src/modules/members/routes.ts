import { inviteMember } from './invite-member';
import { listInvitations } from './list-invitations';
import { listMembers } from './list-members';
import { removeMember } from './remove-member';
import { revokeInvitation } from './revoke-invitation';
import { updateMember } from './update-member';

export const memberRoutes = [listMembers, listInvitations, revokeInvitation, inviteMember, updateMember, removeMember];
