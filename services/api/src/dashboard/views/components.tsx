import type { ComponentChildren } from 'preact';
import { CSRF_FIELD } from '../csrf';
import type { Problem } from '../problem';
import { usePage } from './page-context';

const fieldId = (name: string) => `f-${name}`;

/** UTC, to the second, in a <time> element. */
export function Time({ value }: { value: string | null }) {
  if (!value)
    return (
      <span>
        <span aria-hidden="true">—</span>
        <span class="visually-hidden">never</span>
      </span>
    );
  return <time dateTime={value}>{value.slice(0, 19).replace('T', ' ')} UTC</time>;
}

export function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${value}`}>{value.replace('_', ' ')}</span>;
}

/** A POST form with the session's CSRF token; `confirm` asks first (when scripts run). */
export function PostForm({
  action,
  confirm,
  class: className,
  children,
  label,
}: {
  action: string;
  confirm?: string;
  class?: string;
  children: ComponentChildren;
  label?: string;
}) {
  const { csrfToken } = usePage();
  return (
    <form method="post" action={action} class={className} data-confirm={confirm} aria-label={label}>
      <input type="hidden" name={CSRF_FIELD} value={csrfToken} />
      {children}
    </form>
  );
}

/** One button that posts to an action; `name` is what a screen reader says when the visible label alone is ambiguous (in a table). */
export function ActionButton({
  action,
  label,
  name,
  confirm,
  danger,
  hidden,
}: {
  action: string;
  label: string;
  name?: string;
  confirm?: string;
  danger?: boolean;
  hidden?: Record<string, string>;
}) {
  return (
    <PostForm action={action} confirm={confirm} class="inline">
      {Object.entries(hidden ?? {}).map(([field, value]) => (
        <input type="hidden" name={field} value={value} />
      ))}
      <button type="submit" class={danger ? 'danger' : 'secondary'} aria-label={name}>
        {label}
      </button>
    </PostForm>
  );
}

/** The form's problem at its top, linking to the field it names (focused when scripts run). */
export function ProblemSummary({ problem }: { problem: Problem | undefined }) {
  if (!problem) return null;
  return (
    <div class="problem" role="alert" tabIndex={-1} data-autofocus>
      <h2>There is a problem</h2>
      <p>{problem.param ? <a href={`#${fieldId(problem.param)}`}>{problem.message}</a> : problem.message}</p>
    </div>
  );
}

interface FieldProps {
  name: string;
  /** Defaults to f-<name>, which a problem naming <name> links to. */
  id?: string;
  label: string;
  hint?: string;
  problem?: Problem | undefined;
}

const idOf = (props: FieldProps) => props.id ?? fieldId(props.name);

function FieldShell(props: FieldProps & { children: ComponentChildren }) {
  const error = props.problem?.param === props.name ? props.problem.message : undefined;
  return (
    <div class={error ? 'field field-error' : 'field'}>
      <label for={idOf(props)}>{props.label}</label>
      {props.hint && (
        <p class="hint" id={`${idOf(props)}-hint`}>
          {props.hint}
        </p>
      )}
      {error && (
        <p class="error" id={`${idOf(props)}-error`}>
          {error}
        </p>
      )}
      {props.children}
    </div>
  );
}

/** The field's input: its id, and its hint and error read out with it. */
function inputAttributes(props: FieldProps): { id: string; name: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean } {
  const invalid = props.problem?.param === props.name;
  const ids = [props.hint && `${idOf(props)}-hint`, invalid && `${idOf(props)}-error`].filter(Boolean).join(' ');
  return { id: idOf(props), name: props.name, ...(ids && { 'aria-describedby': ids }), ...(invalid && { 'aria-invalid': true }) };
}

export function TextField(props: FieldProps & { value?: string | null; type?: string; required?: boolean; placeholder?: string; autocomplete?: string }) {
  return (
    <FieldShell {...props}>
      <input
        type={props.type ?? 'text'}
        value={props.value ?? ''}
        required={props.required}
        placeholder={props.placeholder}
        autoComplete={props.autocomplete ?? 'off'}
        {...inputAttributes(props)}
      />
    </FieldShell>
  );
}

/** A whole number within bounds; the browser checks them first, the API again. */
export function NumberField(props: FieldProps & { value?: string | null; min: number; max: number; required?: boolean; placeholder?: string }) {
  return (
    <FieldShell {...props}>
      <input
        type="number"
        inputMode="numeric"
        step={1}
        min={props.min}
        max={props.max}
        value={props.value ?? ''}
        required={props.required}
        placeholder={props.placeholder}
        autoComplete="off"
        {...inputAttributes(props)}
      />
    </FieldShell>
  );
}

export function TextArea(props: FieldProps & { value?: string | null; rows?: number }) {
  return (
    <FieldShell {...props}>
      <textarea rows={props.rows ?? 4} {...inputAttributes(props)}>
        {props.value ?? ''}
      </textarea>
    </FieldShell>
  );
}

export interface Option {
  value: string;
  label: string;
}

export const optionsOf = (values: readonly string[]): Option[] => values.map((value) => ({ value, label: value.replace('_', ' ') }));

export function SelectField(props: FieldProps & { options: Option[]; value?: string | null; required?: boolean }) {
  return (
    <FieldShell {...props}>
      <select required={props.required} {...inputAttributes(props)}>
        {props.options.map((option) => (
          <option value={option.value} selected={option.value === (props.value ?? '')}>
            {option.label}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}

/** A group of checkboxes sending every checked value under one name. */
export function Checkboxes({
  name,
  legend,
  hint,
  options,
  checked,
  problem,
}: {
  name: string;
  legend: string;
  hint?: string;
  options: Option[];
  checked: readonly string[];
  problem?: Problem | undefined;
}) {
  const error = problem?.param === name ? problem.message : undefined;
  return (
    <fieldset id={fieldId(name)} class={error ? 'field field-error checkboxes' : 'field checkboxes'} tabIndex={-1}>
      <legend>{legend}</legend>
      {hint && <p class="hint">{hint}</p>}
      {error && <p class="error">{error}</p>}
      <div class="checkbox-grid">
        {options.map((option) => (
          <label class="checkbox">
            <input type="checkbox" name={name} value={option.value} checked={checked.includes(option.value)} /> {option.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** A value shown once (a new key, a generated secret, an invitation token), with a copy button when scripts run. */
export function ShownOnce({
  id,
  label,
  value,
  note = 'Copy it now: it is shown this once and cannot be seen again.',
  link,
}: {
  id: string;
  label: string;
  value: string;
  note?: string | undefined;
  link?: { label: string; href: string } | undefined;
}) {
  return (
    <section class="shown-once" aria-labelledby={`${id}-label`}>
      <h2 id={`${id}-label`}>{label}</h2>
      <p>{note}</p>
      <p class="secret">
        <code id={id}>{value}</code>
        <button type="button" class="secondary" data-copy={id} hidden>
          Copy
        </button>
      </p>
      {link && (
        <p>
          <a href={link.href}>{link.label}</a>
        </p>
      )}
    </section>
  );
}

/** A row action's refusal, in the row it was asked from (after the redirect: the flash names the row). */
export function RowProblem({ row }: { row: string }) {
  const { flash } = usePage();
  if (flash?.kind !== 'row-problem' || flash.row !== row) return null;
  return (
    <p class="error row-problem" role="alert">
      {flash.message}
    </p>
  );
}

/** A table's column headers; a column shown only to some (`can(…) && 'Name'`) is left out when false. */
export function ColumnHeads({ names }: { names: (string | false)[] }) {
  return (
    <thead>
      <tr>{names.map((name) => name && <th scope="col">{name}</th>)}</tr>
    </thead>
  );
}

/** A table that scrolls sideways inside its own box on narrow screens, never the page. */
export function Scroll({ children, label }: { children: ComponentChildren; label: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to scroll it.
    <section class="table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

/** Previous and next links of a list, keeping its filters. */
export function Pager({
  path,
  query,
  pagination,
}: {
  path: string;
  query: Record<string, string | undefined>;
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}) {
  const { total, limit, offset, hasMore } = pagination;
  const link = (to: number) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
    if (to > 0) params.set('offset', String(to));
    const search = params.toString();
    return search ? `${path}?${search}` : path;
  };
  if (total === 0) return null;
  if (total <= limit && offset === 0) return <p class="muted">{total === 1 ? '1 item' : `${total} items`}</p>;
  return (
    <nav class="pager" aria-label="Pages">
      <span>
        {offset + 1}–{Math.min(offset + limit, total)} of {total}
      </span>
      {offset > 0 && <a href={link(Math.max(0, offset - limit))}>Previous</a>}
      {hasMore && <a href={link(offset + limit)}>Next</a>}
    </nav>
  );
}

/** Preformatted text that may scroll (bodies, schemas): focusable, so that a keyboard can scroll it too. */
export function Pre({ children, class: className }: { children: ComponentChildren; class?: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to scroll it.
    <pre class={className} tabIndex={0}>
      {children}
    </pre>
  );
}
