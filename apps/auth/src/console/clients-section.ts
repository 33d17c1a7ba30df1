/**
 * The console's Clients section (/admin/clients), on the client service and the access-policy
 * service authctl and /admin/v1 use (admin/client-admin.ts, admin/scope-admin.ts). Rules:
 * - the list pages by client id (50 a page, the service's opaque cursor as `after`);
 * - registering answers the new client's page with its secret, once (never carried by a
 *   redirect or a flash); a refused registration shows the form again, as typed, with the
 *   service's message and field, 400 (409 for a taken id);
 * - a saved registration or allowed-scopes form answers 303 to the client's page with a notice;
 *   a refused one shows the client's page with the message above that form, 400; a form that
 *   changes nothing says so and writes nothing;
 * - rotating the secret and removing the client are confirmed on a page saying what will happen
 *   (GET), then done by its form (POST); a rotation answers the new secret once, with until when
 *   the replaced one works; the grace period is one of the offered choices (else 400);
 * - `/admin/clients/new` is the create form: a client whose id is `new` is changed with authctl or
 *   the admin API, not here;
 * - the create form and the confirmation pages are write steps: a read-only admin gets 403
 *   `read_only` (as for every post);
 * - every change names the admin as its actor (the services audit it).
 */
import type { ClientAdmin } from '../admin/client-admin.ts';
import type { ScopeAdmin } from '../admin/scope-admin.ts';
import { ADMIN_SCOPES } from '../policy/admin-scopes.ts';
import { ClientRegistryError } from '../clients/client-store.ts';
import { ScopePolicyError } from '../policy/scope-policy-service.ts';
import type { ConsoleActionRequest, ConsoleSection } from './console-routes.ts';
import { ConsoleError } from './console-refusal.ts';
import { allowedScopesInput, clientChanges, clientValues, formValues, NEW_CLIENT_DEFAULTS, newClientInput, type ClientFormValues } from './client-form.ts';
import { clientDetailBody, clientListBody, CLIENTS_PATH, GRACE_CHOICES, newClientBody, secretShownBody, type ClientDetailModel, type FormError } from './clients-page.ts';
import { csrfField } from '../views/console-layout.ts';
import { consoleDate } from '../views/console-dashboard-page.ts';
import { clientUrl } from './console-paths.ts';

export interface ClientsSectionDeps {
  clients: ClientAdmin;
  scopes: ScopeAdmin;
}

const PAGE_SIZE = 50;
export const COPY_SCRIPT = '/static/console-copy.js';

function formErrorOf(error: unknown): (FormError & { status: number }) | undefined {
  if (error instanceof ClientRegistryError) {
    const status = error.code === 'duplicate_client' || error.code === 'public_client' ? 409 : error.code === 'unknown_client' ? 404 : 400;
    return { status, code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) };
  }
  if (error instanceof ScopePolicyError) return { status: error.code === 'unknown_client' ? 404 : 400, code: error.code, message: error.message };
  return undefined;
}

export const clientsSection: ConsoleSection<ClientsSectionDeps> = {
  nav: { key: 'clients', href: CLIENTS_PATH, label: 'Clients' },
  register(routes, deps) {
    const offeredScopes = (): string[] => [...deps.scopes.apiScopes(), ...ADMIN_SCOPES];

    async function showClient(request: ConsoleActionRequest, clientId: string, error: ClientDetailModel['error'], values?: ClientFormValues, status = 400): Promise<void> {
      const client = await deps.clients.get(clientId);
      const allowedScopes = await deps.scopes.clientScopes(clientId);
      request.render({
        title: client.name,
        status,
        body: clientDetailBody({ client, values: values ?? clientValues(client), allowedScopes, offeredScopes: offeredScopes(), readOnly: !request.viewer.canWrite, csrf: csrfField(request.viewer), ...(error ? { error } : {}) }),
      });
    }

    routes.page(CLIENTS_PATH, async (request) => {
      const after = request.ctx.URL.searchParams.get('after') ?? undefined;
      const page = await deps.clients.list({ limit: PAGE_SIZE, ...(after ? { after } : {}) });
      request.render({
        title: 'Clients',
        body: clientListBody({ clients: page.items, nextHref: page.next ? `${CLIENTS_PATH}?after=${encodeURIComponent(page.next)}` : null, readOnly: !request.viewer.canWrite }),
      });
    });

    routes.page(`${CLIENTS_PATH}/new`, async (request) => {
      request.render({ title: 'Register a client', body: newClientBody({ values: NEW_CLIENT_DEFAULTS, csrf: csrfField(request.viewer) }) });
    }, { write: true });

    routes.action(CLIENTS_PATH, async (request) => {
      let created;
      try {
        created = await deps.clients.create(request.admin.actor, newClientInput(request.form));
      } catch (error) {
        const refused = formErrorOf(error);
        if (!refused) throw error;
        const { status, ...shown } = refused;
        request.render({ title: 'Register a client', status, body: newClientBody({ values: formValues(request.form), error: shown, csrf: csrfField(request.viewer) }) });
        return;
      }
      request.render({
        title: created.client.name,
        status: 201,
        scripts: [COPY_SCRIPT],
        body: secretShownBody({ client: created.client, ...(created.clientSecret !== undefined ? { secret: created.clientSecret } : {}), heading: `Client ${created.client.clientId} is registered.` }),
      });
    }, { back: () => `${CLIENTS_PATH}/new` });

    routes.page(`${CLIENTS_PATH}/:id`, async (request) => {
      const client = await deps.clients.get(request.params.id!);
      const allowedScopes = await deps.scopes.clientScopes(client.clientId);
      request.render({
        title: client.name,
        body: clientDetailBody({ client, values: clientValues(client), allowedScopes, offeredScopes: offeredScopes(), readOnly: !request.viewer.canWrite, csrf: csrfField(request.viewer) }),
      });
    });

    routes.action(`${CLIENTS_PATH}/:id`, async (request) => {
      const clientId = request.params.id!;
      const current = await deps.clients.get(clientId);
      const changes = clientChanges(current, request.form);
      if (Object.keys(changes).length === 0) {
        request.redirect(clientUrl(clientId), { kind: 'notice', text: 'Nothing changed: the registration already had these values.' });
        return;
      }
      try {
        await deps.clients.update(request.admin.actor, clientId, changes);
      } catch (error) {
        const refused = formErrorOf(error);
        if (!refused || refused.status === 404) throw error;
        const { status, ...shown } = refused;
        await showClient(request, clientId, { ...shown, form: 'registration' }, formValues({ ...request.form, type: current.public ? 'public' : 'confidential' }), status);
        return;
      }
      request.redirect(clientUrl(clientId), { kind: 'notice', text: `The registration of ${clientId} is saved.` });
    }, { back: (params) => clientUrl(params.id!) });

    routes.action(`${CLIENTS_PATH}/:id/scopes`, async (request) => {
      const clientId = request.params.id!;
      const scopes = allowedScopesInput(request.form, offeredScopes());
      try {
        await deps.scopes.setClientScopes(request.admin.actor, clientId, scopes);
      } catch (error) {
        const refused = formErrorOf(error);
        if (!refused || refused.status === 404) throw error;
        const { status, ...shown } = refused;
        await showClient(request, clientId, { ...shown, form: 'scopes' }, undefined, status);
        return;
      }
      request.redirect(`${clientUrl(clientId)}#scopes-heading`, {
        kind: 'notice',
        text: scopes === null ? `${clientId} may request any API scope.` : `${clientId} may request: ${scopes.join(' ')}.`,
      });
    }, { back: (params) => clientUrl(params.id!) });

    const graceOf = (value: string | null | undefined): { seconds: number; label: string } => {
      const choice = GRACE_CHOICES.find((g) => String(g.seconds) === value);
      if (!choice) throw new ConsoleError(400, 'invalid_input', 'Choose one of the offered grace periods.');
      return choice;
    };

    routes.page(`${CLIENTS_PATH}/:id/rotate`, async (request) => {
      const client = await deps.clients.get(request.params.id!);
      const grace = graceOf(request.ctx.URL.searchParams.get('grace') ?? '86400');
      request.confirm(`Rotate the secret of ${client.clientId}`, {
        heading: `Rotate the secret of ${client.name}?`,
        consequences: [
          `Give ${client.clientId} a new secret, shown once on the next page.`,
          grace.seconds === 0 ? 'End the current secret at once: the application fails until it has the new one.' : `Keep the current secret working for ${grace.label}, then end it.`,
          ...(client.previousSecretExpiresAt !== undefined ? [`End the older secret still in its grace period (until ${consoleDate(client.previousSecretExpiresAt)}) at once.`] : []),
        ],
        action: `${clientUrl(client.clientId)}/rotate`,
        fields: { grace: String(grace.seconds) },
        submitLabel: 'Rotate the secret',
        cancelHref: clientUrl(client.clientId),
        danger: grace.seconds === 0,
      });
    }, { write: true });

    routes.action(`${CLIENTS_PATH}/:id/rotate`, async (request) => {
      const grace = graceOf(request.form.grace);
      const rotated = await deps.clients.rotateSecret(request.admin.actor, request.params.id!, { graceSeconds: grace.seconds });
      request.render({
        title: rotated.client.name,
        scripts: [COPY_SCRIPT],
        body: secretShownBody({
          client: rotated.client,
          secret: rotated.clientSecret,
          ...(rotated.previousSecretExpiresAt !== undefined ? { previousExpiresAt: rotated.previousSecretExpiresAt } : {}),
          heading: grace.seconds === 0 ? `The secret of ${rotated.client.clientId} is rotated; the old one no longer works.` : `The secret of ${rotated.client.clientId} is rotated.`,
        }),
      });
    }, { back: (params) => clientUrl(params.id!) });

    routes.page(`${CLIENTS_PATH}/:id/remove`, async (request) => {
      const client = await deps.clients.get(request.params.id!);
      request.confirm(`Remove ${client.clientId}`, {
        heading: `Remove the client ${client.name}?`,
        consequences: [
          `Delete the registration of ${client.clientId}: it can no longer sign anyone in.`,
          'End its access and refresh tokens at once, and its secrets stop working.',
          'This cannot be undone: registering the same client ID again gives it a new secret.',
        ],
        action: `${clientUrl(client.clientId)}/remove`,
        submitLabel: 'Remove the client',
        cancelHref: clientUrl(client.clientId),
        danger: true,
      });
    }, { write: true });

    routes.action(`${CLIENTS_PATH}/:id/remove`, async (request) => {
      const clientId = request.params.id!;
      await deps.clients.remove(request.admin.actor, clientId);
      request.redirect(CLIENTS_PATH, { kind: 'notice', text: `Client ${clientId} is removed.` });
    }, { back: (params) => clientUrl(params.id!) });
  },
};
