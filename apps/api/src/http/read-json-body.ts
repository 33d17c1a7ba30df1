/**
 * Reads a JSON request body. Rules:
 * - the Content-Type is `application/json` or any `application/*+json` (the vendor types included),
 *   with no charset or `charset=utf-8`; anything else is 415;
 * - a declared Content-Length over the limit is refused before reading; a body that grows
 *   over the limit while streaming is refused as soon as it does (413);
 * - an empty body or invalid JSON is 400 malformed_body.
 * These are the shared reader's rules (`@gatehouse/http` readRequestBody); this file answers its
 * refusals in the API's problem shape.
 */
import type { IncomingMessage } from 'node:http';
import { BodyError, readRequestBody } from '@gatehouse/http';
import { malformedBody, payloadTooLarge, unsupportedMediaType } from '../errors/api-error.ts';

const ACCEPTED = ['application/json', 'application/vnd.gatehouse.v<n>+json'];

export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  try {
    return (await readRequestBody(req, { limit, accept: ['application/json', 'application/*+json'] })).value;
  } catch (thrown) {
    if (!(thrown instanceof BodyError)) throw thrown;
    switch (thrown.code) {
      case 'unsupported_media_type':
        throw unsupportedMediaType(ACCEPTED);
      case 'payload_too_large':
        throw payloadTooLarge(limit);
      case 'aborted':
        throw malformedBody('the request body ended before it was complete');
      case 'empty_body':
        throw malformedBody('the request body is empty; send one item as JSON');
      case 'malformed_json':
      case 'not_an_object':
        throw malformedBody('the request body is not valid JSON');
    }
  }
}
