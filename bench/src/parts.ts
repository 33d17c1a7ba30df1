/**
 * The parts of `pnpm bench` and the budgets each checks (the same table as bench/README.md, "Budgets").
 * Rules:
 * - a part runs when `BENCH_ONLY` names its selector (or a group holding it), or when it is unset;
 * - the parts run in this order: the start-up first, on a quiet machine; the memory last, so its
 *   second reading follows every load;
 * - a ratio budget compares Gatehouse with its baseline in paired, interleaved rounds (paired.ts);
 *   a token budget's baseline is the floor of its grant on the same engine (baselines/floor-adapter.ts).
 */
import type { Budget, Figure } from './budgets.ts';
import type { Context } from './context.ts';
import { API_READ, apiRead, apiWrite } from './parts/api.ts';
import { DEV_FIRST, DEV_WARM, devStart } from './parts/dev-start.ts';
import { LOGIN, login } from './parts/login.ts';
import { idleRssFigure, memory } from './parts/memory.ts';
import { tokenFigure, tokenGrant } from './parts/token-endpoint.ts';

export interface Part {
  readonly name: string;
  /** Its name in BENCH_ONLY. */
  readonly selector: string;
  /** Runs it; answers its figures, each named as its budget names it. */
  readonly run: (context: Context) => Promise<Figure[]>;
  /** What it must meet; its other figures are reported only. */
  readonly budgets: readonly Budget[];
}

const RSS_MB = 120;
const servers = ['auth (sqlite)', 'api (sqlite)', 'client', 'auth (postgres)', 'api (postgres)'];

export const PARTS: readonly Part[] = [
  {
    name: 'Start-up: pnpm dev ready',
    selector: 'dev',
    run: devStart,
    budgets: [
      { id: 'dev', figure: DEV_FIRST, bound: { atMost: 3000 }, unit: 'ms' },
      { id: 'dev', figure: DEV_WARM, bound: { atMost: 3000 }, unit: 'ms' },
    ],
  },
  {
    name: 'API read',
    selector: 'read',
    run: apiRead,
    budgets: [{ id: '#1', figure: API_READ, bound: { atLeast: 0.8 }, unit: '×' }],
  },
  { name: 'API write', selector: 'write', run: apiWrite, budgets: [] },
  {
    name: 'Token endpoint: refresh grant',
    selector: 'refresh',
    run: (context) => tokenGrant(context, 'refresh grant'),
    budgets: [
      { id: '#3a', figure: tokenFigure('refresh grant', 'sqlite'), bound: { atLeast: 0.8 }, unit: '×' },
      { id: '#3a', figure: tokenFigure('refresh grant', 'postgres'), bound: { atLeast: 0.8 }, unit: '×' },
    ],
  },
  {
    name: 'Token endpoint: client_credentials',
    selector: 'cc',
    run: (context) => tokenGrant(context, 'client_credentials'),
    budgets: [
      { id: '#3b', figure: tokenFigure('client_credentials', 'sqlite'), bound: { atLeast: 0.8 }, unit: '×' },
      { id: '#3b', figure: tokenFigure('client_credentials', 'postgres'), bound: { atLeast: 0.8 }, unit: '×' },
    ],
  },
  {
    name: 'Login',
    selector: 'login',
    run: login,
    budgets: [{ id: '#4', figure: LOGIN, bound: { atLeast: 0.85 }, unit: '×' }],
  },
  {
    name: 'Memory',
    selector: 'memory',
    run: memory,
    budgets: servers.map((server) => ({ id: '#5', figure: idleRssFigure(server), bound: { atMost: RSS_MB }, unit: 'MB' })),
  },
];

/** Names in BENCH_ONLY that stand for several parts. */
export const GROUPS: Readonly<Record<string, readonly string[]>> = { token: ['refresh', 'cc'] };
