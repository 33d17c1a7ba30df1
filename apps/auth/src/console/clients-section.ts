/**
 * The console's Clients section (/admin/clients), on the client service and the access-policy
 * service authctl and /admin/v1 use (admin/client-admin.ts, admin/scope-admin.ts). Rules:
 * - the list pages by client id (50 a page, the service's opaque cursor as `after`);
 * - registering answers the new client's page with its secret, once (never carried by a
 *   redirect or a flash); a refused registration shows the form again, as typed, with the
 *   service's message (console-refusal.ts refusalText) and field, 400 (409 for a taken id);
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
import { ConsoleError, refusalText } from './console-refusal.ts';
import { allowedScopesInput, clientChanges, clientValues, formValues, NEW_CLIENT_DEFAULTS, newClientInput, type ClientFormValues } from './client-form.ts';
import { clientDetailBody, clientListBody, CLIENTS_PATH, GRACE_CHOICES, newClientBody, secretShownBody, type ClientDetailModel, type FormError, type GraceChoice } from './clients-page.ts';
import { csrfField } from '../views/console-layout.ts';
import { consoleTime } from '../views/console-time.ts';
import type { PageLanguage } from '../i18n/page-language.ts';
import { clientUrl } from './console-paths.ts';

export interface ClientsSectionDeps {
  clients: ClientAdmin;
  scopes: ScopeAdmin;
}

const PAGE_SIZE = 50;
export const COPY_SCRIPT = '/static/console-copy.js';

function formErrorOf(error: unknown, language: PageLanguage): (FormError & { status: number }) | undefined {
  if (error instanceof ClientRegistryError) {
    const status = error.code === 'duplicate_client' || error.code === 'public_client' ? 409 : error.code === 'unknown_client' ? 404 : 400;
    return { status, code: error.code, message: refusalText(language, error.code, error.message), ...(error.field ? { field: error.field } : {}) };
  }
  if (error instanceof ScopePolicyError) return { status: error.code === 'unknown_client' ? 404 : 400, code: error.code, message: refusalText(language, error.code, error.message) };
  return undefined;
}

export const clientsSection: ConsoleSection<ClientsSectionDeps> = {
  nav: { key: 'clients', href: CLIENTS_PATH },
  register(routes, deps) {
    const offeredScopes = (): string[] => [...deps.scopes.apiScopes(), ...ADMIN_SCOPES];

    async function showClient(request: ConsoleActionRequest, clientId: string, error: ClientDetailModel['error'], values?: ClientFormValues, status = 400): Promise<void> {
      const client = await deps.clients.get(clientId);
      const allowedScopes = await deps.scopes.clientScopes(clientId);
      request.render({
        title: client.name,
        status,
        body: clientDetailBody({ language: request.language, client, values: values ?? clientValues(client), allowedScopes, offeredScopes: offeredScopes(), readOnly: !request.viewer.canWrite, csrf: csrfField(request.viewer), ...(error ? { error } : {}) }),
      });
    }

    routes.page(CLIENTS_PATH, async (request) => {
      const after = request.ctx.URL.searchParams.get('after') ?? undefined;
      const page = await deps.clients.list({ limit: PAGE_SIZE, ...(after ? { after } : {}) });
      request.render({
        title: request.language.t('console.nav.clients'),
        body: clientListBody({ language: request.language, clients: page.items, nextHref: page.next ? `${CLIENTS_PATH}?after=${encodeURIComponent(page.next)}` : null, readOnly: !request.viewer.canWrite }),
      });
    });

    routes.page(`${CLIENTS_PATH}/new`, async (request) => {
      request.render({ title: request.language.t('console.clients.register'), body: newClientBody({ language: request.language, values: NEW_CLIENT_DEFAULTS, csrf: csrfField(request.viewer) }) });
    }, { write: true });

    routes.action(CLIENTS_PATH, async (request) => {
      let created;
      try {
        created = await deps.clients.create(request.admin.actor, newClientInput(request.form));
      } catch (error) {
        const refused = formErrorOf(error, request.language);
        if (!refused) throw error;
        const { status, ...shown } = refused;
        request.render({ title: request.language.t('console.clients.register'), status, body: newClientBody({ language: request.language, values: formValues(request.form), error: shown, csrf: csrfField(request.viewer) }) });
        return;
      }
      request.render({
        title: created.client.name,
        status: 201,
        scripts: [COPY_SCRIPT],
        body: secretShownBody({ language: request.language, client: created.client, ...(created.clientSecret !== undefined ? { secret: created.clientSecret } : {}), heading: request.language.t('console.clients.flash.registered', { client: created.client.clientId }) }),
      });
    }, { back: () => `${CLIENTS_PATH}/new` });

    routes.page(`${CLIENTS_PATH}/:id`, async (request) => {
      const client = await deps.clients.get(request.params.id!);
      const allowedScopes = await deps.scopes.clientScopes(client.clientId);
      request.render({
        title: client.name,
        body: clientDetailBody({ language: request.language, client, values: clientValues(client), allowedScopes, offeredScopes: offeredScopes(), readOnly: !request.viewer.canWrite, csrf: csrfField(request.viewer) }),
      });
    });

    routes.action(`${CLIENTS_PATH}/:id`, async (request) => {
      const clientId = request.params.id!;
      const current = await deps.clients.get(clientId);
      const changes = clientChanges(current, request.form);
      if (Object.keys(changes).length === 0) {
        request.redirect(clientUrl(clientId), { kind: 'notice', text: request.language.t('console.clients.flash.unchanged') });
        return;
      }
      try {
        await deps.clients.update(request.admin.actor, clientId, changes);
      } catch (error) {
        const refused = formErrorOf(error, request.language);
        if (!refused || refused.status === 404) throw error;
        const { status, ...shown } = refused;
        await showClient(request, clientId, { ...shown, form: 'registration' }, formValues({ ...request.form, type: current.public ? 'public' : 'confidential' }), status);
        return;
      }
      request.redirect(clientUrl(clientId), { kind: 'notice', text: request.language.t('console.clients.flash.saved', { client: clientId }) });
    }, { back: (params) => clientUrl(params.id!) });

    routes.action(`${CLIENTS_PATH}/:id/scopes`, async (request) => {
      const clientId = request.params.id!;
      const scopes = allowedScopesInput(request.form, offeredScopes());
      try {
        await deps.scopes.setClientScopes(request.admin.actor, clientId, scopes);
      } catch (error) {
        const refused = formErrorOf(error, request.language);
        if (!refused || refused.status === 404) throw error;
        const { status, ...shown } = refused;
        await showClient(request, clientId, { ...shown, form: 'scopes' }, undefined, status);
        return;
      }
      request.redirect(`${clientUrl(clientId)}#scopes-heading`, {
        kind: 'notice',
        text: scopes === null ? request.language.t('console.clients.flash.anyScope', { client: clientId }) : request.language.t('console.clients.flash.scopes', { client: clientId, scopes: scopes.join(' ') }),
      });
    }, { back: (params) => clientUrl(params.id!) });

    const graceOf = (language: PageLanguage, value: string | null | undefined): GraceChoice => {
      const choice = GRACE_CHOICES.find((g) => String(g.seconds) === value);
      if (!choice) throw new ConsoleError(400, 'invalid_input', language.t('console.error.graceChoice'));
      return choice;
    };

    routes.page(`${CLIENTS_PATH}/:id/rotate`, async (request) => {
      const { language } = request;
      const { t } = language;
      const client = await deps.clients.get(request.params.id!);
      const grace = graceOf(language, request.ctx.URL.searchParams.get('grace') ?? '86400');
      request.confirm(t('console.clients.rotate.title', { client: client.clientId }), {
        heading: t('console.clients.rotate.heading', { name: client.name }),
        consequences: [
          t('console.clients.rotate.newSecret', { client: client.clientId }),
          grace.seconds === 0 ? t('console.clients.rotate.endNow') : t('console.clients.rotate.keep', { grace: t(grace.label) }),
          ...(client.previousSecretExpiresAt !== undefined ? [t('console.clients.rotate.endOlder', { at: consoleTime(language, client.previousSecretExpiresAt) })] : []),
        ],
        action: `${clientUrl(client.clientId)}/rotate`,
        fields: { grace: String(grace.seconds) },
        submitLabel: t('console.clients.rotate.submit'),
        cancelHref: clientUrl(client.clientId),
        danger: grace.seconds === 0,
      });
    }, { write: true });

    routes.action(`${CLIENTS_PATH}/:id/rotate`, async (request) => {
      const { language } = request;
      const grace = graceOf(language, request.form.grace);
      const rotated = await deps.clients.rotateSecret(request.admin.actor, request.params.id!, { graceSeconds: grace.seconds });
      request.render({
        title: rotated.client.name,
        scripts: [COPY_SCRIPT],
        body: secretShownBody({
          language,
          client: rotated.client,
          secret: rotated.clientSecret,
          ...(rotated.previousSecretExpiresAt !== undefined ? { previousExpiresAt: rotated.previousSecretExpiresAt } : {}),
          heading: language.t(grace.seconds === 0 ? 'console.clients.flash.rotatedNow' : 'console.clients.flash.rotated', { client: rotated.client.clientId }),
        }),
      });
    }, { back: (params) => clientUrl(params.id!) });

    routes.page(`${CLIENTS_PATH}/:id/remove`, async (request) => {
      const { t } = request.language;
      const client = await deps.clients.get(request.params.id!);
      request.confirm(t('console.clients.removeConfirm.title', { client: client.clientId }), {
        heading: t('console.clients.removeConfirm.heading', { name: client.name }),
        consequences: [t('console.clients.removeConfirm.deletes', { client: client.clientId }), t('console.clients.removeConfirm.tokens'), t('console.clients.removeConfirm.undone')],
        action: `${clientUrl(client.clientId)}/remove`,
        submitLabel: t('console.clients.removeConfirm.submit'),
        cancelHref: clientUrl(client.clientId),
        danger: true,
      });
    }, { write: true });

    routes.action(`${CLIENTS_PATH}/:id/remove`, async (request) => {
      const clientId = request.params.id!;
      await deps.clients.remove(request.admin.actor, clientId);
      request.redirect(CLIENTS_PATH, { kind: 'notice', text: request.language.t('console.clients.flash.removed', { client: clientId }) });
    }, { back: (params) => clientUrl(params.id!) });
  },
};
