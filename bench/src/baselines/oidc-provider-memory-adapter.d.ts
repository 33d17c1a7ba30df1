// oidc-provider's own memory adapter (the one it uses when none is configured); the package ships no types for it.
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  import type { Adapter } from 'oidc-provider';
  export function createMemoryAdapter(clockTolerance?: number): (model: string) => Adapter;
}
