import type { Request, Response, Router } from 'express';
import type { LabelRecord } from '@worktrack/events';
import type { Envelope } from '../../http/pagination';
import { createLabel } from '../../modules/labels/create-label';
import { deleteLabel } from '../../modules/labels/delete-label';
import { listLabels } from '../../modules/labels/list-labels';
import { callerOf } from '../context';
import { formOf, optional, queryOf, text, type Form } from '../form';
import { redirectDone } from '../notices';
import { callOperation } from '../../pipeline';
import { problemOf, type Problem } from '../problem';
import { rowAction } from '../row-action';
import type { DashboardApp } from '../dashboard-app';
import { ActionButton, ColumnHeads, Pager, PostForm, ProblemSummary, RowProblem, Scroll, TextField } from '../views/components';
import { LabelChip } from '../views/label-chips';
import { useCan } from '../views/page-context';
import { renderPage } from '../views/render';

const PATH = '/dashboard/labels';

function LabelTable({ labels }: { labels: Envelope<LabelRecord> }) {
  const can = useCan();
  if (labels.data.length === 0) return <p>No labels yet.</p>;
  return (
    <>
      <Scroll label="Labels">
        <table>
          <caption>Labels, newest first</caption>
          <ColumnHeads names={['Label', 'Description', 'Tasks', can('projects:write') && 'Actions']} />
          <tbody>
            {labels.data.map((label) => (
              <tr>
                <th scope="row">
                  <LabelChip label={label} />
                  <RowProblem row={label.id} />
                </th>
                <td>{label.description ?? '—'}</td>
                <td>
                  <a href={`/dashboard/tasks?labelId=${label.id}`} aria-label={`Tasks labelled ${label.name}`}>
                    Tasks
                  </a>
                </td>
                {can('projects:write') && (
                  <td>
                    <ActionButton
                      action={`${PATH}/${label.id}/delete`}
                      label="Delete"
                      name={`Delete ${label.name}`}
                      confirm={`Delete the label "${label.name}"? It is taken off every task.`}
                      danger
                    />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <Pager path={PATH} query={{}} pagination={labels.pagination} />
    </>
  );
}

function LabelsBody({ labels, values, problem }: { labels: Envelope<LabelRecord>; values: Form; problem?: Problem | undefined }) {
  const can = useCan();
  return (
    <div class="split">
      <section>
        <LabelTable labels={labels} />
      </section>
      {can('projects:write') && (
        <PostForm action={PATH} label="Create a label">
          <h2>Create a label</h2>
          <ProblemSummary problem={problem} />
          <TextField name="name" label="Name" required value={text(values, 'name')} problem={problem} />
          <TextField name="color" label="Color (optional)" placeholder="#d73a4a" value={text(values, 'color')} problem={problem} />
          <TextField name="description" label="Description (optional)" value={text(values, 'description')} problem={problem} />
          <button type="submit">Create label</button>
        </PostForm>
      )}
    </div>
  );
}

/** Labels: the organization's vocabulary for tasks; list, create, delete. */
export function labelPages(router: Router, { deps, assets }: DashboardApp): void {
  async function show(req: Request, res: Response, extra: { status?: number; values?: Form; problem?: Problem } = {}) {
    const labels = await callOperation(listLabels, callerOf(req, res, deps), { query: queryOf(req, ['offset']) });
    renderPage(req, res, assets, {
      title: 'Labels',
      section: 'labels',
      status: extra.status ?? 200,
      body: <LabelsBody labels={labels} values={extra.values ?? {}} problem={extra.problem} />,
    });
  }

  router.get('/labels', (req, res) => show(req, res));

  router.post('/labels', async (req, res) => {
    const values = formOf(req);
    try {
      await callOperation(createLabel, callerOf(req, res, deps), {
        body: { name: text(values, 'name'), color: optional(text(values, 'color')), description: optional(text(values, 'description')) },
      });
      redirectDone(res, PATH, 'label-created');
    } catch (err) {
      const problem = problemOf(err);
      await show(req, res, { status: problem.status, values, problem });
    }
  });

  router.post(
    '/labels/:labelId/delete',
    rowAction(
      deps,
      PATH,
      (req) => String(req.params.labelId),
      async (req, res) => {
        await callOperation(deleteLabel, callerOf(req, res, deps), { params: req.params });
        redirectDone(res, PATH, 'label-deleted');
      },
    ),
  );
}
