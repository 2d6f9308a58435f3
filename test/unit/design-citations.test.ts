import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README and the docstrings once cited "SPEC §…", a file outside the repository. The design
// lives in docs/design.md, in the project's words, and every citation must name one of its sections.

const root = fileURLToPath(new URL('../../', import.meta.url));
const files = execFileSync('git', ['ls-files', 'README.md', 'docs', 'packages', 'examples'], { cwd: root })
  .toString()
  .split('\n')
  .filter((file) => /\.(md|ts|js|mjs)$/.test(file));
const text = (file: string) => readFileSync(`${root}${file}`, 'utf8');
const design = text('docs/design.md');

/** Section number → its title and the titles of its `###` subsections. */
const sections = new Map<string, { title: string; subsections: Set<string> }>();
let current: { title: string; subsections: Set<string> } | undefined;
for (const line of design.split('\n')) {
  const section = /^## (\d+)\. (.+)$/.exec(line);
  if (section) {
    current = { title: section[2] as string, subsections: new Set() };
    sections.set(section[1] as string, current);
  } else if (line.startsWith('### ') && current) {
    current.subsections.add(line.slice(4).trim());
  }
}

/** Every `docs/design.md §N[–M][ "Title"]` citation (and `§K` after a comma) in the repository's texts. */
function citations(): { file: string; section: string; title: string | null }[] {
  const found: { file: string; section: string; title: string | null }[] = [];
  for (const file of files) {
    for (const match of text(file).matchAll(/design\.md ((?:§\d+(?:[–-]\d+)?(?:, )?)+)(?: "([^"\n]+)")?/g)) {
      const numbers = (match[1] as string).match(/\d+/g) ?? [];
      const title = match[2] ?? null;
      numbers.forEach((section, index) => {
        found.push({ file, section, title: index === numbers.length - 1 ? title : null });
      });
    }
  }
  return found;
}

describe('docs/design.md is the design the project cites', () => {
  it('has the sections of the design, numbered 1 to 11', () => {
    expect([...sections.keys()]).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
    for (const title of ['Stale takeover', 'Fencing', 'Claim', 'Status codes', 'One active attempt per order']) {
      expect([...sections.values()].some((section) => section.subsections.has(title))).toBe(true);
    }
  });

  it('no README, doc or source file cites SPEC or the shared folder', () => {
    const stale = files.filter((file) => /SPEC §|SPEC\.md|shared\/SPEC/.test(text(file)));
    expect(stale).toEqual([]);
  });

  it('every citation names a section (and subsection) that exists', () => {
    const all = citations();
    expect(all.length).toBeGreaterThan(100);
    const broken = all
      .filter(({ section, title }) => {
        const target = sections.get(section);
        if (!target) return true;
        return title !== null && title !== target.title && !target.subsections.has(title);
      })
      .map(({ file, section, title }) => `${file}: §${section}${title ? ` "${title}"` : ''}`);
    expect(broken).toEqual([]);
  });
});
