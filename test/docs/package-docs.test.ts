import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

it('npm pack ships the guides the README links (docs/payments.md, outbox.md, webhook-handlers.md)', async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [pack] = JSON.parse(stdout) as { files: { path: string }[] }[];
  const files = new Set(pack?.files.map((file) => file.path));
  for (const doc of ['docs/README.md', 'docs/payments.md', 'docs/outbox.md', 'docs/webhook-handlers.md']) {
    expect(files.has(doc), doc).toBe(true);
  }
  const readme = await import('node:fs/promises').then((fs) => fs.readFile(`${root}README.md`, 'utf8'));
  for (const link of ['docs/payments.md', 'docs/outbox.md', 'docs/webhook-handlers.md'])
    expect(readme).toContain(`(${link})`);
}, 60_000);
