import Joi from 'joi';

/** One sort field, ascending or descending; ties always break on the id, in the same direction. */
export interface Sort<F extends string = string> {
  field: F;
  descending: boolean;
}

/** The `sort` parameter's text: a field, `-` first for descending. */
export type SortText<F extends string> = F | `-${F}`;

/** A field a list sorts by: the record's value that a cursor keeps to resume after it. */
export interface SortField<Rec> {
  /** Timestamps and enum names as the API shows them, text as it is; null when unset. */
  value(record: Rec): string | null;
}

/** The orders a list offers (docs/decisions.md#sort): its fields, each either way, and the default. */
export interface ListOrder<F extends string, Rec, Field extends SortField<Rec> = SortField<Rec>> {
  /** Names the list in its cursors, so that a cursor of one list is refused by another. */
  name: string;
  fields: Record<F, Field>;
  default: SortText<F>;
}

export function defineListOrder<F extends string, Rec, Field extends SortField<Rec> = SortField<Rec>>(
  order: ListOrder<F, Rec, Field>,
): ListOrder<F, Rec, Field> {
  return order;
}

/** The order of a list sorted only by creation time (docs/decisions.md#sort: "the others createdAt"). */
export const creationOrder = <Rec extends { createdAt: string }>(name: string, defaultSort: SortText<'createdAt'>) =>
  defineListOrder<'createdAt', Rec>({ name, default: defaultSort, fields: { createdAt: { value: (record) => record.createdAt } } });

/** The `sort` query parameter of a list: its fields, each either way; anything else is a 400 naming `sort`. */
export function sortParam(order: ListOrder<string, never>): Joi.StringSchema {
  const fields = Object.keys(order.fields);
  return Joi.string()
    .valid(...fields.flatMap((field) => [field, `-${field}`]))
    .default(order.default)
    .description(`One field, \`-\` first for descending; ties break on the id. Default \`${order.default}\`.`)
    .messages({ 'any.only': `sort must be one of ${fields.join(', ')}, each optionally preceded by - for descending` });
}

export function parseSort<F extends string>(text: SortText<F>): Sort<F> {
  return text.startsWith('-') ? { field: text.slice(1) as F, descending: true } : { field: text as F, descending: false };
}
