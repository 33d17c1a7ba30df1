/**
 * Paging of collection lists. Rules: `limit` is an integer from 1 to the configured maximum
 * (default from the collection file); `after` is the last id of the previous page (0 or absent
 * for the first page); anything else is 400 invalid_paging naming the parameter. A next page
 * exists when one more item than `limit` was found.
 */
import { ApiError, type FieldError } from '../errors/api-error.ts';
import { MAX_ID } from '../collections/item-validator.ts';

export interface PageRequest {
  readonly limit: number;
  readonly after: number;
}

export function parsePageRequest(
  query: URLSearchParams,
  paging: { readonly defaultLimit: number; readonly maxLimit: number },
): PageRequest {
  const errors: FieldError[] = [];
  const limitText = query.get('limit');
  const afterText = query.get('after');
  let limit = paging.defaultLimit;
  let after = 0;
  if (limitText !== null) {
    limit = /^[0-9]{1,4}$/.test(limitText) ? Number(limitText) : NaN;
    if (!(limit >= 1 && limit <= paging.maxLimit)) errors.push({ field: 'limit', message: `must be an integer from 1 to ${paging.maxLimit}` });
  }
  if (afterText !== null) {
    after = /^[0-9]{1,16}$/.test(afterText) ? Number(afterText) : NaN;
    if (!(after >= 0 && after <= MAX_ID)) errors.push({ field: 'after', message: 'must be the id of the last item of the previous page' });
  }
  if (errors.length) {
    throw new ApiError(400, 'invalid_paging', 'Bad Request', { detail: `invalid paging parameter: ${errors.map((e) => e.field).join(', ')}`, errors });
  }
  return { limit, after };
}

/** The URL of the next page: the same URL with `after` and `limit` set. */
export function nextPageUrl(origin: string, path: string, querystring: string, request: PageRequest, lastId: number): string {
  const query = new URLSearchParams(querystring);
  query.set('limit', String(request.limit));
  query.set('after', String(lastId));
  return `${origin}${path}?${query.toString()}`;
}
