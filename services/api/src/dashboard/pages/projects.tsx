import type { Request, Response, Router } from 'express';
import type { ProjectRecord } from '@worktrack/events';
import type { Envelope } from '../../http/pagination';
import { createProject } from '../../modules/projects/create-project';
import { getProject } from '../../modules/projects/get-project';
import { listProjects } from '../../modules/projects/list-projects';
import { updateProject } from '../../modules/projects/update-project';
import { callerOf } from '../context';
import { formOf, orNull, queryOf, text, type Form } from '../form';
import { redirectDone } from '../notices';
import { callOperation } from '../../pipeline';
import { problemOf, type Problem } from '../problem';
import type { DashboardApp } from '../dashboard-app';
import { ColumnHeads, ActionButton, Badge, Pager, PostForm, ProblemSummary, TextArea, TextField, Time, Scroll } from '../views/components';
import { useCan } from '../views/page-context';
import { renderPage } from '../views/render';

const PATH = '/dashboard/projects';

function ProjectFields({ values, problem }: { values: Form; problem?: Problem | undefined }) {
  return (
    <>
      <TextField name="name" label="Name" required value={text(values, 'name')} problem={problem} />
      <TextArea name="description" label="Description (optional)" value={text(values, 'description')} problem={problem} />
      <TextField name="color" label="Color (optional)" placeholder="#1a2b3c" value={text(values, 'color')} problem={problem} />
      <TextField name="icon" label="Icon name (optional)" value={text(values, 'icon')} problem={problem} />
    </>
  );
}

function ProjectList({ projects, archived }: { projects: Envelope<ProjectRecord>; archived: boolean }) {
  return (
    <>
      <form method="get" action={PATH} class="filters" aria-label="Filter projects">
        <label class="checkbox">
          <input type="checkbox" name="archived" value="true" checked={archived} /> Include archived projects
        </label>
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {projects.data.length === 0 ? (
        <p>No projects{archived ? '' : ' (archived ones are hidden)'}.</p>
      ) : (
        <Scroll label="Projects">
          <table>
            <caption>Projects, newest first</caption>
            <ColumnHeads names={['Project', 'Created', 'Tasks']} />
            <tbody>
              {projects.data.map((project) => (
                <tr>
                  <th scope="row">
                    <a href={`${PATH}/${project.id}`}>{project.name}</a>
                    {project.archived && <Badge value="archived" />}
                    {project.description && <div class="muted">{project.description}</div>}
                  </th>
                  <td>
                    <Time value={project.createdAt} />
                  </td>
                  <td>
                    <a href={`/dashboard/tasks?projectId=${project.id}`} aria-label={`Tasks of ${project.name}`}>
                      Tasks
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <Pager path={PATH} query={{ archived: archived ? 'true' : undefined }} pagination={projects.pagination} />
    </>
  );
}

function ProjectsBody({
  projects,
  archived,
  values,
  problem,
}: {
  projects: Envelope<ProjectRecord>;
  archived: boolean;
  values: Form;
  problem?: Problem | undefined;
}) {
  const can = useCan();
  return (
    <div class="split">
      <section>
        <ProjectList projects={projects} archived={archived} />
      </section>
      {can('projects:write') && (
        <PostForm action={PATH} label="Create a project">
          <h2>Create a project</h2>
          <ProblemSummary problem={problem} />
          <ProjectFields values={values} problem={problem} />
          <button type="submit">Create project</button>
        </PostForm>
      )}
    </div>
  );
}

function ProjectBody({ project, values, problem }: { project: ProjectRecord; values: Form; problem?: Problem | undefined }) {
  const can = useCan();
  return (
    <>
      <p>
        <a href={PATH}>All projects</a> · <a href={`/dashboard/tasks?projectId=${project.id}`}>Its tasks</a>
      </p>
      <dl class="facts">
        <dt>State</dt>
        <dd>
          <Badge value={project.archived ? 'archived' : 'open'} />
        </dd>
        <dt>Created</dt>
        <dd>
          <Time value={project.createdAt} />
        </dd>
        <dt>Updated</dt>
        <dd>
          <Time value={project.updatedAt} />
        </dd>
      </dl>
      {can('projects:write') && (
        <>
          <PostForm action={`${PATH}/${project.id}`} label="Edit the project">
            <h2>Edit</h2>
            <ProblemSummary problem={problem} />
            <ProjectFields values={values} problem={problem} />
            <button type="submit">Save</button>
          </PostForm>
          <ActionButton
            action={`${PATH}/${project.id}/archive`}
            label={project.archived ? 'Unarchive' : 'Archive'}
            hidden={{ archived: String(!project.archived) }}
          />
        </>
      )}
    </>
  );
}

const projectBody = (form: Form) => ({
  name: text(form, 'name'),
  description: orNull(text(form, 'description')),
  color: orNull(text(form, 'color')),
  icon: orNull(text(form, 'icon')),
});

/** Projects: browse (archived ones on request), create, edit, archive. */
export function projectPages(router: Router, { deps, assets }: DashboardApp): void {
  async function showList(req: Request, res: Response, extra: { status?: number; values?: Form; problem?: Problem } = {}) {
    const filters = queryOf(req, ['archived', 'offset']);
    const projects = await callOperation(listProjects, callerOf(req, res, deps), { query: filters });
    renderPage(req, res, assets, {
      title: 'Projects',
      section: 'projects',
      status: extra.status ?? 200,
      body: <ProjectsBody projects={projects} archived={filters.archived === 'true'} values={extra.values ?? {}} problem={extra.problem} />,
    });
  }

  async function showProject(req: Request, res: Response, extra: { status?: number; values?: Form; problem?: Problem } = {}) {
    const project = await callOperation(getProject, callerOf(req, res, deps), { params: req.params });
    const values = extra.values ?? { name: project.name, description: project.description ?? '', color: project.color ?? '', icon: project.icon ?? '' };
    renderPage(req, res, assets, {
      title: project.name,
      section: 'projects',
      status: extra.status ?? 200,
      body: <ProjectBody project={project} values={values} problem={extra.problem} />,
    });
  }

  router.get('/projects', (req, res) => showList(req, res));

  router.post('/projects', async (req, res) => {
    const values = formOf(req);
    try {
      const project = await callOperation(createProject, callerOf(req, res, deps), { body: projectBody(values) });
      redirectDone(res, `${PATH}/${project.id}`, 'project-created');
    } catch (err) {
      const problem = problemOf(err);
      await showList(req, res, { status: problem.status, values, problem });
    }
  });

  router.get('/projects/:projectId', (req, res) => showProject(req, res));

  router.post('/projects/:projectId', async (req, res) => {
    const values = formOf(req);
    try {
      await callOperation(updateProject, callerOf(req, res, deps), { params: req.params, body: projectBody(values) });
      redirectDone(res, `${PATH}/${req.params.projectId}`, 'project-updated');
    } catch (err) {
      const problem = problemOf(err);
      await showProject(req, res, { status: problem.status, values, problem });
    }
  });

  router.post('/projects/:projectId/archive', async (req, res) => {
    await callOperation(updateProject, callerOf(req, res, deps), { params: req.params, body: { archived: text(formOf(req), 'archived') === 'true' } });
    redirectDone(res, `${PATH}/${req.params.projectId}`, 'project-updated');
  });
}
