import type { JetStreamManager } from '@nats-io/jetstream';
import { InvalidOption } from '../../core/errors.js';

/** What the relay needs of a JetStream stream. Durations in ms. */
export interface StreamRequirement {
  readonly name: string;
  /** The subject filter the stream must capture, e.g. `payonce.>`. */
  readonly subject: string;
  /** Duplicate window to create the stream with. */
  readonly duplicateWindowMs: number;
  /** Shortest acceptable duplicate window of an existing stream (the relay lease). */
  readonly minDuplicateWindowMs: number;
}

const NANOS_PER_MS = 1_000_000;

function notFound(error: unknown): boolean {
  const code = (error as { code?: unknown; api_error?: { err_code?: unknown } }) ?? {};
  const text = error instanceof Error ? error.message : String(error);
  return code.api_error?.err_code === 10059 || /stream not found/i.test(text);
}

/**
 * Creates the stream `name` capturing `subject` (file storage, `duplicate_window` = `duplicateWindowMs`) or
 * checks an existing one: it must list `subject` among its subjects and keep a duplicate window of at least
 * `minDuplicateWindowMs`, since a relay that dies after the ack republishes only once its lease has expired,
 * and JetStream drops the copy only inside the window (`Nats-Msg-Id`).
 * @throws {InvalidOption} `stream` when the existing stream lacks the subject or its window is shorter.
 * @see NATS docs "JetStream model deep dive: Message Deduplication" (Nats-Msg-Id, duplicate_window, default 2 min).
 */
export async function ensureStream(jsm: JetStreamManager, need: StreamRequirement): Promise<void> {
  let info: Awaited<ReturnType<JetStreamManager['streams']['info']>>;
  try {
    info = await jsm.streams.info(need.name);
  } catch (error) {
    if (!notFound(error)) throw error;
    await jsm.streams.add({
      name: need.name,
      subjects: [need.subject],
      duplicate_window: need.duplicateWindowMs * NANOS_PER_MS,
    });
    return;
  }
  const subjects = info.config.subjects ?? [];
  if (!subjects.includes(need.subject)) {
    throw new InvalidOption(
      'stream',
      `JetStream stream ${need.name} captures ${JSON.stringify(subjects)}, not ${need.subject}: add the subject or use another stream`,
    );
  }
  const windowMs = Number(info.config.duplicate_window) / NANOS_PER_MS;
  if (windowMs < need.minDuplicateWindowMs) {
    throw new InvalidOption(
      'stream',
      `JetStream stream ${need.name} has duplicate_window ${windowMs} ms, shorter than the relay lease of ${need.minDuplicateWindowMs} ms: a republish after a relay crash would be stored twice`,
    );
  }
}
