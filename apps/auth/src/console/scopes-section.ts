/**
 * The console's Scope policies section (/admin/scopes), on the access-policy service authctl
 * uses (admin/scope-admin.ts). Rules:
 * - the page lists every API scope with its groups, or open to every user;
 * - setting a policy takes a scope and comma-separated groups (they replace the scope's groups);
 *   a refused one shows the page again with the message above the form and the values as typed, 400;
 * - lifting a policy is confirmed on a page saying what will happen (GET), then done (POST);
 *   a scope without a policy is 400 `no_policy` there;
 * - every change names the admin as its actor (the service audits it) and answers 303 to the
 *   page with a notice.
 */
import type { ScopeAdmin } from '../admin/scope-admin.ts';
import { ScopePolicyError } from '../policy/scope-policy-service.ts';
import { csrfField } from '../views/console-layout.ts';
import type { ConsoleSection } from './console-routes.ts';
import { ConsoleError } from './console-refusal.ts';
import { SCOPES_PATH, scopesBody } from './scopes-page.ts';

export interface ScopesSectionDeps {
  scopes: ScopeAdmin;
}

export const scopesSection: ConsoleSection<ScopesSectionDeps> = {
  nav: { key: 'scopes', href: SCOPES_PATH, label: 'Scope policies' },
  register(routes, deps) {
    routes.page(SCOPES_PATH, async (request) => {
      request.render({
        title: 'Scope policies',
        body: scopesBody({ apiScopes: deps.scopes.apiScopes(), policies: await deps.scopes.list(), readOnly: !request.viewer.canWrite, csrf: csrfField(request.viewer) }),
      });
    });

    routes.action(SCOPES_PATH, async (request) => {
      const scope = request.field('scope', 'The scope');
      const typed = request.form.groups ?? '';
      const groups = typed.split(',').map((g) => g.trim()).filter((g) => g !== '');
      let saved;
      try {
        saved = await deps.scopes.restrict(request.admin.actor, scope, groups);
      } catch (error) {
        if (!(error instanceof ScopePolicyError)) throw error;
        request.render({
          title: 'Scope policies',
          status: 400,
          body: scopesBody({
            apiScopes: deps.scopes.apiScopes(),
            policies: await deps.scopes.list(),
            readOnly: false,
            csrf: csrfField(request.viewer),
            error: { code: error.code, message: error.message, field: error.code === 'invalid_scope' ? 'scope' : 'groups' },
            values: { scope, groups: typed },
          }),
        });
        return;
      }
      request.redirect(SCOPES_PATH, { kind: 'notice', text: `${saved.scope} is granted only to users in: ${saved.groups.join(', ')}.` });
    });

    routes.page(`${SCOPES_PATH}/:scope/clear`, async (request) => {
      const scope = request.params.scope!;
      const policy = (await deps.scopes.list()).find((p) => p.scope === scope);
      if (!policy) throw new ConsoleError(404, 'no_policy', `Scope "${scope}" has no policy.`);
      request.confirm(`Lift the policy of ${scope}`, {
        heading: `Lift the policy of ${scope}?`,
        consequences: [
          `Grant ${scope} to every user again, not only to the groups ${policy.groups.join(', ')}.`,
          'Tokens already issued keep the scopes they have.',
        ],
        action: `${SCOPES_PATH}/${encodeURIComponent(scope)}/clear`,
        submitLabel: 'Lift the policy',
        cancelHref: SCOPES_PATH,
        danger: true,
      });
    }, { write: true });

    routes.action(`${SCOPES_PATH}/:scope/clear`, async (request) => {
      const scope = request.params.scope!;
      await deps.scopes.clear(request.admin.actor, scope);
      request.redirect(SCOPES_PATH, { kind: 'notice', text: `${scope} is open to every user.` });
    }, { back: () => SCOPES_PATH });
  },
};
