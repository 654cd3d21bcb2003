//! Writes the laid-out pages with krilla as PDF/A-3b: fonts subset and embedded, XMP metadata,
//! sRGB output intent; the creation date is the issue date and there is no random id, so equal
//! input gives equal bytes.

use chrono::Datelike;
use krilla::action::LinkAction;
use krilla::annotation::{LinkAnnotation, Target};
use krilla::color::rgb;
use krilla::configure::{Archival, ConfigurationBuilder};
use krilla::embed::{AssociationKind, EmbeddedFile, MimeType};
use krilla::geom::{PathBuilder, Point, Rect, Size, Transform};
use krilla::metadata::{DateTime, Metadata, XmpProperty, XmpSchema};
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, FillRule, Stroke};
use krilla::surface::Surface;
use krilla::{Document as PdfDocument, SerializeSettings};

use crate::layout::{self, Op, Page, Rgb, PAGE_H, PAGE_W};
use crate::text::{self, Face};
use crate::{Document, RenderError};

fn fill(c: Rgb) -> Fill {
    Fill {
        paint: rgb::Color::new(c[0], c[1], c[2]).into(),
        opacity: NormalizedF32::ONE,
        rule: FillRule::NonZero,
    }
}

pub fn write(doc: &Document, pages: &[Page]) -> Result<Vec<u8>, RenderError> {
    let configuration = ConfigurationBuilder::new()
        .with_archival_validator(Archival::A3_B)
        .finish()
        .map_err(|e| RenderError::Pdf(format!("{e:?}")))?;
    let settings = SerializeSettings {
        configuration,
        ..SerializeSettings::default()
    };
    let mut pdf = PdfDocument::new_with(settings);
    let title = format!("{} {}", layout::title(doc), doc.number);
    // PDF/A requires a date; the issue date keeps equal input giving equal bytes.
    let date = DateTime::new(doc.issue_date.year().clamp(0, 9999) as u16)
        .month(doc.issue_date.month() as u8)
        .day(doc.issue_date.day() as u8)
        .hour(0)
        .minute(0)
        .second(0)
        .utc_offset_hour(0)
        .utc_offset_minute(0);
    let mut metadata = Metadata::new()
        .title(title)
        .authors(vec![doc
            .seller
            .legal_name
            .clone()
            .unwrap_or_else(|| doc.seller.name.clone())])
        .language(doc.locale.code().to_string())
        .creator("invoicing-render".to_string())
        .creation_date(date);
    if let Some(xml) = &doc.factur_x {
        metadata = metadata.xmp_schema(factur_x_schema());
        pdf.embed_file(EmbeddedFile {
            path: FACTUR_X_FILE.into(),
            mime_type: MimeType::new("text/xml"),
            description: Some("Factur-X invoice (EN 16931)".into()),
            association_kind: AssociationKind::Alternative,
            data: xml.clone().into(),
            // Required under PDF/A-3; the issue date again, for equal bytes.
            modification_date: Some(date),
            compress: Some(true),
            location: None,
        })
        .ok_or_else(|| RenderError::Pdf("factur-x.xml embedded twice".into()))?;
    }
    pdf.set_metadata(metadata);
    let size = PageSettings::from_wh(PAGE_W, PAGE_H)
        .ok_or_else(|| RenderError::Pdf("page size".into()))?;
    for ops in pages {
        let mut page = pdf.start_page_with(size.clone());
        let mut links = Vec::new();
        {
            let mut surface = page.surface();
            for op in ops {
                draw(&mut surface, op, &mut links);
            }
            surface.finish();
        }
        for (rect, uri) in links {
            page.add_annotation(
                LinkAnnotation::new(rect, Target::Action(LinkAction::new(uri).into())).into(),
            );
        }
        page.finish();
    }
    pdf.finish().map_err(|e| RenderError::Pdf(format!("{e:?}")))
}

const FACTUR_X_FILE: &str = "factur-x.xml";

/// The Factur-X 1.0 XMP properties (namespace `fx`), described in the PDF/A extension schemas.
fn factur_x_schema() -> XmpSchema {
    let property = |name: &str, value: &str, description: &str| XmpProperty {
        name: name.into(),
        value: value.into(),
        description: description.into(),
    };
    XmpSchema {
        name: "Factur-X PDFA Extension".into(),
        prefix: "fx".into(),
        namespace_uri: "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#".into(),
        properties: vec![
            property(
                "DocumentFileName",
                FACTUR_X_FILE,
                "The name of the embedded XML document",
            ),
            property(
                "DocumentType",
                "INVOICE",
                "The type of the hybrid document in capital letters, e.g. INVOICE or ORDER",
            ),
            property(
                "Version",
                "1.0",
                "The actual version of the standard applying to the embedded XML document",
            ),
            property(
                "ConformanceLevel",
                "EN 16931",
                "The conformance level of the embedded XML document",
            ),
        ],
    }
}

fn rect_path(x: f32, y: f32, w: f32, h: f32) -> Option<krilla::geom::Path> {
    let mut pb = PathBuilder::new();
    pb.push_rect(Rect::from_xywh(x, y, w, h)?);
    pb.finish()
}

fn draw(surface: &mut Surface, op: &Op, links: &mut Vec<(Rect, String)>) {
    match op {
        Op::Text {
            x,
            y,
            face: f,
            size,
            color,
            text,
        } => {
            surface.set_fill(Some(fill(*color)));
            for run in text::shape(text, *f).runs {
                // The fallback font has no bold: a thin outline in the text's colour stands in.
                let fake_bold = run.fallback && *f == Face::Bold;
                surface.set_stroke(fake_bold.then(|| Stroke {
                    paint: rgb::Color::new(color[0], color[1], color[2]).into(),
                    width: size * 0.04,
                    ..Stroke::default()
                }));
                surface.draw_glyphs(
                    Point::from_xy(x + run.x * size, *y),
                    &run.glyphs,
                    run.font,
                    text,
                    *size,
                    false,
                );
            }
            surface.set_stroke(None);
        }
        Op::Rect { x, y, w, h, color } => {
            if let Some(path) = rect_path(*x, *y, *w, *h) {
                surface.set_fill(Some(fill(*color)));
                surface.set_stroke(None);
                surface.draw_path(&path);
            }
        }
        Op::Frame {
            x,
            y,
            w,
            h,
            width,
            color,
        } => {
            if let Some(path) = rect_path(*x, *y, *w, *h) {
                surface.set_fill(None);
                surface.set_stroke(Some(Stroke {
                    paint: rgb::Color::new(color[0], color[1], color[2]).into(),
                    width: *width,
                    ..Stroke::default()
                }));
                surface.draw_path(&path);
                surface.set_stroke(None);
            }
        }
        Op::Image { x, y, w, h, image } => {
            if let Some(size) = Size::from_wh(*w, *h) {
                surface.push_transform(&Transform::from_translate(*x, *y));
                surface.draw_image(image.clone(), size);
                surface.pop();
            }
        }
        Op::Qr { x, y, module, code } => {
            let mut pb = PathBuilder::new();
            for &(mx, my, mw) in &code.runs {
                if let Some(r) = Rect::from_xywh(
                    x + f32::from(mx) * module,
                    y + f32::from(my) * module,
                    f32::from(mw) * module,
                    *module,
                ) {
                    pb.push_rect(r);
                }
            }
            if let Some(path) = pb.finish() {
                surface.set_fill(Some(fill([0, 0, 0])));
                surface.set_stroke(None);
                surface.draw_path(&path);
            }
        }
        Op::Link { x, y, w, h, uri } => {
            if let Some(r) = Rect::from_xywh(*x, *y, *w, *h) {
                links.push((r, uri.clone()));
            }
        }
    }
}
