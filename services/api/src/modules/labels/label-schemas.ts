import Joi from 'joi';
import type { LabelSortField } from '@worktrack/db';
import { nameString } from '../../http/names';
import { pageQuery, type PageParams } from '../../http/pagination';
import { labelOrder } from './label-order';

const name = nameString(50);
const color = Joi.string()
  .pattern(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/)
  .allow(null)
  .messages({ 'string.pattern.base': 'color must be a hex color such as #1a2b3c or #abc' });
const description = Joi.string().max(500).allow(null);

export interface LabelInput {
  name: string;
  color?: string | null;
  description?: string | null;
}

export const labelParams = Joi.object<{ labelId: string }, true>({ labelId: Joi.string().max(100).required() });

export const createLabelBody = Joi.object<LabelInput, true>({ name: name.required(), color, description });

export const updateLabelBody = Joi.object<Partial<LabelInput>, true>({ name, color, description });

export interface LabelFilters extends PageParams<LabelSortField> {
  q?: string;
}

export const listLabelsQuery = Joi.object<LabelFilters, true>({
  q: Joi.string().trim().min(1).max(50).description('Text the name contains, whatever its case'),
  ...pageQuery(labelOrder),
});
