//! Documents to render and the poppler tools that read them back.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::NaiveDate;
use invoicing_domain::currency::Currency;
use invoicing_domain::decimal::{Quantity, TaxRate};
use invoicing_domain::money::Money;
use invoicing_render::{
    Body, Document, DocumentKind, ImageKind, Line, Locale, Logo, Mark, Party, TaxIdentifier, Totals,
};

pub fn money(minor: i64) -> Money {
    Money::new(minor).unwrap()
}

pub fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

/// A 240×80 PNG: a rounded brand-coloured badge with two white bars, on transparency.
pub fn logo_png() -> Vec<u8> {
    let (w, h) = (240u32, 80u32);
    let mut px = vec![0u8; (w * h * 4) as usize];
    for y in 0..h {
        for x in 0..w {
            let i = ((y * w + x) * 4) as usize;
            let in_badge = x < 80 && {
                let (cx, cy) = (x.clamp(14, 66) as f32, y.clamp(14, 66) as f32);
                (x as f32 - cx).hypot(y as f32 - cy) <= 14.0
            };
            let bar = (22..58).contains(&x) && ((24..34).contains(&y) || (46..56).contains(&y));
            let word = x >= 96 && (28..52).contains(&y) && (x / 12) % 2 == 0;
            let rgba = if in_badge && bar {
                [255, 255, 255, 255]
            } else if in_badge {
                [0x0f, 0x76, 0x6e, 255]
            } else if word {
                [0x1f, 0x29, 0x37, 255]
            } else {
                [0, 0, 0, 0]
            };
            px[i..i + 4].copy_from_slice(&rgba);
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.write_header().unwrap().write_image_data(&px).unwrap();
    }
    out
}

/// A VAT ID as a party block prints it.
fn vat_id(id: &str) -> TaxIdentifier {
    TaxIdentifier {
        label: "field.vat_id",
        value: id.into(),
    }
}

pub fn seller() -> Party {
    Party {
        name: "Nordlicht Studio".into(),
        legal_name: Some("Nordlicht Studio GmbH".into()),
        address_lines: vec!["Friedrichstraße 123".into(), "10117 Berlin".into()],
        country: Some("Deutschland".into()),
        tax_ids: vec![vat_id("DE123456789")],
        email: Some("billing@nordlicht.example".into()),
        phone: Some("+49 30 1234567".into()),
        website: Some("nordlicht.example".into()),
        company: None,
    }
}

pub fn buyer() -> Party {
    Party {
        name: "Zoë Åkesson".into(),
        company: Some("Åkesson & Søn AB".into()),
        address_lines: vec!["Storgatan 5".into(), "111 51 Stockholm".into()],
        country: Some("Sverige".into()),
        tax_ids: vec![vat_id("SE556677889901")],
        email: Some("zoe@akesson.example".into()),
        ..Party::default()
    }
}

const DESCRIPTIONS: [&str; 5] = [
    "Brand identity workshop (two days, on site), including preparation, facilitation, \
     moodboards and a written summary of the decisions taken",
    "Logo design – three concepts",
    "Ελληνικά, Кириллица: font licence",
    "Hosting (monthly)",
    "Consulting hour",
];

/// An invoice of `n` lines at 21 % and 7 %, with totals that add up.
pub fn invoice(n: usize, locale: Locale) -> Document {
    let currency = Currency::parse("EUR").unwrap();
    let mut lines = Vec::new();
    let (mut sub, mut tax21, mut tax7) = (0i64, 0i64, 0i64);
    for i in 0..n {
        let qty_thousandths = 1000 * (1 + (i as i64 % 4)) + if i % 5 == 4 { 500 } else { 0 };
        let unit = 12_345 + 1000 * (i as i64 % 7);
        let amount = unit * qty_thousandths / 1000;
        let rate = if i % 3 == 2 { 7 } else { 21 };
        sub += amount;
        if rate == 21 {
            tax21 += amount * 21 / 100;
        } else {
            tax7 += amount * 7 / 100;
        }
        let description = if n > 20 {
            format!(
                "Item {:04} – {}",
                i + 1,
                DESCRIPTIONS[i % DESCRIPTIONS.len()]
            )
        } else {
            DESCRIPTIONS[i % DESCRIPTIONS.len()].to_string()
        };
        lines.push(Line {
            description,
            quantity: Quantity::from_thousandths(qty_thousandths).unwrap(),
            unit_price: money(unit),
            tax_rate: TaxRate::from_thousandths(rate * 1000).unwrap(),
            amount: money(amount),
            exemption: None,
        });
    }
    let total = sub + tax21 + tax7;
    let paid = total / 2;
    let mut taxes = vec![(TaxRate::from_thousandths(21_000).unwrap(), money(tax21))];
    if tax7 > 0 {
        taxes.push((TaxRate::from_thousandths(7_000).unwrap(), money(tax7)));
    }
    Document {
        kind: DocumentKind::Invoice,
        number: "INV-2025-0042".into(),
        issue_date: date(2025, 3, 5),
        due_date: Some(date(2025, 4, 4)),
        supply: None,
        valid_until: None,
        currency,
        seller: seller(),
        logo: Some(Logo { bytes: logo_png(), kind: ImageKind::Png }),
        brand_color: Some([0x0f, 0x76, 0x6e]),
        buyer: buyer(),
        body: Body::Lines {
            lines,
            totals: Totals {
                subtotal: money(sub),
                taxes,
                total: money(total),
                credited: None,
                paid: Some(money(paid)),
                due: Some(money(total - paid)),
            },
        },
        payment_instructions: Some(
            "Bank transfer to IBAN DE89 3704 0044 0532 0130 00, BIC COBADEFFXXX.\n\
             Please quote the invoice number INV-2025-0042 as the reference."
                .into(),
        ),
        payment_link: Some("https://pay.nordlicht.example/i/INV-2025-0042?t=8f3a9c".into()),
        notes: Some("Thank you for your business. Prices are net of any bank charges.".into()),
        footer: Some(
            "Nordlicht Studio GmbH · Amtsgericht Charlottenburg HRB 123456 · Geschäftsführerin: Ilse Nordlicht"
                .into(),
        ),
        mark: Mark::None,
        locale,
        factur_x: None,
    }
}

static SEQ: AtomicUsize = AtomicUsize::new(0);

/// Writes `pdf` to a fresh file under the target directory's temp area and returns its path.
pub fn save(pdf: &[u8], name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("render");
    std::fs::create_dir_all(&dir).unwrap();
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    let path = dir.join(format!("{name}-{}-{n}.pdf", std::process::id()));
    std::fs::write(&path, pdf).unwrap();
    path
}

fn run(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd} is needed (apt-get install poppler-utils): {e}"));
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `pdftotext -layout` of the pages `first..=last` (all when `None`), with no-break spaces
/// turned into plain ones so amounts compare as typed.
pub fn text(pdf: &[u8], pages: Option<(usize, usize)>) -> String {
    let path = save(pdf, "text");
    let p = path.to_str().unwrap();
    let range = pages.map(|(f, l)| (f.to_string(), l.to_string()));
    let mut args = vec!["-layout", "-enc", "UTF-8"];
    if let Some((f, l)) = &range {
        args.extend(["-f", f, "-l", l]);
    }
    args.extend([p, "-"]);
    let t = run("pdftotext", &args);
    std::fs::remove_file(&path).ok();
    normalise(&t)
}

/// `pdffonts`: the fonts the document embeds, one per row.
pub fn fonts(pdf: &[u8]) -> String {
    let path = save(pdf, "fonts");
    let t = run("pdffonts", &[path.to_str().unwrap()]);
    std::fs::remove_file(&path).ok();
    t
}

pub fn normalise(s: &str) -> String {
    s.replace(['\u{a0}', '\u{202f}'], " ")
}

pub fn page_count(pdf: &[u8]) -> usize {
    let path = save(pdf, "info");
    let info = run("pdfinfo", &[path.to_str().unwrap()]);
    std::fs::remove_file(&path).ok();
    info.lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("pdfinfo reports the page count")
}

/// The lines of a priced document.
pub fn lines(doc: &mut Document) -> &mut Vec<Line> {
    match &mut doc.body {
        Body::Lines { lines, .. } => lines,
        Body::Statement(_) => panic!("a statement has no lines"),
    }
}

/// The totals of a priced document.
pub fn totals(doc: &mut Document) -> &mut Totals {
    match &mut doc.body {
        Body::Lines { totals, .. } => totals,
        Body::Statement(_) => panic!("a statement has no totals"),
    }
}
