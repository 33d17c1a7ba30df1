/**
 * The five operations on items. Each takes what the earlier steps established (collection,
 * version, representation) and answers with a view. Shapes per version:
 * - v1: a list is a JSON array; a single item is an array holding one item (docs/spec.md §4.1);
 * - v2: a list is a page envelope; a single item is an object;
 * - both: POST answers 201 with `Location` and the stored item, PUT 200 with the item,
 *   DELETE 204 with no body.
 */
import { ApiError, itemNotFound, validationFailed } from '../errors/api-error.ts';
import { parseId, validateItem, type Item } from '../collections/item-validator.ts';
import type { CollectionSpec, VersionSpec } from '../collections/collection-config.ts';
import type { ApiContext } from '../http/state.ts';
import { readJsonBody } from '../http/read-json-body.ts';
import type { Negotiated } from '../representations/negotiate.ts';
import { render } from '../representations/render.ts';
import type { View } from '../representations/view.ts';
import type { ItemStore } from '../storage/item-store.ts';
import type { MatchedPath } from './match-path.ts';
import { nextPageUrl, parsePageRequest } from './paging.ts';

export interface OperationInput {
  readonly collection: CollectionSpec;
  readonly match: MatchedPath;
  readonly version: VersionSpec;
  readonly negotiated: Negotiated;
  readonly store: ItemStore;
  readonly paging: { readonly defaultLimit: number; readonly maxLimit: number };
  readonly bodyLimit: number;
  readonly clock: () => number;
  /** The configured public origin (API_PUBLIC_URL): the start of `Location` and paging links. */
  readonly publicUrl: string;
}

export type Operation = (ctx: ApiContext, input: OperationInput) => Promise<void>;

// The HTML table's columns, worked out once per collection rather than on every response.
const columns = new WeakMap<CollectionSpec, readonly string[]>();
function columnsOf(collection: CollectionSpec): readonly string[] {
  let found = columns.get(collection);
  if (!found) columns.set(collection, (found = Object.freeze(['id', ...Object.keys(collection.fields)])));
  return found;
}

function itemId(input: OperationInput): number {
  const id = parseId(input.match.idSegment ?? '');
  if (id === undefined) {
    throw new ApiError(400, 'invalid_id', 'Bad Request', {
      detail: 'the item id in the path must be a positive integer',
      errors: [{ field: 'id', message: 'must be a positive integer' }],
    });
  }
  return id;
}

export const listItems: Operation = async (ctx, input) => {
  const request = parsePageRequest(new URLSearchParams(ctx.querystring), input.paging);
  const found = await input.store.list(input.collection.name, { after: request.after, limit: request.limit + 1 });
  const items = found.slice(0, request.limit);
  const last = items.at(-1);
  const next = found.length > request.limit && last ? nextPageUrl(input.publicUrl, ctx.path, ctx.querystring, request, last.id) : null;
  if (next) ctx.append('Link', `<${next}>; rel="next"`);
  const name = input.collection.name;
  const view =
    input.version.version === 1
      ? ({ kind: 'items', collection: name, items } as const)
      : ({ kind: 'page', collection: name, items, limit: request.limit, next } as const);
  render(ctx, input.negotiated, 200, view, columnsOf(input.collection));
};

/** What a read of one item shows: v1 an array of one item, later versions the item. */
export function itemReadView(version: VersionSpec, collection: string, item: Item): View {
  return version.version === 1 ? { kind: 'items', collection, items: [item] } : { kind: 'item', collection, item };
}

export const readItem: Operation = async (ctx, input) => {
  const id = itemId(input);
  const item = await input.store.get(input.collection.name, id);
  if (!item) throw itemNotFound(input.collection.name, id);
  render(ctx, input.negotiated, 200, itemReadView(input.version, input.collection.name, item), columnsOf(input.collection));
};

export const createItem: Operation = async (ctx, input) => {
  const body = await readJsonBody(ctx.req, input.bodyLimit);
  const checked = validateItem(input.collection, body, true);
  if (!checked.ok) throw validationFailed(checked.errors);
  const item = checked.item as Item;
  if (!(await input.store.create(input.collection.name, item, input.clock()))) {
    throw new ApiError(409, 'duplicate_id', 'Conflict', { detail: `${input.collection.name} already has an item with id ${item.id}` });
  }
  const version = new URLSearchParams(ctx.querystring).get('version');
  ctx.set('Location', `${input.publicUrl}${input.match.collectionPath}/${item.id}${version === null ? '' : `?version=${encodeURIComponent(version)}`}`);
  render(ctx, input.negotiated, 201, { kind: 'item', collection: input.collection.name, item }, columnsOf(input.collection));
};

export const replaceItem: Operation = async (ctx, input) => {
  const id = itemId(input);
  const body = await readJsonBody(ctx.req, input.bodyLimit);
  const bodyId = (body as { id?: unknown } | null)?.id;
  if (typeof body === 'object' && body !== null && bodyId !== undefined && bodyId !== id) {
    throw new ApiError(400, 'id_mismatch', 'Bad Request', {
      detail: `the id in the body (${JSON.stringify(bodyId)}) differs from the id in the path (${id})`,
      errors: [{ field: 'id', message: `must equal the id in the path (${id})` }],
    });
  }
  const checked = validateItem(input.collection, body, false);
  if (!checked.ok) throw validationFailed(checked.errors);
  const item = { ...checked.item, id } as Item;
  if (!(await input.store.replace(input.collection.name, item, input.clock()))) throw itemNotFound(input.collection.name, id);
  render(ctx, input.negotiated, 200, { kind: 'item', collection: input.collection.name, item: { id, ...checked.item } as Item }, columnsOf(input.collection));
};

export const removeItem: Operation = async (ctx, input) => {
  const id = itemId(input);
  if (!(await input.store.remove(input.collection.name, id))) throw itemNotFound(input.collection.name, id);
  ctx.status = 204;
  ctx.body = null;
};
