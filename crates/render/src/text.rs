//! The two compiled-in faces, text measurement and word wrapping. Glyphs are laid out one per
//! character from the font's own advances (no kerning), so what is measured is what is drawn.

use std::sync::OnceLock;

use krilla::text::{Font, GlyphId, KrillaGlyph};
use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, MetadataProvider};

static REGULAR: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
static BOLD: &[u8] = include_bytes!("../fonts/DejaVuSans-Bold.ttf");

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Face {
    Regular,
    Bold,
}

/// A parsed face: the krilla handle for embedding and the metrics for layout.
pub struct LoadedFace {
    pub font: Font,
    /// Advance (in em) and glyph of every character up to U+052F (Latin, Greek, Cyrillic),
    /// looked up once; other characters go through the cmap.
    table: Vec<(u32, f32)>,
    charmap: skrifa::charmap::Charmap<'static>,
    metrics: skrifa::metrics::GlyphMetrics<'static>,
    upem: f32,
    question: (u32, f32),
}

const TABLE_END: u32 = 0x530;

impl LoadedFace {
    fn load(bytes: &'static [u8]) -> LoadedFace {
        // The files are compiled in and known good: failing here is a build defect.
        let font = Font::new(bytes.into(), 0).expect("the embedded font parses");
        let font_ref = FontRef::new(bytes).expect("the embedded font parses");
        let upem = f32::from(
            font_ref
                .metrics(Size::unscaled(), LocationRef::default())
                .units_per_em,
        );
        let charmap = font_ref.charmap();
        let metrics = font_ref.glyph_metrics(Size::unscaled(), LocationRef::default());
        let lookup = |c: char| -> Option<(u32, f32)> {
            let gid = charmap.map(c)?;
            let adv = metrics.advance_width(gid)? / upem;
            Some((gid.to_u32(), adv))
        };
        let question = lookup('?').expect("the embedded font has '?'");
        let table = (0..TABLE_END)
            .map(|u| char::from_u32(u).and_then(lookup).unwrap_or((0, 0.0)))
            .collect();
        LoadedFace {
            font,
            table,
            charmap,
            metrics,
            upem,
            question,
        }
    }

    /// Glyph and advance in em; `None` when the face has no glyph for `c`.
    fn glyph(&self, c: char) -> Option<(u32, f32)> {
        let u = c as u32;
        if u < TABLE_END {
            let g = self.table[u as usize];
            return (g.0 != 0).then_some(g);
        }
        let gid = self.charmap.map(c)?;
        let adv = self.metrics.advance_width(gid)? / self.upem;
        Some((gid.to_u32(), adv))
    }

    /// Width of `s` at `size` points.
    pub fn width(&self, s: &str, size: f32) -> f32 {
        s.chars()
            .map(|c| self.glyph(c).unwrap_or(self.question).1)
            .sum::<f32>()
            * size
    }

    /// Glyphs for `s`, which must already be [`sanitize`]d.
    pub fn glyphs(&self, s: &str) -> Vec<KrillaGlyph> {
        s.char_indices()
            .map(|(i, c)| {
                let (gid, adv) = self.glyph(c).unwrap_or(self.question);
                KrillaGlyph::new(
                    GlyphId::new(gid),
                    adv,
                    0.0,
                    0.0,
                    0.0,
                    i..i + c.len_utf8(),
                    None,
                )
            })
            .collect()
    }
}

pub fn face(face: Face) -> &'static LoadedFace {
    static R: OnceLock<LoadedFace> = OnceLock::new();
    static B: OnceLock<LoadedFace> = OnceLock::new();
    match face {
        Face::Regular => R.get_or_init(|| LoadedFace::load(REGULAR)),
        Face::Bold => B.get_or_init(|| LoadedFace::load(BOLD)),
    }
}

/// What is printed for `s`: control characters become spaces and characters neither face can
/// draw (CJK, most emoji) and private-use characters become `?`, because PDF/A forbids the empty glyph and a box
/// would hide the loss. Both faces cover the same repertoire, so the regular one decides.
pub fn sanitize(s: &str) -> String {
    let f = face(Face::Regular);
    s.chars()
        .map(|c| {
            if c.is_control() {
                ' '
            } else if f.glyph(c).is_some() && !is_private_use(c) {
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

/// Greedy word wrap of `s` into lines no wider than `width`; explicit line breaks are kept and a
/// word wider than a line is cut between characters. Never returns an empty list.
pub fn wrap(s: &str, f: Face, size: f32, width: f32) -> Vec<String> {
    let lf = face(f);
    let space = lf.width(" ", size);
    let mut out = Vec::new();
    for para in s.split('\n') {
        let mut line = String::new();
        let mut line_w = 0.0;
        for word in para.split_whitespace() {
            let mut w = lf.width(word, size);
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
            while w > width {
                // Cut the longest prefix that fits (at least one character).
                let mut acc = 0.0;
                let mut cut = 0;
                for (i, c) in word.char_indices() {
                    let cw = lf.width(c.encode_utf8(&mut [0; 4]), size);
                    if acc + cw > width && i > 0 {
                        break;
                    }
                    acc += cw;
                    cut = i + c.len_utf8();
                }
                out.push(word[..cut].to_string());
                word = &word[cut..];
                w = lf.width(word, size);
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

#[cfg(test)]
mod tests {
    use super::*;

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
            assert!(face(Face::Regular).width(l, 10.0) <= 80.0, "{l}");
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
    }

    #[test]
    fn keeps_explicit_breaks_and_never_returns_nothing() {
        assert_eq!(wrap("a\nb", Face::Regular, 10.0, 100.0), ["a", "b"]);
        assert_eq!(wrap("", Face::Regular, 10.0, 100.0), [""]);
    }

    #[test]
    fn covers_latin_greek_and_cyrillic_and_replaces_the_rest() {
        assert_eq!(sanitize("Łódź Ωμέγα Москва"), "Łódź Ωμέγα Москва");
        assert_eq!(sanitize("東京\u{E000}\t"), "??? ");
    }

    #[test]
    fn bold_is_wider_than_regular() {
        assert!(
            face(Face::Bold).width("Invoice", 12.0) > face(Face::Regular).width("Invoice", 12.0)
        );
    }
}
