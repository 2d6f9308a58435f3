import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One TypeScript code block of a Markdown file: where it is and its exact text. */
export interface DocBlock {
  /** Repository-relative path of the Markdown file, e.g. `docs/payments.md`. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
}

/** Opening fences of the blocks the doc test runs: ```ts and ```typescript, with any info after a space. */
const TS_FENCE = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)(\s.*)?$/;
const ANY_FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

/** The Markdown files under the doc test: README.md, every docs/*.md and docs/providers/*.md (the providers' guides). */
export function docFiles(root: string): string[] {
  const markdownIn = (folder: string) =>
    readdirSync(path.join(root, folder))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `${folder}/${name}`);
  return ['README.md', ...markdownIn('docs'), ...markdownIn('docs/providers')];
}

/**
 * Every ```ts / ```typescript block of `file` (CommonMark fences: three or more backticks or tildes, closed by
 * a fence of the same character at least as long). Blocks of other languages are skipped, fenced or not.
 */
export function tsBlocks(root: string, file: string): DocBlock[] {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = ANY_FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const fence = open[2] ?? '```';
    const isTs = TS_FENCE.test(lines[i] ?? '');
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length; i++) {
      const close = ANY_FENCE.exec(lines[i] ?? '');
      if (
        close &&
        (close[2] ?? '').startsWith(fence[0] ?? '`') &&
        (close[2] ?? '').length >= fence.length &&
        (close[3] ?? '').trim() === ''
      )
        break;
      body.push(lines[i] ?? '');
    }
    if (isTs) blocks.push({ file, line: start + 1, code: `${body.join('\n')}\n` });
  }
  return blocks;
}
