/**
 * @gatehouse/fuzz: the shared fast-check harness that drives an app over real HTTP with hostile
 * requests and checks the service contract's invariants on every answer (see README.md).
 */
export { default as fc } from 'fast-check';
export { sendRaw, parseResponse, serializeRequest, FRAMING_HEADERS, type FuzzRequest, type FuzzResponse } from './send-raw.ts';
export { anyText, asciiText, clean, controlText, sometimes, encodeURIComponentLoose, oddNumbers, pathSegment, queryValue, PROTOTYPE_NAMES } from './adversarial-values.ts';
export { ANY_METHOD, methodFor, pathFor, queryFor, targetFor, type RouteSpec } from './targets.ts';
export { headerSet, flip, type HeaderList, type HeaderOptions } from './headers.ts';
export { bodyCase, type BodyCase, type BodyOptions } from './bodies.ts';
export { cookieHeaders, type Cookie } from './cookies.ts';
export { fuzzRequest, describeRequest, type RequestOptions } from './requests.ts';
export { anyShape, htmlErrorPage, oauthErrorJson, parserRejection, problemJson, problemXml, type ShapeCheck } from './shapes.ts';
export { checkResponse } from './invariants.ts';
export { DEFAULT_SEED, fuzzSettings, runFuzz, type FuzzReport, type FuzzSettings, type FuzzTarget, type RunOptions } from './run-fuzz.ts';
