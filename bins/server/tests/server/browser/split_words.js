// The visible words that a line break cuts in two, for assert_no_split_words: a word (two or more
// characters between white space) whose glyphs lie on more than one line, found by comparing a
// Range over its characters with the line boxes it renders in; and a word of a generated label
// (::before / ::after text, as on a phone's stacked table rows) that is wider than its box, which
// either breaks it or makes it spill over its neighbour. Long tokens (URLs, keys, codes) may wrap
// only inside an element marked for it: <code> or class "break".
const MAY_BREAK = 'code, .break';
// A word, up to and including a hyphen: prose may break after the hyphen of "comma-separated" as
// its writer allowed, never inside "comma" or "separated".
const WORD = /[^\s\-\u2010]+[\-\u2010]?|[\-\u2010]+/g;

// The parts of a text worth checking: one character alone cannot be split.
function* words(text) {
  for (const m of text.matchAll(WORD)) if (m[0].length > 1) yield m;
}

function path(el) {
  const parts = [];
  for (let e = el; e && e !== document.body; e = e.parentElement) {
    let part = e.localName;
    if (e.id) part += '#' + e.id;
    else if (e.classList.length) part += '.' + e.classList[0];
    parts.unshift(part);
  }
  return parts.join(' > ');
}

function visible(el) {
  return el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
}

// A browser may hand back a word in several rects on one line (bidi, shaping); only distinct
// tops a few pixels apart are distinct lines.
function onSeveralLines(rects) {
  const tops = [...rects].filter((r) => r.width > 0 && r.height > 0).map((r) => r.top);
  return tops.length > 1 && Math.max(...tops) - Math.min(...tops) > 2;
}

function splitInText() {
  const found = [];
  const range = document.createRange();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!visible(el) || el.closest(MAY_BREAK)) continue;
    for (const m of words(node.data)) {
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      if (onSeveralLines(range.getClientRects())) found.push({ word: m[0], in: path(el) });
    }
  }
  return found;
}

// A generated label has no text node to put a Range on: each of its words is measured in the
// label's own font and compared with the width its box got.
function splitInLabels() {
  const found = [];
  const probe = document.createElement('span');
  probe.style.cssText = 'position:absolute;left:-10000px;top:0;white-space:pre;';
  document.body.append(probe);
  for (const el of document.body.querySelectorAll('*')) {
    if (!visible(el) || el.closest(MAY_BREAK)) continue;
    for (const pseudo of ['::before', '::after']) {
      const style = getComputedStyle(el, pseudo);
      const text = labelText(el, style.content);
      if (!text || style.display === 'none') continue;
      const width = contentWidth(el, style);
      for (const p of ['fontFamily', 'fontSize', 'fontWeight', 'fontStyle', 'letterSpacing', 'textTransform']) {
        probe.style[p] = style[p];
      }
      for (const [word] of words(text)) {
        probe.textContent = word;
        if (probe.getBoundingClientRect().width > width + 0.5) {
          found.push({ word, in: path(el) + pseudo, width });
        }
      }
    }
  }
  probe.remove();
  return found;
}

// The width a label's words have: its own box's, or, for an inline label, its element's.
function contentWidth(el, style) {
  const px = (s, ...names) => names.reduce((sum, n) => sum + (parseFloat(s[n]) || 0), 0);
  const own = parseFloat(style.width);
  if (Number.isNaN(own)) {
    const parent = getComputedStyle(el);
    return el.clientWidth - px(parent, 'paddingLeft', 'paddingRight');
  }
  const border = style.boxSizing === 'border-box';
  return border ? own - px(style, 'paddingLeft', 'paddingRight', 'borderLeftWidth', 'borderRightWidth') : own;
}

// The text of a computed `content`: a quoted string (Chromium resolves attr() to one), or
// attr(name) should a browser leave it as written.
function labelText(el, content) {
  const attr = /^attr\(([\w-]+)\)$/.exec(content);
  if (attr) return el.getAttribute(attr[1]) || '';
  const quoted = /^"(.*)"$/.exec(content);
  return quoted ? quoted[1].replace(/\\(.)/g, '$1') : '';
}

return splitInText().concat(splitInLabels());
