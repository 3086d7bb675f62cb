import { inviteMember } from './invite-member';
import { listMembers } from './list-members';
import { removeMember } from './remove-member';
import { updateMember } from './update-member';

export const memberRoutes = [listMembers, inviteMember, updateMember, removeMember];
