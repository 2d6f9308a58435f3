/** What a failed scenario's replay command names: `payonce storm --adapter FILE (--start CMD | --url URL) …`. */
export interface StormReplayTarget {
  /** The adapter file as `payonce storm --adapter` takes it, e.g. `./storm.adapter.ts`. */
  readonly adapter: string;
  /** The shell command that starts the app (`--start`). Without it the command names `--url` with `appUrl`. */
  readonly start?: string;
  /** The app's base URL (`--url`), for an adapter whose factory starts the app itself at `setup.appUrl`. */
  readonly appUrl?: string;
}

/** `word` as one shell word: as it is when it holds no special character, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The `npx payonce storm` command that replays scenario `id` with `seed` against the app: with `target`, one to paste
 * (`--adapter FILE --start CMD`, or `--url URL` when no start command is known); without it, the command with
 * `FILE` and `CMD` to fill in, followed by what they stand for.
 */
export function stormReplayCommand(seed: number, id: number, target?: StormReplayTarget): string {
  const tail = `--seed ${seed} --only ${id}`;
  if (target === undefined) {
    return (
      `npx payonce storm --adapter FILE --start CMD ${tail} (FILE: your adapter file; CMD: the command that starts ` +
      "your app, or --url URL instead when the adapter starts it; describeStorm's replay option fills them in)"
    );
  }
  const app =
    target.start !== undefined ? `--start ${shellWord(target.start)}` : `--url ${shellWord(target.appUrl ?? 'URL')}`;
  return `npx payonce storm --adapter ${shellWord(target.adapter)} ${app} ${tail}`;
}
