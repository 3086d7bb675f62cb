import type { Router } from 'express';
import { eventCatalog } from '../../modules/events/list-event-types';
import type { DashboardApp } from '../dashboard-app';
import { Pre } from '../views/components';
import { renderPage } from '../views/render';

/** The event catalog, as GET /v1/event-types has it: what each type means, the schema of its `data`, a sample body. */
export function eventTypePages(router: Router, { assets }: DashboardApp): void {
  router.get('/events', (req, res) => {
    renderPage(req, res, assets, {
      title: 'Event types',
      section: 'webhooks',
      body: (
        <>
          <p>
            What a subscription can receive. Each delivery is a POST of a JSON body like the example, signed with the subscription's secret. The same catalog is
            served, with no key, at <code>GET /v1/event-types</code>.
          </p>
          <nav aria-label="Event types" class="toc">
            <ul>
              {eventCatalog().map((entry) => (
                <li>
                  <a href={`#${entry.type}`}>
                    <code>{entry.type}</code>
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          {eventCatalog().map((entry) => (
            <section id={entry.type} aria-labelledby={`${entry.type}-title`} class="event-type">
              <h2 id={`${entry.type}-title`}>
                <code>{entry.type}</code>
              </h2>
              <p>{entry.description.split('`').map((part, i) => (i % 2 === 1 ? <code>{part}</code> : part))}</p>
              <details>
                <summary>Example body</summary>
                <Pre>{JSON.stringify(entry.example, null, 2)}</Pre>
              </details>
              <details>
                <summary>
                  Schema of <code>data</code>
                </summary>
                <Pre>{JSON.stringify(entry.schema, null, 2)}</Pre>
              </details>
            </section>
          ))}
        </>
      ),
    });
  });
}
