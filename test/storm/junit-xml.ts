/** One element of a parsed XML document: name, attributes (entities decoded), children and text. */
export interface XmlElement {
  readonly name: string;
  readonly attrs: Record<string, string>;
  readonly children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&([a-z]+);|&/g, (whole, name: string | undefined) => {
    const value = name === undefined ? undefined : ENTITIES[name];
    if (value === undefined) throw new Error(`a bare or unknown entity: ${whole}`);
    return value;
  });
}

/**
 * A strict little XML reader for the JUnit files the tests check (the repository has no XML parser): elements,
 * double-quoted attributes, text, the five predefined entities, an `<?xml …?>` declaration. Throws on anything
 * not well-formed (an unclosed or mismatched tag, a bare `&` or `<`, text outside the root).
 */
export function parseXml(source: string): XmlElement {
  const token = /<\?xml[^?]*\?>|<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/gy;
  const stack: XmlElement[] = [{ name: '#document', attrs: {}, children: [], text: '' }];
  for (let m = token.exec(source); m !== null && m[0] !== ''; m = token.exec(source)) {
    const [, closing, name, attrText, selfClosing, text, stray] = m;
    const top = stack.at(-1) as XmlElement;
    if (stray !== undefined) throw new Error(`a stray < at ${m.index}`);
    if (text !== undefined) {
      if (stack.length === 1 && text.trim() !== '') throw new Error('text outside the root element');
      top.text += decode(text);
    } else if (name !== undefined && closing === '/') {
      if (top.name !== name) throw new Error(`</${name}> closes <${top.name}>`);
      stack.pop();
    } else if (name !== undefined) {
      const attrs: Record<string, string> = {};
      for (const a of (attrText ?? '').matchAll(/([\w:.-]+)="([^"]*)"/g))
        attrs[a[1] as string] = decode(a[2] as string);
      const element: XmlElement = { name, attrs, children: [], text: '' };
      top.children.push(element);
      if (selfClosing !== '/') stack.push(element);
    }
    if (token.lastIndex === source.length) break;
  }
  if (token.lastIndex !== source.length) throw new Error(`not XML at ${token.lastIndex}`);
  if (stack.length !== 1) throw new Error(`<${stack.at(-1)?.name}> is never closed`);
  const [root, ...more] = (stack[0] as XmlElement).children;
  if (root === undefined || more.length > 0) throw new Error('not exactly one root element');
  return root;
}

/** Every element named `name` under `element`, depth first. */
export function elementsNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.flatMap((child) => [...(child.name === name ? [child] : []), ...elementsNamed(child, name)]);
}
