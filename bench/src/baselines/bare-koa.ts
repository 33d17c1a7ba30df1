/**
 * Baseline of the API read: bare Koa 3 + @koa/router, answering `GET /api/movies/:id` with the
 * same JSON body the API sends, from memory. No token check, no database, no logging. It
 * reports its port to the parent over IPC and stops when the parent disconnects.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';

const body = process.argv[2] ?? '[]';
const app = new Koa();
const router = new Router();
router.get('/api/movies/:id', (ctx) => {
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = body;
});
app.use(router.routes());
const server = createServer({ keepAliveTimeout: 60_000 }, app.callback());
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
