import { describe, expect, it } from 'vitest';
import { watchedNodeScript } from '../src/dev-script.ts';

describe('watchedNodeScript', () => {
  it("reads the apps' watch scripts: the folders resolved from the app's folder, the other flags and the entry for the server", () => {
    expect(watchedNodeScript('node --watch-path=src --watch-path=public --watch-path=../../packages --watch-preserve-output src/main.ts', '/repo/apps/auth')).toEqual({
      watch: ['/repo/apps/auth/src', '/repo/apps/auth/public', '/repo/packages'],
      args: ['src/main.ts'],
    });
    expect(watchedNodeScript('node --watch-path=src --enable-source-maps --max-old-space-size=512 src/dev.ts', '/repo/apps/client')).toEqual({
      watch: ['/repo/apps/client/src'],
      args: ['--enable-source-maps', '--max-old-space-size=512', 'src/dev.ts'],
    });
  });

  it('leaves every other script to the shell', () => {
    for (const script of [
      'node src/main.ts',
      'node --watch src/main.ts',
      'node --watch-path=src --watch src/main.ts',
      'node --watch-path=src src/main.ts | gatehouse-devlog',
      'node --watch-path=src src/main.ts && echo done',
      'node --watch-path=$DIR src/main.ts',
      'node --watch-path= src/main.ts',
      'node --watch-path=src "src/main file.ts"',
      'node --watch-path=src --inspect',
      'tsx watch src/main.ts',
      'node',
      '',
    ]) {
      expect(watchedNodeScript(script, '/repo/apps/x'), script).toBeUndefined();
    }
  });
});
