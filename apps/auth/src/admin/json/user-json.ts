/**
 * The JSON shape of a user: the admin API's bodies (/admin/v1/users) and `authctl user ... --json`
 * print exactly these. Rules:
 * - never a credential: no password hash, TOTP secret or recovery code, only which second
 *   factors are enrolled;
 * - `locked` / `locked_until` say whether brute-force regulation locks the account out now and
 *   until when (the user service's lockedUntil);
 * - the schemas are the OpenAPI document's `User`, `UserDetails` and `UserPage`
 *   (admin/http/openapi.ts).
 */
import { z } from 'zod';
import type { Account } from '../../accounts/account-store.ts';
import type { UserDetails } from '../user-admin.ts';
import { IsoTime, isoTime } from './json-time.ts';
import { pageJson } from './page-json.ts';

export const UserJson = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string().meta({ format: 'email' }),
  name: z.string(),
  groups: z.array(z.string()),
  disabled: z.boolean(),
  disabled_at: IsoTime.nullable(),
  locked: z.boolean().meta({ description: 'Brute-force regulation locks the account out now (its password step or second factor); POST /users/{id}/unlock ends it' }),
  locked_until: IsoTime.nullable().meta({ description: 'When that lock ends; null when the account is not locked' }),
  created_at: IsoTime,
});
export type UserJson = z.output<typeof UserJson>;

export const UserDetailsJson = UserJson.extend({
  second_factors: z.object({
    totp: z.boolean(),
    devices: z.number().int().meta({ description: 'Authenticator devices (push)' }),
    passkeys: z.number().int(),
    recovery_codes_left: z.number().int(),
  }),
});
export type UserDetailsJson = z.output<typeof UserDetailsJson>;

export const UserPageJson = pageJson(UserJson);

/** `lockedUntil`: the user service's lockedUntil for the account (epoch ms, null when not locked). */
export function userJson(account: Account, lockedUntil: number | null): UserJson {
  return {
    id: account.id,
    username: account.username,
    email: account.email,
    name: account.name,
    groups: account.groups,
    disabled: account.disabledAt !== null,
    disabled_at: isoTime(account.disabledAt),
    locked: lockedUntil !== null,
    locked_until: isoTime(lockedUntil),
    created_at: isoTime(account.createdAt),
  };
}

export function userDetailsJson({ account, secondFactors }: UserDetails, lockedUntil: number | null): UserDetailsJson {
  return {
    ...userJson(account, lockedUntil),
    second_factors: {
      totp: secondFactors.totp,
      devices: secondFactors.devices,
      passkeys: secondFactors.passkeys,
      recovery_codes_left: secondFactors.recoveryCodesLeft,
    },
  };
}
