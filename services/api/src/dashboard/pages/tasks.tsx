import type { Request, Response, Router } from 'express';
import { Priority, TaskStatus } from '@worktrack/db';
import type { LabelRecord, MemberRecord, ProjectRecord, TaskRecord } from '@worktrack/events';
import type { Envelope } from '../../http/pagination';
import { listLabels } from '../../modules/labels/list-labels';
import { listMembers } from '../../modules/members/list-members';
import { listProjects } from '../../modules/projects/list-projects';
import { createTask } from '../../modules/tasks/create-task';
import { getTask } from '../../modules/tasks/get-task';
import { listTaskActivity } from '../../modules/tasks/list-task-activity';
import { listTasks } from '../../modules/tasks/list-tasks';
import type { ActivityRecord } from '../../modules/tasks/activity-record';
import { updateTask } from '../../modules/tasks/update-task';
import { callerOf } from '../context';
import { formOf, optional, orNull, queryOf, text, utcTimestamp, type Form } from '../form';
import { redirectDone } from '../notices';
import type { Caller } from '../../http/route';
import { callOperation } from '../../pipeline';
import { problemOf, type Problem } from '../problem';
import type { DashboardApp } from '../dashboard-app';
import { LinkFields, linkBody, parentOptions, TaskLinkSections, taskLinksOf, type TaskLinks } from './task-links';
import {
  ColumnHeads,
  Badge,
  optionsOf,
  Pager,
  PostForm,
  ProblemSummary,
  SelectField,
  TextArea,
  TextField,
  Time,
  type Option,
  Scroll,
} from '../views/components';
import { LabelChips } from '../views/label-chips';
import { useCan, usePage } from '../views/page-context';
import { renderPage } from '../views/render';
import { TaskTimeline } from '../views/task-timeline';

const PATH = '/dashboard/tasks';
const FILTERS = ['projectId', 'status', 'priority', 'assigneeId', 'labelId', 'offset'] as const;

/** The choices the task forms offer: open projects, the organization's members and labels. */
interface Choices {
  projects: ProjectRecord[];
  members: MemberRecord[];
  labels: LabelRecord[];
}

async function choicesFor(caller: Caller): Promise<Choices> {
  const [projects, members, labels] = await Promise.all([
    callOperation(listProjects, caller, { query: { limit: 100, archived: true } }),
    caller.tenant.permissions.has('members:read') ? callOperation(listMembers, caller, { query: { limit: 100 } }) : { data: [] },
    caller.tenant.permissions.has('projects:read') ? callOperation(listLabels, caller, { query: { limit: 100 } }) : { data: [] },
  ]);
  return { projects: projects.data, members: members.data, labels: labels.data };
}

const projectOptions = (choices: Choices, { open }: { open: boolean }): Option[] =>
  choices.projects.filter((p) => !open || !p.archived).map((p) => ({ value: p.id, label: p.archived ? `${p.name} (archived)` : p.name }));
const memberOptions = (choices: Choices): Option[] => choices.members.map((m) => ({ value: m.id, label: m.name ?? m.email }));
const any: Option = { value: '', label: 'Any' };

/** Instead of a form whose required Project list is empty: a task needs a project of this mode first. */
function NoProjectYet() {
  const { session } = usePage();
  return (
    <section class="card" aria-label="Create a task">
      <h2>Create a task</h2>
      <p>
        There is no {session.mode} project yet, and a task belongs to one. <a href="/dashboard/projects">Create a {session.mode} project</a> first.
      </p>
    </section>
  );
}

/** The fields of create and edit: the API's names, so its refusals point at them. */
function TaskFields({
  values,
  problem,
  choices,
  creating,
  parents,
}: {
  values: Form;
  problem?: Problem | undefined;
  choices: Choices;
  creating: boolean;
  parents?: Option[];
}) {
  return (
    <>
      <TextField name="title" label="Title" required value={text(values, 'title')} problem={problem} />
      {creating && (
        <SelectField
          name="projectId"
          label="Project"
          required
          options={projectOptions(choices, { open: true })}
          value={text(values, 'projectId')}
          problem={problem}
        />
      )}
      <TextArea name="description" label="Description (optional)" value={text(values, 'description')} problem={problem} />
      <SelectField name="status" label="Status" options={optionsOf(Object.values(TaskStatus))} value={text(values, 'status') || 'todo'} problem={problem} />
      <SelectField
        name="priority"
        label="Priority"
        options={optionsOf(Object.values(Priority))}
        value={text(values, 'priority') || 'medium'}
        problem={problem}
      />
      <SelectField
        name="assigneeId"
        label="Assignee"
        options={[{ value: '', label: 'Nobody' }, ...memberOptions(choices)]}
        value={text(values, 'assigneeId')}
        problem={problem}
      />
      <TextField name="dueDate" type="date" label="Due (optional, UTC)" value={text(values, 'dueDate')} problem={problem} />
      <LinkFields values={values} problem={problem} labels={choices.labels} parents={parents} />
    </>
  );
}

function TaskTable({ tasks, choices, filters }: { tasks: Envelope<TaskRecord>; choices: Choices; filters: Record<string, string> }) {
  const projectName = new Map(choices.projects.map((p) => [p.id, p.name]));
  const memberName = new Map(choices.members.map((m) => [m.id, m.name ?? m.email]));
  const labels = new Map(choices.labels.map((label) => [label.id, label]));
  return (
    <>
      <form method="get" action={PATH} class="filters" aria-label="Filter tasks">
        <SelectField
          id="filter-project"
          name="projectId"
          label="Project"
          options={[any, ...projectOptions(choices, { open: false })]}
          value={filters.projectId}
        />
        <SelectField id="filter-status" name="status" label="Status" options={[any, ...optionsOf(Object.values(TaskStatus))]} value={filters.status} />
        <SelectField id="filter-priority" name="priority" label="Priority" options={[any, ...optionsOf(Object.values(Priority))]} value={filters.priority} />
        {choices.members.length > 0 && (
          <SelectField id="filter-assignee" name="assigneeId" label="Assignee" options={[any, ...memberOptions(choices)]} value={filters.assigneeId} />
        )}
        {choices.labels.length > 0 && (
          <SelectField
            id="filter-label"
            name="labelId"
            label="Label"
            options={[any, ...choices.labels.map((label) => ({ value: label.id, label: label.name }))]}
            value={filters.labelId}
          />
        )}
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {tasks.data.length === 0 ? (
        <p>No tasks{Object.keys(filters).length > 0 ? ' match these filters' : ' yet'}.</p>
      ) : (
        <Scroll label="Tasks">
          <table>
            <caption>Tasks, newest first</caption>
            <ColumnHeads names={['Task', 'Project', 'Status', 'Priority', 'Assignee', 'Due']} />
            <tbody>
              {tasks.data.map((task) => (
                <tr>
                  <th scope="row">
                    <a href={`${PATH}/${task.id}`}>{task.title}</a> <LabelChips ids={task.labelIds} labels={labels} />
                  </th>
                  <td>{projectName.get(task.projectId) ?? task.projectId}</td>
                  <td>
                    <Badge value={task.status} />
                  </td>
                  <td>
                    <Badge value={task.priority} />
                  </td>
                  <td>{task.assigneeId ? (memberName.get(task.assigneeId) ?? task.assigneeId) : '—'}</td>
                  <td>
                    <Time value={task.dueDate} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <Pager path={PATH} query={filters} pagination={tasks.pagination} />
    </>
  );
}

function TasksBody(props: { tasks: Envelope<TaskRecord>; choices: Choices; filters: Record<string, string>; values: Form; problem?: Problem | undefined }) {
  const can = useCan();
  return (
    <div class="split">
      <section>
        <TaskTable tasks={props.tasks} choices={props.choices} filters={props.filters} />
      </section>
      {can('tasks:write') &&
        (projectOptions(props.choices, { open: true }).length === 0 ? (
          <NoProjectYet />
        ) : (
          <PostForm action={PATH} label="Create a task">
            <h2>Create a task</h2>
            <ProblemSummary problem={props.problem} />
            <TaskFields values={props.values} problem={props.problem} choices={props.choices} creating />
            <button type="submit">Create task</button>
          </PostForm>
        ))}
    </div>
  );
}

interface TaskPageProps {
  task: TaskRecord;
  activity: Envelope<ActivityRecord>;
  links: TaskLinks;
  choices: Choices;
  values: Form;
  problem?: Problem | undefined;
}

function TaskBody({ task, activity, choices, links, values, problem }: TaskPageProps) {
  const can = useCan();
  const project = choices.projects.find((p) => p.id === task.projectId);
  return (
    <>
      <p>
        <a href={`${PATH}?projectId=${task.projectId}`}>Tasks of {project?.name ?? 'its project'}</a>
      </p>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Badge value={task.status} />
        </dd>
        <dt>Labels</dt>
        <dd>{task.labelIds.length > 0 ? <LabelChips ids={task.labelIds} labels={new Map(choices.labels.map((label) => [label.id, label]))} /> : 'None'}</dd>
        <dt>Created</dt>
        <dd>
          <Time value={task.createdAt} />
        </dd>
        <dt>Updated</dt>
        <dd>
          <Time value={task.updatedAt} />
        </dd>
      </dl>
      {task.description && <p class="description">{task.description}</p>}
      <TaskLinkSections task={task} links={links} />
      {can('tasks:write') && (
        <PostForm action={`${PATH}/${task.id}`} label="Edit the task">
          <h2>Edit</h2>
          <ProblemSummary problem={problem} />
          <TaskFields values={values} problem={problem} choices={choices} creating={false} parents={parentOptions(task, links)} />
          <button type="submit">Save</button>
        </PostForm>
      )}
      <TaskTimeline entries={activity.data} members={choices.members} more={activity.pagination.hasMore} />
    </>
  );
}

/** The form as the API's body: empty optional fields left out on create, cleared (null) on edit. */
function taskBody(form: Form, creating: boolean) {
  const dueDate = text(form, 'dueDate');
  const clearable = creating ? optional : orNull;
  return {
    title: text(form, 'title'),
    ...(creating && { projectId: text(form, 'projectId') }),
    description: clearable(text(form, 'description')),
    status: text(form, 'status'),
    priority: text(form, 'priority'),
    assigneeId: clearable(text(form, 'assigneeId')),
    dueDate: clearable(dueDate && utcTimestamp(dueDate)),
    ...linkBody(form, creating),
  };
}

/** Tasks: browse and filter, create, edit. */
export function taskPages(router: Router, { deps, assets }: DashboardApp): void {
  async function showList(req: Request, res: Response, extra: { status?: number; values?: Form; problem?: Problem } = {}) {
    const caller = callerOf(req, res, deps);
    const filters = queryOf(req, FILTERS);
    const [tasks, choices] = await Promise.all([callOperation(listTasks, caller, { query: filters }), choicesFor(caller)]);
    const { offset: _offset, ...kept } = filters;
    renderPage(req, res, assets, {
      title: 'Tasks',
      section: 'tasks',
      status: extra.status ?? 200,
      body: (
        <TasksBody tasks={tasks} choices={choices} filters={kept} values={extra.values ?? { projectId: filters.projectId ?? '' }} problem={extra.problem} />
      ),
    });
  }

  async function showTask(req: Request, res: Response, extra: { status?: number; values?: Form; problem?: Problem } = {}) {
    const caller = callerOf(req, res, deps);
    const [task, activity, choices] = await Promise.all([
      callOperation(getTask, caller, { params: req.params }),
      callOperation(listTaskActivity, caller, { params: req.params, query: { limit: 100 } }),
      choicesFor(caller),
    ]);
    const links = await taskLinksOf(caller, task);
    const values = extra.values ?? {
      title: task.title,
      description: task.description ?? '',
      status: task.status,
      priority: task.priority,
      assigneeId: task.assigneeId ?? '',
      dueDate: task.dueDate?.slice(0, 10) ?? '',
      labelIds: task.labelIds,
      parentId: task.parentId ?? '',
    };
    renderPage(req, res, assets, {
      title: task.title,
      section: 'tasks',
      status: extra.status ?? 200,
      body: <TaskBody task={task} activity={activity} choices={choices} links={links} values={values} problem={extra.problem} />,
    });
  }

  router.get('/tasks', (req, res) => showList(req, res));

  router.post('/tasks', async (req, res) => {
    const values = formOf(req);
    try {
      const task = await callOperation(createTask, callerOf(req, res, deps), { body: taskBody(values, true) });
      redirectDone(res, `${PATH}/${task.id}`, 'task-created');
    } catch (err) {
      const problem = problemOf(err);
      await showList(req, res, { status: problem.status, values, problem });
    }
  });

  router.get('/tasks/:taskId', (req, res) => showTask(req, res));

  router.post('/tasks/:taskId', async (req, res) => {
    const values = formOf(req);
    try {
      await callOperation(updateTask, callerOf(req, res, deps), { params: req.params, body: taskBody(values, false) });
      redirectDone(res, `${PATH}/${req.params.taskId}`, 'task-updated');
    } catch (err) {
      const problem = problemOf(err);
      await showTask(req, res, { status: problem.status, values, problem });
    }
  });
}
