/** One sample line of a Prometheus text exposition. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A parsed exposition: the declared type of every family and every sample, in order. */
export interface Exposition {
  readonly types: Map<string, string>;
  readonly samples: Sample[];
}

const METRIC = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/**
 * A strict reader of the Prometheus text exposition format 0.0.4: every line is a HELP, a TYPE or a sample of a
 * family whose TYPE came first; metric names are valid, a family is typed once, label sets parse completely and
 * values are numbers (`+Inf`, `-Inf` and `NaN` included). Throws on anything else, so a test that parses a whole
 * scrape proves the scrape is well-formed.
 * @see https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
 */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) {
      const name = line.split(' ')[2] ?? '';
      if (!METRIC.test(name)) throw new Error(`bad metric name in HELP: ${line}`);
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [, , name = '', type = '', ...rest] = line.split(' ');
      if (!METRIC.test(name)) throw new Error(`bad metric name in TYPE: ${line}`);
      if (!TYPES.has(type) || rest.length > 0) throw new Error(`bad TYPE line: ${line}`);
      if (types.has(name)) throw new Error(`TYPE declared twice: ${line}`);
      types.set(name, type);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const [, name = '', rawLabels = '', rawValue = ''] = match;
    const family = [...types.keys()].find(
      (f) => name === f || (name.startsWith(f) && /^_(bucket|sum|count|total)$/.test(name.slice(f.length))),
    );
    if (!family) throw new Error(`sample before its TYPE: ${line}`);
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < rawLabels.length) {
      const label = LABEL.exec(rawLabels);
      if (!label) throw new Error(`bad label set: ${rawLabels}`);
      labels[label[1] ?? ''] = label[2] ?? '';
    }
    const value =
      rawValue === '+Inf'
        ? Number.POSITIVE_INFINITY
        : rawValue === '-Inf'
          ? Number.NEGATIVE_INFINITY
          : rawValue === 'NaN'
            ? Number.NaN
            : Number(rawValue);
    if (Number.isNaN(value) && rawValue !== 'NaN') throw new Error(`bad value: ${line}`);
    samples.push({ name, labels, value });
  }
  return { types, samples };
}

/** The value of the first sample named `name` whose labels include `labels`, or `undefined`. */
export function sampleValue(
  samples: readonly Sample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
