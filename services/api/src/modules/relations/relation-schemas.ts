import Joi from 'joi';
import { RelationType, type RelationSortField } from '@worktrack/db';
import { fields } from '../../http/fields';
import { pageQuery, type PageParams } from '../../http/pagination';
import { relationOrder } from './relation-order';

export interface RelationInput {
  type: RelationType;
  taskId: string;
}

export const relationsParams = Joi.object<{ taskId: string }, true>({ taskId: Joi.string().max(100).required() });

export const relationParams = Joi.object<{ taskId: string; relationId: string }, true>({
  taskId: Joi.string().max(100).required(),
  relationId: Joi.string().max(100).required(),
});

export const createRelationBody = Joi.object<RelationInput, true>({
  type: Joi.string()
    .valid(...Object.values(RelationType))
    .required()
    .description('This task `blocks`, `relates_to` or `duplicates` the other'),
  taskId: fields.ref().required().description('The other task: any task of the organization'),
});

export const listRelationsQuery = Joi.object<PageParams<RelationSortField>, true>({ ...pageQuery(relationOrder) });
