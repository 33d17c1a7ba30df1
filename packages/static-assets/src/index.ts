export { staticAssetRoutes } from './static-asset-routes.ts';
export type { StaticAsset } from './static-asset-routes.ts';
