import { createRelation } from './create-relation';
import { deleteRelation } from './delete-relation';
import { listRelations } from './list-relations';

export const relationRoutes = [listRelations, createRelation, deleteRelation];
