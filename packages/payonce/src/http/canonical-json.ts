/**
 * Canonical text of a JSON document, or `null` if `text` is not one strict JSON (RFC 8259) value or an object
 * repeats a member name. Canonical means: no insignificant whitespace; object members sorted by name in UTF-16
 * code-unit order (as RFC 8785 JCS); strings re-escaped the way `JSON.stringify` does (`"\u0041"` → `"A"`);
 * array order kept. Unlike JCS, a number keeps its literal text (`1.0` and `1` stay different), so no two
 * different amounts can ever share a canonical form through floating-point rounding.
 * @see RFC 8259 (grammar); RFC 8785 §3.2.3 (member order).
 * @example canonicalJson('{ "b": [2, 1], "a": 1 }') // '{"a":1,"b":[2,1]}'
 */
export function canonicalJson(text: string): string | null {
  const parser = new Parser(text);
  try {
    const value = parser.value();
    parser.space();
    return parser.atEnd() ? value : null;
  } catch (error) {
    // A RangeError is nesting deeper than the stack: not canonicalised, the caller falls back to raw bytes.
    if (error instanceof NotCanonical || error instanceof RangeError) return null;
    throw error;
  }
}

class NotCanonical extends Error {}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: RFC 8259 §7 forbids raw U+0000–U+001F in strings.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

class Parser {
  private i = 0;
  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.i === this.text.length;
  }

  space(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i]!)) this.i++;
  }

  value(): string {
    this.space();
    const ch = this.text[this.i];
    if (ch === '{') return this.object();
    if (ch === '[') return this.array();
    if (ch === '"') return this.string();
    for (const literal of ['true', 'false', 'null']) {
      if (this.text.startsWith(literal, this.i)) {
        this.i += literal.length;
        return literal;
      }
    }
    return this.match(NUMBER);
  }

  private match(pattern: RegExp): string {
    pattern.lastIndex = this.i;
    const found = pattern.exec(this.text);
    if (!found) throw new NotCanonical();
    this.i += found[0].length;
    return found[0];
  }

  private string(): string {
    return JSON.stringify(JSON.parse(this.match(STRING)) as string);
  }

  private expect(ch: string): void {
    this.space();
    if (this.text[this.i] !== ch) throw new NotCanonical();
    this.i++;
  }

  private peek(ch: string): boolean {
    this.space();
    if (this.text[this.i] !== ch) return false;
    this.i++;
    return true;
  }

  private array(): string {
    this.expect('[');
    if (this.peek(']')) return '[]';
    const items: string[] = [];
    do items.push(this.value());
    while (this.peek(','));
    this.expect(']');
    return `[${items.join(',')}]`;
  }

  private object(): string {
    this.expect('{');
    if (this.peek('}')) return '{}';
    const members = new Map<string, string>();
    do {
      this.space();
      const name = this.string();
      if (members.has(name)) throw new NotCanonical();
      this.expect(':');
      members.set(name, this.value());
    } while (this.peek(','));
    this.expect('}');
    const names = [...members.keys()].sort((a, b) => {
      const x = JSON.parse(a) as string;
      const y = JSON.parse(b) as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
    return `{${names.map((name) => `${name}:${members.get(name)}`).join(',')}}`;
  }
}
