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
import { ConsoleError, refusalText } from './console-refusal.ts';
import { SCOPES_PATH, scopesBody } from './scopes-page.ts';

export interface ScopesSectionDeps {
  scopes: ScopeAdmin;
}

export const scopesSection: ConsoleSection<ScopesSectionDeps> = {
  nav: { key: 'scopes', href: SCOPES_PATH },
  register(routes, deps) {
    routes.page(SCOPES_PATH, async (request) => {
      request.render({
        title: request.language.t('console.nav.scopes'),
        body: scopesBody({ language: request.language, apiScopes: deps.scopes.apiScopes(), policies: await deps.scopes.list(), readOnly: !request.viewer.canWrite, csrf: csrfField(request.viewer) }),
      });
    });

    routes.action(SCOPES_PATH, async (request) => {
      const { language } = request;
      const { t } = language;
      const scope = request.field('scope', t('console.scopes.scope'));
      const typed = request.form.groups ?? '';
      const groups = typed.split(',').map((g) => g.trim()).filter((g) => g !== '');
      let saved;
      try {
        saved = await deps.scopes.restrict(request.admin.actor, scope, groups);
      } catch (error) {
        if (!(error instanceof ScopePolicyError)) throw error;
        request.render({
          title: t('console.nav.scopes'),
          status: 400,
          body: scopesBody({
            language,
            apiScopes: deps.scopes.apiScopes(),
            policies: await deps.scopes.list(),
            readOnly: false,
            csrf: csrfField(request.viewer),
            error: { code: error.code, message: refusalText(language, error.code, error.message), field: error.code === 'invalid_scope' ? 'scope' : 'groups' },
            values: { scope, groups: typed },
          }),
        });
        return;
      }
      request.redirect(SCOPES_PATH, { kind: 'notice', text: t('console.scopes.flash.restricted', { scope: saved.scope, groups: saved.groups.join(', ') }) });
    });

    routes.page(`${SCOPES_PATH}/:scope/clear`, async (request) => {
      const { t } = request.language;
      const scope = request.params.scope!;
      const policy = (await deps.scopes.list()).find((p) => p.scope === scope);
      if (!policy) throw new ConsoleError(404, 'no_policy', t('console.error.noPolicy', { scope }));
      request.confirm(t('console.scopes.liftTitle', { scope }), {
        heading: t('console.scopes.liftHeading', { scope }),
        consequences: [t('console.scopes.liftGrant', { scope, groups: policy.groups.join(', ') }), t('console.scopes.liftTokens')],
        action: `${SCOPES_PATH}/${encodeURIComponent(scope)}/clear`,
        submitLabel: t('console.scopes.lift'),
        cancelHref: SCOPES_PATH,
        danger: true,
      });
    }, { write: true });

    routes.action(`${SCOPES_PATH}/:scope/clear`, async (request) => {
      const scope = request.params.scope!;
      await deps.scopes.clear(request.admin.actor, scope);
      request.redirect(SCOPES_PATH, { kind: 'notice', text: request.language.t('console.scopes.flash.open', { scope }) });
    }, { back: () => SCOPES_PATH });
  },
};
