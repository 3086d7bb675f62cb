import type { Router } from 'express';
import type { LabelRecord, TaskRecord } from '@worktrack/events';
import { createRelation } from '../../modules/relations/create-relation';
import { deleteRelation } from '../../modules/relations/delete-relation';
import { listRelations } from '../../modules/relations/list-relations';
import type { RelationRecord } from '../../modules/relations/relation-record';
import { createTask } from '../../modules/tasks/create-task';
import { getTask } from '../../modules/tasks/get-task';
import { listTasks } from '../../modules/tasks/list-tasks';
import { callerOf } from '../context';
import { formOf, list, orNull, text, type Form } from '../form';
import { redirectDone } from '../notices';
import type { Caller } from '../../http/route';
import { callOperation } from '../../pipeline';
import type { Problem } from '../problem';
import { rowAction } from '../row-action';
import type { DashboardApp } from '../dashboard-app';
import { ActionButton, Badge, Checkboxes, PostForm, RowProblem, SelectField, TextField, type Option } from '../views/components';
import { useCan } from '../views/page-context';

const PATH = '/dashboard/tasks';
const TASKS_SHOWN = 100;

/** What a task's page shows beside the task: its parent, sub-tasks and relations, and the tasks the forms offer. */
export interface TaskLinks {
  parent: TaskRecord | null;
  children: TaskRecord[];
  relations: RelationRecord[];
  /** The organization's newest tasks (the task itself left out): relation targets, and parents where in its project. */
  others: TaskRecord[];
}

export async function taskLinksOf(caller: Caller, task: TaskRecord): Promise<TaskLinks> {
  const [parent, children, relations, others] = await Promise.all([
    task.parentId ? callOperation(getTask, caller, { params: { taskId: task.parentId } }) : null,
    callOperation(listTasks, caller, { query: { parentId: task.id, limit: TASKS_SHOWN } }),
    callOperation(listRelations, caller, { params: { taskId: task.id }, query: { limit: TASKS_SHOWN } }),
    callOperation(listTasks, caller, { query: { limit: TASKS_SHOWN } }),
  ]);
  return { parent, children: children.data, relations: relations.data, others: others.data.filter((other) => other.id !== task.id) };
}

const RELATION_WORDS: Record<RelationRecord['type'], string> = {
  blocks: 'Blocks',
  blocked_by: 'Blocked by',
  relates_to: 'Relates to',
  duplicates: 'Duplicates',
  duplicated_by: 'Duplicated by',
};

/** The labels and parent fields of the task forms; `labelsShown` tells the save that the labels were on the form. */
export function LinkFields({
  values,
  problem,
  labels,
  parents,
}: {
  values: Form;
  problem?: Problem | undefined;
  labels: LabelRecord[];
  /** Offered parents (none on create: the project is not chosen yet). */
  parents?: Option[];
}) {
  return (
    <>
      {labels.length > 0 && (
        <>
          <input type="hidden" name="labelsShown" value="1" />
          <Checkboxes
            name="labelIds"
            legend="Labels"
            options={labels.map((label) => ({ value: label.id, label: label.name }))}
            checked={list(values, 'labelIds')}
            problem={problem}
          />
        </>
      )}
      {parents && (
        <SelectField
          name="parentId"
          label="Parent task"
          options={[{ value: '', label: 'None' }, ...parents]}
          value={text(values, 'parentId')}
          problem={problem}
        />
      )}
    </>
  );
}

/** The labels and parent of a task form, as the API's body. */
export function linkBody(form: Form, creating: boolean) {
  const labelIds = text(form, 'labelsShown') ? { labelIds: list(form, 'labelIds') } : {};
  return creating ? labelIds : { ...labelIds, parentId: orNull(text(form, 'parentId')) };
}

/** The tasks a task may be moved under: its project's (the current parent always among them). */
export function parentOptions(task: TaskRecord, links: TaskLinks): Option[] {
  const candidates = links.others.filter((other) => other.projectId === task.projectId);
  if (links.parent && !candidates.some((other) => other.id === links.parent!.id)) candidates.unshift(links.parent);
  return candidates.map((other) => ({ value: other.id, label: other.title }));
}

function TaskLink({ task }: { task: Pick<TaskRecord, 'id' | 'title' | 'status'> }) {
  return (
    <>
      <a href={`${PATH}/${task.id}`}>{task.title}</a>
      <Badge value={task.status} />
    </>
  );
}

/** A task page's sections of sub-tasks and relations, with their forms. */
export function TaskLinkSections({ task, links }: { task: TaskRecord; links: TaskLinks }) {
  const can = useCan();
  return (
    <>
      <RowProblem row={task.id} />
      {links.parent && (
        <p>
          Sub-task of <TaskLink task={links.parent} />
        </p>
      )}
      <section aria-labelledby="subtasks-title">
        <h2 id="subtasks-title">
          Sub-tasks ({task.subtasks.done} of {task.subtasks.total} done)
        </h2>
        {links.children.length > 0 && (
          <ul class="links-list">
            {links.children.map((child) => (
              <li>
                <TaskLink task={child} />
              </li>
            ))}
          </ul>
        )}
        {can('tasks:write') && (
          <PostForm action={`${PATH}/${task.id}/subtasks`} label="Add a sub-task" class="filters">
            <TextField id="subtask-title" name="title" label="New sub-task" required />
            <button type="submit" class="secondary">
              Add sub-task
            </button>
          </PostForm>
        )}
      </section>
      <section aria-labelledby="relations-title">
        <h2 id="relations-title">Relations</h2>
        {links.relations.length === 0 ? (
          <p>No relations.</p>
        ) : (
          <ul class="links-list">
            {links.relations.map((relation) => (
              <li>
                <span>{RELATION_WORDS[relation.type]}</span>
                <TaskLink task={relation.task} />
                {can('tasks:write') && (
                  <ActionButton
                    action={`${PATH}/${task.id}/relations/${relation.id}/delete`}
                    label="Remove"
                    name={`Remove: ${RELATION_WORDS[relation.type].toLowerCase()} ${relation.task.title}`}
                  />
                )}
                <RowProblem row={relation.id} />
              </li>
            ))}
          </ul>
        )}
        {can('tasks:write') && links.others.length > 0 && (
          <PostForm action={`${PATH}/${task.id}/relations`} label="Relate to another task" class="filters">
            <SelectField
              id="relation-type"
              name="type"
              label="This task"
              options={[
                { value: 'blocks', label: 'blocks' },
                { value: 'relates_to', label: 'relates to' },
                { value: 'duplicates', label: 'duplicates' },
              ]}
            />
            <SelectField id="relation-task" name="taskId" label="Task" options={links.others.map((other) => ({ value: other.id, label: other.title }))} />
            <button type="submit" class="secondary">
              Relate
            </button>
          </PostForm>
        )}
      </section>
    </>
  );
}

/** The task page's sub-task and relation actions; a refusal comes back as the page's flash. */
export function taskLinkPages(router: Router, { deps }: DashboardApp): void {
  const back = (req: { params: { taskId?: string } }) => `${PATH}/${req.params.taskId}`;
  const taskRow = (req: { params: { taskId?: string } }) => String(req.params.taskId);

  router.post(
    '/tasks/:taskId/subtasks',
    rowAction(deps, back, taskRow, async (req, res) => {
      const caller = callerOf(req, res, deps);
      const parent = await callOperation(getTask, caller, { params: req.params });
      await callOperation(createTask, caller, { body: { title: text(formOf(req), 'title'), projectId: parent.projectId, parentId: parent.id } });
      redirectDone(res, back(req), 'subtask-created');
    }),
  );

  router.post(
    '/tasks/:taskId/relations',
    rowAction(deps, back, taskRow, async (req, res) => {
      const form = formOf(req);
      await callOperation(createRelation, callerOf(req, res, deps), { params: req.params, body: { type: text(form, 'type'), taskId: text(form, 'taskId') } });
      redirectDone(res, back(req), 'relation-created');
    }),
  );

  router.post(
    '/tasks/:taskId/relations/:relationId/delete',
    rowAction(
      deps,
      back,
      (req) => String(req.params.relationId),
      async (req, res) => {
        await callOperation(deleteRelation, callerOf(req, res, deps), { params: req.params });
        redirectDone(res, back(req), 'relation-deleted');
      },
    ),
  );
}
