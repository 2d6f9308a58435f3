import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PACKAGES = fileURLToPath(new URL('../../../packages/', import.meta.url));

/** An empty app with packed workspace packages installed from their tarballs, as a user's app installs them. */
export interface PackedApp {
  /** The app's directory (its package.json, node_modules). */
  readonly dir: string;
  /**
   * Runs `command args` in the app with the environment a user has (no `npm_*` variables of the test's npm), plus
   * `extraEnv`.
   */
  exec(
    command: string,
    args: readonly string[],
    extraEnv?: Readonly<Record<string, string>>,
  ): Promise<{ stdout: string; stderr: string; code: number }>;
  /** Names directly under node_modules, with scoped packages as `@scope/name`. */
  installed(): string[];
  /** Removes the app and the tarballs. */
  remove(): void;
}

/** The environment of a user's shell: this process's, without the variables `npm test` adds for the test run. */
export function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
}

/**
 * Packs each of `dirs` (`packages/<dir>`, built: run `npm run build` first) with `npm pack` and installs the tarballs
 * into a new empty app with `npm install --prefer-offline --no-audit --no-fund`, so dependencies come from the npm
 * cache when it has them. `extra` are further specs for the same install, the app's own dependencies
 * (`kysely@0.29`, a folder).
 * @throws {Error} a package is not built, or npm fails (its output is in the message).
 */
export async function packedApp(dirs: readonly string[], extra: readonly string[] = []): Promise<PackedApp> {
  for (const dir of dirs) {
    if (!existsSync(join(PACKAGES, dir, 'dist'))) throw new Error(`packages/${dir}/dist is missing: run npm run build`);
  }
  const root = mkdtempSync(join(tmpdir(), 'payonce-packed-'));
  const env = userEnv();
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    const tarballs = join(root, 'tarballs');
    mkdirSync(tarballs);
    for (const dir of dirs) {
      await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', tarballs], {
        cwd: join(PACKAGES, dir),
        env,
      });
    }
    const app = join(root, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    const files = readdirSync(tarballs).map((file) => join(tarballs, file));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...files, ...extra], { cwd: app, env });
    return {
      dir: app,
      async exec(command, args, extraEnv = {}) {
        try {
          const { stdout, stderr } = await run(command, [...args], {
            cwd: app,
            env: { ...env, ...extraEnv },
            timeout: 60_000,
          });
          return { stdout, stderr, code: 0 };
        } catch (error) {
          const failed = error as { stdout?: string; stderr?: string; code?: unknown };
          const code = typeof failed.code === 'number' ? failed.code : -1;
          return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code };
        }
      },
      installed() {
        const modules = join(app, 'node_modules');
        return readdirSync(modules).flatMap((name) =>
          name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name],
        );
      },
      remove,
    };
  } catch (error) {
    remove();
    throw error;
  }
}
