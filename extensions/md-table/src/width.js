// Display width of text in a terminal or a monospace editor: East Asian wide and fullwidth
// characters and emoji take two cells, combining marks and other zero-width characters none,
// everything else one. Counting code units (`length`) would misalign any table holding CJK
// text, accents written as combining marks or emoji.

// The JavaScript engine inside the component has no Unicode property tables (`\p{…}` in a
// regular expression is a syntax error there), so the ranges are listed: [first, last] code
// points, sorted.

// Wide and fullwidth blocks (East Asian Width W and F) and the emoji shown as two cells.
const WIDE = [
  [0x1100, 0x115f], // Hangul Jamo initials
  [0x231a, 0x231b], [0x23e9, 0x23ec], [0x23f0, 0x23f0], [0x23f3, 0x23f3], // watch, media, clocks
  [0x25fd, 0x25fe], [0x2614, 0x2615], [0x2648, 0x2653], [0x267f, 0x267f], [0x2693, 0x2693],
  [0x26a1, 0x26a1], [0x26aa, 0x26ab], [0x26bd, 0x26be], [0x26c4, 0x26c5], [0x26ce, 0x26ce],
  [0x26d4, 0x26d4], [0x26ea, 0x26ea], [0x26f2, 0x26f3], [0x26f5, 0x26f5], [0x26fa, 0x26fa],
  [0x26fd, 0x26fd], [0x2705, 0x2705], [0x270a, 0x270b], [0x2728, 0x2728], [0x274c, 0x274c],
  [0x274e, 0x274e], [0x2753, 0x2755], [0x2757, 0x2757], [0x2795, 0x2797], [0x27b0, 0x27b0],
  [0x27bf, 0x27bf], [0x2b1b, 0x2b1c], [0x2b50, 0x2b50], [0x2b55, 0x2b55], // emoji symbols
  [0x2e80, 0x303e], // CJK radicals, Kangxi, CJK symbols and punctuation
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compatibility, CJK compatibility
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x1b000, 0x1b2ff], // kana supplement and extensions
  [0x1f004, 0x1f004], [0x1f0cf, 0x1f0cf], [0x1f18e, 0x1f18e], [0x1f191, 0x1f19a], // emoji
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement
  [0x1f300, 0x1f64f], // pictographs, emoticons
  [0x1f680, 0x1f6ff], // transport and map symbols
  [0x1f7e0, 0x1f7eb], // coloured circles and squares
  [0x1f900, 0x1f9ff], // supplemental pictographs
  [0x1fa70, 0x1faff], // symbols and pictographs extended A
  [0x20000, 0x2fffd], // CJK extensions B-F
  [0x30000, 0x3fffd], // CJK extension G and later
];

// Characters drawn in no cell of their own: combining marks of the common scripts, zero-width
// spaces and joiners, directional marks, variation selectors.
const ZERO = [
  [0x0300, 0x036f], [0x0483, 0x0489], [0x0591, 0x05bd], [0x05bf, 0x05bf], [0x05c1, 0x05c2],
  [0x05c4, 0x05c5], [0x05c7, 0x05c7], [0x0610, 0x061a], [0x064b, 0x065f], [0x0670, 0x0670],
  [0x06d6, 0x06dc], [0x06df, 0x06e4], [0x0900, 0x0902], [0x093c, 0x093c], [0x0941, 0x0948],
  [0x094d, 0x094d], [0x0e31, 0x0e31], [0x0e34, 0x0e3a], [0x0e47, 0x0e4e], [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff], [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x2064], [0x20d0, 0x20ff],
  [0xfe00, 0xfe0f], [0xfe20, 0xfe2f], [0xfeff, 0xfeff], [0xe0100, 0xe01ef],
];

function within(ranges, cp) {
  for (const [first, last] of ranges) {
    if (cp < first) return false;
    if (cp <= last) return true;
  }
  return false;
}

/** The number of terminal cells `text` takes. */
export function displayWidth(text) {
  let width = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0);
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || within(ZERO, cp)) continue;
    width += within(WIDE, cp) ? 2 : 1;
  }
  return width;
}
