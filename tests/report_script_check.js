// report_script_check.js — runs the script of an ldagpu report page (src/model/report_html.c) in
// Node.js against a small stand-in for the DOM, built from the page's own circles and topic cards,
// and checks what a reader does: the largest topic shown on load; a word found, the topics without
// it hidden and their circles dimmed; a dimmed circle selected, its topic shown in the panel; the
// finder cleared. Exit status 0 when all hold, 1 with the failures on stderr.
//   node tests/report_script_check.js REPORT.html
// The stand-in has what the script calls and no more; a real browser runs the same steps in
// scripts/report-browser-check.py.
'use strict';
const fs = require('fs');

const page = fs.readFileSync(process.argv[2], 'utf8');
const script = page.slice(page.lastIndexOf('<script>') + '<script>'.length, page.lastIndexOf('</script>'));

function decode(text) {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

class Element {
  constructor(tag, attrs) {
    this.tag = tag;
    this.attrs = Object.assign({}, attrs || {});
    this.children = [];
    this.parent = null;
    this.style = {};
    this.text = '';
    this.open = false;
    this.value = '';
    this.listeners = {};
    const el = this;
    this.classList = {
      contains: (c) => el.classes().includes(c),
      add: (c) => { if (!el.classes().includes(c)) el.attrs.class = el.classes().concat([c]).join(' '); },
      remove: (c) => { el.attrs.class = el.classes().filter((x) => x !== c).join(' '); },
      toggle: (c, on) => {
        const want = on === undefined ? !el.classList.contains(c) : !!on;
        if (want) el.classList.add(c); else el.classList.remove(c);
        return want;
      },
    };
  }
  classes() { return (this.attrs.class || '').split(/\s+/).filter((x) => x); }
  getAttribute(name) { return name in this.attrs ? this.attrs[name] : null; }
  removeAttribute(name) { delete this.attrs[name]; }
  addEventListener(type, fn) { (this.listeners[type] = this.listeners[type] || []).push(fn); }
  dispatch(type) { (this.listeners[type] || []).forEach((fn) => fn({type: type, target: this})); }
  scrollIntoView() {}
  appendChild(child) {
    if (child.parent) child.parent.children.splice(child.parent.children.indexOf(child), 1);
    child.parent = this;
    this.children.push(child);
    return child;
  }
  get textContent() { return this.text + this.children.map((c) => c.textContent).join(''); }
  set textContent(text) { this.children.forEach((c) => { c.parent = null; }); this.children = []; this.text = text; }
  cloneNode(deep) { // as the DOM's: attributes, inline style and properties copied
    const copy = new Element(this.tag, this.attrs);
    copy.style = Object.assign({}, this.style);
    copy.text = this.text;
    copy.open = this.open;
    if (deep) this.children.forEach((c) => copy.appendChild(c.cloneNode(true)));
    return copy;
  }
  // Simple selectors only: tag, .class, #id, and tag.class.
  matches(selector) {
    const m = /^([a-z0-9]*)(?:#([\w-]+))?((?:\.[\w-]+)*)$/.exec(selector);
    if (!m) throw new Error('selector not in the stand-in: ' + selector);
    return (!m[1] || this.tag === m[1]) && (!m[2] || this.attrs.id === m[2]) &&
      m[3].split('.').filter((x) => x).every((c) => this.classList.contains(c));
  }
  descendants() { return this.children.reduce((all, c) => all.concat([c], c.descendants()), []); }
  querySelectorAll(selector) { // "A B": B under an A
    const parts = selector.trim().split(/\s+/);
    let found = [this];
    parts.forEach((part) => {
      const next = [];
      found.forEach((el) => el.descendants().forEach((d) => { if (d.matches(part) && !next.includes(d)) next.push(d); }));
      found = next;
    });
    return found;
  }
  querySelector(selector) { return this.querySelectorAll(selector)[0] || null; }
  visible() { // shown unless it or an ancestor is display:none
    for (let el = this; el; el = el.parent) if (el.style.display === 'none') return false;
    return true;
  }
}

// The page's elements the script reads, from its HTML.
const root = new Element('html');
const map = root.appendChild(new Element('section', {id: 'map'}));
const largest = /<svg id="mapsvg"[^>]*data-largest="(\d+)"/.exec(page);
const svg = map.appendChild(new Element('svg', {id: 'mapsvg', 'data-largest': largest ? largest[1] : undefined}));
for (const m of page.matchAll(/<circle class="t" data-topic="(\d+)"/g))
  svg.appendChild(new Element('circle', {class: 't', 'data-topic': m[1]}));
const panel = map.appendChild(new Element('aside', {id: 'panel'}));
const topics = root.appendChild(new Element('section', {id: 'topics'}));
topics.appendChild(new Element('select', {id: 'sort'})).value = 'topic';
const find = topics.appendChild(new Element('input', {id: 'find'}));
const shown = topics.appendChild(new Element('span', {id: 'shown'}));
const cards = topics.appendChild(new Element('div', {id: 'cards'}));
for (const chunk of page.split('<article ').slice(1)) {
  const body = chunk.slice(0, chunk.indexOf('</article>'));
  const attrs = {};
  for (const a of body.slice(0, body.indexOf('>')).matchAll(/([\w-]+)="([^"]*)"/g)) attrs[a[1]] = a[2];
  const card = cards.appendChild(new Element('article', attrs));
  card.appendChild(new Element('h3')).text = 'Topic ' + attrs['data-topic'];
  const table = card.appendChild(new Element('table', {class: 'words'}));
  for (const w of body.matchAll(/<td class="w">([^<]*)<\/td>/g))
    table.appendChild(new Element('td', {class: 'w'})).text = decode(w[1]);
  if (body.includes('<details>')) card.appendChild(new Element('details'));
}
const byId = (id) => root.descendants().find((e) => e.attrs.id === id) || null;
const document = {
  getElementById: byId,
  querySelectorAll: (s) => root.querySelectorAll(s),
  querySelector: (s) => root.querySelector(s),
};

const failures = [];
const expect = (ok, what) => { if (!ok) failures.push(what); };
const circles = svg.querySelectorAll('circle.t'), list = cards.querySelectorAll('article.topic');
expect(circles.length > 1 && circles.length === list.length, 'the page has ' + circles.length + ' circles and ' +
       list.length + ' topic cards');

new Function('document', script)(document); // eslint-disable-line no-new-func

const inPanel = () => panel.querySelectorAll('article.topic');
const words = (card) => card.querySelectorAll('td.w').map((t) => t.textContent);
// On load: the largest topic in the panel.
expect(inPanel().length === 1 && inPanel()[0].getAttribute('data-topic') === svg.getAttribute('data-largest') &&
       inPanel()[0].visible(), 'the largest topic is not shown on load');
// A word some topics list and one does not: finding it hides that card and dims its circle.
let word = null, hidden = null;
list.forEach((a) => list.forEach((b) => {
  const w = words(a).find((x) => !words(b).includes(x));
  if (word === null && w !== undefined) { word = w; hidden = b.getAttribute('data-topic'); }
}));
expect(word !== null, 'every topic lists the same words: nothing to filter (list fewer words)');
if (word !== null) {
  find.value = word;
  find.dispatch('input');
  const circle = circles.find((c) => c.getAttribute('data-topic') === hidden);
  const card = list.find((a) => a.getAttribute('data-topic') === hidden);
  expect(circle.classList.contains('dim') && !card.visible(), 'finding "' + word + '" did not hide topic ' + hidden);
  expect(/ of \d+ topics$/.test(shown.textContent), 'finding says "' + shown.textContent + '"');
  // Selecting the dimmed topic shows it in the panel.
  circle.dispatch('click');
  const now = inPanel();
  expect(now.length === 1 && now[0].getAttribute('data-topic') === hidden,
         'selecting dimmed topic ' + hidden + ' put ' + now.length + ' topics in the panel');
  expect(now.length === 1 && now[0].visible() && words(now[0]).length > 0,
         'selecting dimmed topic ' + hidden + ' left the panel empty (its card hidden there too)');
  expect(circle.classList.contains('sel'), 'the dimmed circle selected is not marked');
  // Clearing the finder shows every topic again.
  find.value = '';
  find.dispatch('input');
  expect(list.every((a) => a.visible()) && shown.textContent === '', 'clearing the finder did not show every topic');
}
failures.forEach((f) => console.error('FAIL: ' + f));
process.exit(failures.length ? 1 : 0);
