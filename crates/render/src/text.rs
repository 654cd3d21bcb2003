//! Text as a reader expects it in every script: the compiled-in faces (DejaVu Sans regular and bold
//! for Latin, Greek, Cyrillic, Arabic and Hebrew; Droid Sans Fallback for Chinese and Japanese,
//! NanumGothic for Korean),
//! shaping with rustybuzz (Arabic joined, marks placed, kerning) and the Unicode bidirectional
//! algorithm (right-to-left runs drawn right to left), measurement and word wrapping. Layout and
//! drawing both go through [`shape`], so what is measured is what is drawn.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;
use std::sync::OnceLock;

use krilla::text::{Font, GlyphId, KrillaGlyph};
use rustybuzz::{Direction, Script, ShapePlan, UnicodeBuffer};
use unicode_bidi::BidiInfo;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

static REGULAR: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
static BOLD: &[u8] = include_bytes!("../fonts/DejaVuSans-Bold.ttf");
/// The fallbacks are only embedded (as subsets) in documents that use them, so Latin-only PDFs
/// do not grow.
static CHINESE_JAPANESE: &[u8] = include_bytes!("../fonts/DroidSansFallbackFull.ttf");
static KOREAN: &[u8] = include_bytes!("../fonts/NanumGothic.ttf");

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Face {
    Regular,
    Bold,
}

/// One font file: the krilla handle for embedding and the rustybuzz face for shaping.
struct FontFile {
    font: Font,
    shaper: rustybuzz::Face<'static>,
    upem: f32,
    /// Drawn for a glyph the shaper could not find: PDF/A forbids the empty glyph.
    question: (u16, f32),
}

impl FontFile {
    /// `question` is the font's question mark (the fallback font has only a full-width one).
    // The files are compiled in and known good (the render tests load them): a failure here is
    // a build defect, never a request's.
    #[allow(clippy::expect_used)]
    fn load(bytes: &'static [u8], question: char) -> FontFile {
        let font = Font::new(bytes.into(), 0).expect("the embedded font parses");
        let shaper = rustybuzz::Face::from_slice(bytes, 0).expect("the embedded font parses");
        let upem = shaper.units_per_em() as f32;
        let q = shaper
            .glyph_index(question)
            .expect("the embedded font has a question mark");
        let question = (
            q.0,
            f32::from(shaper.glyph_hor_advance(q).unwrap_or(0)) / upem,
        );
        FontFile {
            font,
            shaper,
            upem,
            question,
        }
    }

    fn covers(&self, c: char) -> bool {
        self.shaper.glyph_index(c).is_some()
    }
}

fn regular() -> &'static FontFile {
    static F: OnceLock<FontFile> = OnceLock::new();
    F.get_or_init(|| FontFile::load(REGULAR, '?'))
}

fn bold() -> &'static FontFile {
    static F: OnceLock<FontFile> = OnceLock::new();
    F.get_or_init(|| FontFile::load(BOLD, '?'))
}

fn chinese_japanese() -> &'static FontFile {
    static F: OnceLock<FontFile> = OnceLock::new();
    F.get_or_init(|| FontFile::load(CHINESE_JAPANESE, '\u{FF1F}'))
}

fn korean() -> &'static FontFile {
    static F: OnceLock<FontFile> = OnceLock::new();
    F.get_or_init(|| FontFile::load(KOREAN, '?'))
}

/// The face's own font first, then the fallbacks, which have no bold.
fn fonts(face: Face) -> [&'static FontFile; 3] {
    let own = match face {
        Face::Regular => regular(),
        Face::Bold => bold(),
    };
    [own, chinese_japanese(), korean()]
}

/// Glyphs of one font, drawn from `x` (in em from the start of the line).
pub struct Run {
    pub font: Font,
    /// Whether the run is in a fallback font, which has no bold of its own.
    pub fallback: bool,
    pub x: f32,
    /// Their text ranges index the whole line.
    pub glyphs: Vec<KrillaGlyph>,
}

/// A line of text shaped and put in visual order; widths in em.
pub struct Shaped {
    pub runs: Vec<Run>,
    pub width: f32,
}

/// Shapes one line (no line breaks; [`sanitize`]d): bidirectional runs in visual order, each cut
/// where the font changes, each piece shaped in its direction.
pub fn shape(s: &str, face: Face) -> Shaped {
    let mut out = Shaped {
        runs: Vec::new(),
        width: 0.0,
    };
    let bidi = BidiInfo::new(s, None);
    if !bidi.has_rtl() {
        for piece in font_pieces(s, 0..s.len(), face) {
            push_shaped(&mut out, s, piece, false);
        }
        return out;
    }
    for para in &bidi.paragraphs {
        let (levels, runs) = bidi.visual_runs(para, para.range.clone());
        for run in runs {
            let rtl = levels[run.start].is_rtl();
            let mut pieces = font_pieces(s, run, face);
            if rtl {
                pieces.reverse();
            }
            for piece in pieces {
                push_shaped(&mut out, s, piece, rtl);
            }
        }
    }
    out
}

/// Width of `s` at `size` points.
pub fn width(s: &str, face: Face, size: f32) -> f32 {
    shape(s, face).width * size
}

struct Piece {
    /// Index into [`fonts`]: 0 is the face's own.
    font: usize,
    file: &'static FontFile,
    range: Range<usize>,
}

/// Cuts `range` of `s` where the font must change: the first of [`fonts`] that has the character
/// (the face's own when none has it: it draws `?`). Spaces and combining marks stay with the font
/// before them, so a name in Chinese is not cut at every space and a mark stays on its letter.
fn font_pieces(s: &str, range: Range<usize>, face: Face) -> Vec<Piece> {
    let chain = fonts(face);
    let mut pieces: Vec<Piece> = Vec::new();
    for (i, c) in s[range.clone()].char_indices() {
        let at = range.start + i;
        let font = match pieces.last() {
            Some(p) if (c.is_whitespace() || is_mark(c)) && p.file.covers(c) => p.font,
            _ => chain.iter().position(|f| f.covers(c)).unwrap_or(0),
        };
        match pieces.last_mut() {
            Some(p) if p.font == font => p.range.end = at + c.len_utf8(),
            _ => pieces.push(Piece {
                font,
                file: chain[font],
                range: at..at + c.len_utf8(),
            }),
        }
    }
    pieces
}

/// Combining marks, which belong with the letter before them.
fn is_mark(c: char) -> bool {
    c.general_category_group() == GeneralCategoryGroup::Mark
}

/// What clings to the character before it: marks (variation selectors among them) and the
/// zero-width joiners.
fn clings(c: char) -> bool {
    is_mark(c) || matches!(c, '\u{200C}' | '\u{200D}')
}

/// Marks stacked on one letter beyond this many are dropped: written languages stack two or
/// three, and a tower of hundreds would climb over the rest of the page.
const MAX_CLINGING: usize = 4;
fn push_shaped(out: &mut Shaped, s: &str, piece: Piece, rtl: bool) {
    let file = piece.file;
    let text = &s[piece.range.clone()];
    let mut buffer = UnicodeBuffer::new();
    buffer.push_str(text);
    buffer.guess_segment_properties();
    let direction = if rtl {
        Direction::RightToLeft
    } else {
        Direction::LeftToRight
    };
    buffer.set_direction(direction);
    let shaped = with_plan(file, direction, buffer.script(), |plan| {
        rustybuzz::shape_with_plan(&file.shaper, plan, buffer)
    });
    let infos = shaped.glyph_infos();
    let positions = shaped.glyph_positions();
    // A glyph's text runs from its cluster to the next cluster in logical order.
    let mut clusters: Vec<usize> = infos.iter().map(|g| g.cluster as usize).collect();
    clusters.sort_unstable();
    clusters.dedup();
    let base = piece.range.start;
    let upem = file.upem;
    let mut width = 0.0;
    let glyphs = infos
        .iter()
        .zip(positions)
        .map(|(info, pos)| {
            let start = info.cluster as usize;
            let next = clusters.partition_point(|&c| c <= start);
            let end = clusters.get(next).copied().unwrap_or(text.len());
            let (gid, advance) = if info.glyph_id == 0 {
                file.question
            } else {
                (info.glyph_id as u16, pos.x_advance as f32 / upem)
            };
            width += advance;
            KrillaGlyph::new(
                GlyphId::new(u32::from(gid)),
                advance,
                pos.x_offset as f32 / upem,
                pos.y_offset as f32 / upem,
                pos.y_advance as f32 / upem,
                base + start..base + end,
                None,
            )
        })
        .collect();
    out.runs.push(Run {
        font: file.font.clone(),
        fallback: piece.font > 0,
        x: out.width,
        glyphs,
    });
    out.width += width;
}

type PlanKey = (usize, Direction, Script);

/// Runs `f` with the shaping plan for this font, direction and script. A plan is built once per
/// thread and kept: building one costs more than shaping a word with it.
fn with_plan<T>(
    file: &'static FontFile,
    direction: Direction,
    script: Script,
    f: impl FnOnce(&ShapePlan) -> T,
) -> T {
    thread_local! {
        static PLANS: RefCell<HashMap<PlanKey, Rc<ShapePlan>>> = RefCell::new(HashMap::new());
    }
    let key = (std::ptr::from_ref(file) as usize, direction, script);
    let plan = PLANS.with_borrow_mut(|plans| {
        plans
            .entry(key)
            .or_insert_with(|| {
                Rc::new(ShapePlan::new(
                    &file.shaper,
                    direction,
                    Some(script),
                    None,
                    &[],
                ))
            })
            .clone()
    });
    f(&plan)
}

/// What is printed for `s`: marks stacked past [`MAX_CLINGING`] are dropped, control characters
/// become spaces, and characters no face can draw
/// (recent emoji, rare scripts) and private-use characters become `?`, because PDF/A forbids the
/// empty glyph and a box would hide the loss. Bold covers what regular does.
pub fn sanitize(s: &str) -> String {
    let chain = fonts(Face::Regular);
    let mut clinging = 0;
    s.chars()
        .filter(|&c| {
            clinging = if clings(c) { clinging + 1 } else { 0 };
            clinging <= MAX_CLINGING
        })
        .map(|c| {
            if c.is_control() {
                ' '
            } else if chain.iter().any(|f| f.covers(c)) && !is_private_use(c) {
                c
            } else {
                '?'
            }
        })
        .collect()
}

fn is_private_use(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

/// Greedy word wrap of `s` into lines no wider than `width`, in logical order (each line is put
/// in visual order when drawn, as the bidirectional algorithm asks); explicit line breaks are kept
/// and a word wider than a line is cut between characters, as Chinese and Japanese, which have no
/// spaces, are. Never returns an empty list.
pub fn wrap(s: &str, f: Face, size: f32, width: f32) -> Vec<String> {
    let space = self::width(" ", f, size);
    let mut out = Vec::new();
    for para in s.split('\n') {
        let mut line = String::new();
        let mut line_w = 0.0;
        for word in para.split_whitespace() {
            let mut w = self::width(word, f, size);
            if !line.is_empty() && line_w + space + w <= width {
                line.push(' ');
                line.push_str(word);
                line_w += space + w;
                continue;
            }
            if !line.is_empty() {
                out.push(std::mem::take(&mut line));
            }
            let mut word = word;
            if w > width {
                let mut hint = 1;
                loop {
                    let (cut, chars) = longest_fitting_prefix(word, f, size, width, hint);
                    if cut == word.len() {
                        break;
                    }
                    out.push(word[..cut].to_string());
                    word = &word[cut..];
                    hint = chars;
                }
                w = self::width(word, f, size);
            }
            line.push_str(word);
            line_w = w;
        }
        out.push(line);
    }
    // Trailing blank paragraphs add nothing but height.
    while out.len() > 1 && out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

/// The longest prefix of `word` no wider than `width` (at least one character), as its length
/// in bytes and in characters, measured shaped. The search starts at `hint` characters (the
/// previous piece's length: the lines of one long word are alike) and doubles or bisects from
/// there, so cutting a long word (a paragraph of Chinese has no spaces) shapes a few prefixes
/// about a line long per line, never the whole word.
fn longest_fitting_prefix(
    word: &str,
    f: Face,
    size: f32,
    width: f32,
    hint: usize,
) -> (usize, usize) {
    let ends: Vec<usize> = word.char_indices().map(|(i, c)| i + c.len_utf8()).collect();
    let fits = |k: usize| self::width(&word[..ends[k]], f, size) <= width;
    let last = ends.len() - 1;
    // Indexes into `ends`: `lo` fits (the first character counts as fitting), `hi` may.
    let guess = hint.clamp(1, ends.len()) - 1;
    let (mut lo, mut hi) = if guess == 0 || fits(guess) {
        (guess, last)
    } else {
        (0, guess - 1)
    };
    let mut step = 1;
    while hi == last && lo + step <= last {
        if fits(lo + step) {
            lo += step;
            step *= 2;
        } else {
            hi = lo + step - 1;
        }
    }
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    (ends[lo], lo + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use krilla::text::Glyph;

    #[test]
    fn wraps_at_word_boundaries_within_the_width() {
        let lines = wrap(
            "the quick brown fox jumps over the lazy dog",
            Face::Regular,
            10.0,
            80.0,
        );
        assert!(lines.len() > 1);
        for l in &lines {
            assert!(width(l, Face::Regular, 10.0) <= 80.0, "{l}");
        }
        assert_eq!(
            lines.join(" "),
            "the quick brown fox jumps over the lazy dog"
        );
    }

    #[test]
    fn cuts_a_word_longer_than_the_line() {
        let long = "x".repeat(200);
        let lines = wrap(&long, Face::Bold, 10.0, 50.0);
        assert!(lines.len() > 3);
        assert_eq!(lines.concat(), long);
        for l in &lines {
            assert!(width(l, Face::Bold, 10.0) <= 50.0, "{l}");
        }
    }

    #[test]
    fn chinese_without_spaces_wraps_between_characters() {
        let s = "山田商事株式会社の年間保守契約と追加開発作業の請求";
        let lines = wrap(s, Face::Regular, 10.0, 60.0);
        assert!(lines.len() > 2, "{lines:?}");
        assert_eq!(lines.concat(), s);
        for l in &lines {
            assert!(width(l, Face::Regular, 10.0) <= 60.0, "{l}");
        }
    }

    #[test]
    fn the_longest_fitting_prefix_is_found_whatever_the_hint() {
        let word = "年間保守契約と追加開発作業の請求書ABCxyz";
        let chars: Vec<usize> = word.char_indices().map(|(i, c)| i + c.len_utf8()).collect();
        for hint in [1, 3, 7, 12, 40] {
            let (cut, n) = longest_fitting_prefix(word, Face::Regular, 10.0, 61.0, hint);
            assert_eq!(chars[n - 1], cut, "hint {hint}");
            assert!(
                width(&word[..cut], Face::Regular, 10.0) <= 61.0,
                "hint {hint}"
            );
            assert!(
                width(&word[..chars[n]], Face::Regular, 10.0) > 61.0,
                "hint {hint}: one more character would still fit"
            );
        }
    }

    #[test]
    fn keeps_explicit_breaks_and_never_returns_nothing() {
        assert_eq!(wrap("a\nb", Face::Regular, 10.0, 100.0), ["a", "b"]);
        assert_eq!(wrap("", Face::Regular, 10.0, 100.0), [""]);
    }

    #[test]
    fn keeps_every_script_a_face_has_and_replaces_the_rest() {
        let kept = "Łódź Ωμέγα Москва 王芳 山田商事 やまだ 김민준 שלום مرحبا";
        assert_eq!(sanitize(kept), kept);
        assert_eq!(sanitize("\u{E000}\t\u{1FAE0}\u{10900}"), "? ??");
    }

    #[test]
    fn marks_stack_as_languages_do_but_no_higher() {
        // Vietnamese: a dot below and a circumflex on one e, decomposed.
        assert_eq!(sanitize("e\u{323}\u{302}"), "e\u{323}\u{302}");
        let tower = format!("a{}b", "\u{301}".repeat(200));
        assert_eq!(
            sanitize(&tower),
            format!("a{}b", "\u{301}".repeat(MAX_CLINGING))
        );
        let joiners = format!("x{}", "\u{200D}".repeat(255));
        assert_eq!(sanitize(&joiners).chars().count(), 1 + MAX_CLINGING);
    }

    #[test]
    fn bold_is_wider_than_regular() {
        assert!(width("Invoice", Face::Bold, 12.0) > width("Invoice", Face::Regular, 12.0));
    }

    /// The glyphs' text ranges, in drawing order.
    fn drawn(s: &str) -> Vec<&str> {
        shape(s, Face::Regular)
            .runs
            .iter()
            .flat_map(|r| r.glyphs.iter().map(|g| &s[g.text_range()]))
            .collect()
    }

    #[test]
    fn hebrew_is_drawn_right_to_left_inside_a_left_to_right_line() {
        assert_eq!(
            drawn("ab שלום cd"),
            ["a", "b", " ", "ם", "ו", "ל", "ש", " ", "c", "d"]
        );
    }

    #[test]
    fn arabic_letters_join_into_their_contextual_forms() {
        let s = "مرحبا";
        let shaped = shape(s, Face::Regular);
        let [run] = &shaped.runs[..] else {
            panic!("one run")
        };
        // Isolated forms would be the cmap's glyphs; shaping picks initial, medial and final ones.
        let isolated: Vec<u32> = s
            .chars()
            .rev()
            .map(|c| u32::from(regular().shaper.glyph_index(c).unwrap().0))
            .collect();
        let joined: Vec<u32> = run.glyphs.iter().map(|g| g.glyph_id().to_u32()).collect();
        assert_eq!(joined.len(), isolated.len());
        assert_ne!(joined, isolated, "shaped like isolated letters");
        assert_eq!(drawn(s), ["ا", "ب", "ح", "ر", "م"], "drawn right to left");
    }

    #[test]
    fn chinese_and_korean_take_their_fallbacks_and_latin_keeps_its_own() {
        let shaped = shape("Invoice 王芳 GmbH 김민준", Face::Bold);
        let fonts: Vec<Font> = shaped.runs.iter().map(|r| r.font.clone()).collect();
        let [own, cj, ko] = super::fonts(Face::Bold).map(|f| f.font.clone());
        assert!(fonts == [own.clone(), cj, own, ko], "{fonts:?}");
        let fallback: Vec<bool> = shaped.runs.iter().map(|r| r.fallback).collect();
        assert_eq!(fallback, [false, true, false, true]);
        assert!(shaped.width > 0.0);
        let xs: Vec<f32> = shaped.runs.iter().map(|r| r.x).collect();
        assert!(xs.windows(2).all(|w| w[0] < w[1]), "{xs:?}");
    }
}
