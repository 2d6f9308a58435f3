/**
 * The engineers' explanations of where the time goes: every `bench/notes/*.md`, rendered verbatim into
 * RESULTS.md under "Profiles, limits and explanations", in file-name order (TEAM.md contract).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const NOTES_DIR = join(import.meta.dirname, '..', 'notes');

/** One note file: its name (e.g. `batched.md`) and its text as written. */
export interface NoteFile {
  readonly file: string;
  readonly text: string;
}

/** The `*.md` files of `dir` in file-name order; none when the directory does not exist. */
export async function readNotes(dir = NOTES_DIR): Promise<NoteFile[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.md')).sort();
  return Promise.all(names.map(async (file) => ({ file, text: await readFile(join(dir, file), 'utf8') })));
}
