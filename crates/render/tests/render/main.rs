//! Renders documents and reads them back with poppler (`pdftotext`, `pdfinfo`): what a customer's
//! PDF viewer would show, rather than what the code meant to draw.
// Tests panic to fail and print to report; helpers outside `#[test]` functions too.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod countries;
mod fixture;
mod statement;

use fixture::{invoice, lines, money, normalise, page_count, text, totals};
use invoicing_render::{render_pdf, DocumentKind, ImageKind, Locale, Logo, Mark, RenderError};

/// Collapses runs of spaces so a layout's column gaps do not matter to `contains`.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the words of `needle` appear in `hay` in order: a wrapped paragraph in `-layout`
/// output shares its rows with the column beside it.
fn words_in_order(hay: &str, needle: &str) -> bool {
    let mut words = hay.split_whitespace();
    needle.split_whitespace().all(|w| words.any(|h| h == w))
}

#[test]
fn extracted_text_has_the_number_dates_parties_lines_totals_and_instructions() {
    let doc = invoice(3, Locale::De);
    let pdf = render_pdf(&doc).unwrap();
    let t = text(&pdf, None);
    let flat = squash(&t);
    for needle in [
        "Rechnung",
        "INV-2025-0042",
        "05.03.2025",
        "04.04.2025",
        "Nordlicht Studio GmbH",
        "USt-IdNr.: DE123456789",
        "Zoë Åkesson",
        "Åkesson & Søn AB",
        "SE556677889901",
        "Logo design – three concepts",
        "Ελληνικά, Кириллица: font licence",
        "https://pay.nordlicht.example/i/INV-2025-0042?t=8f3a9c",
        "Thank you for your business.",
        "Amtsgericht Charlottenburg",
        "Seite 1 von 1",
        "ZAHLUNGSHINWEISE",
        "MwSt. 21 %",
    ] {
        assert!(flat.contains(needle), "{needle:?} missing from:\n{t}");
    }
    // The first description and the instructions wrap; every word is there, in order.
    for paragraph in [
        &lines(&mut doc.clone())[0].description.clone(),
        doc.payment_instructions.as_ref().unwrap(),
    ] {
        assert!(
            words_in_order(&flat, paragraph),
            "{paragraph:?} missing from:\n{t}"
        );
    }
    // Amounts as the German locale writes them.
    let totals = totals(&mut doc.clone()).clone();
    for amount in [
        totals.subtotal,
        totals.total,
        totals.due.unwrap(),
        totals.taxes[0].1,
    ] {
        let formatted = normalise(&Locale::De.money(amount, doc.currency));
        assert!(
            flat.contains(&formatted),
            "{formatted:?} missing from:\n{t}"
        );
    }
    assert!(flat.contains("123,45 €"), "{t}");
    assert!(flat.contains("21 %"), "{t}");
}

#[test]
fn thousands_are_grouped_the_german_way() {
    let mut doc = invoice(1, Locale::De);
    totals(&mut doc).total = money(123_450);
    let flat = squash(&text(&render_pdf(&doc).unwrap(), None));
    assert!(flat.contains("1.234,50 €"), "{flat}");
}

#[test]
fn five_hundred_lines_flow_over_pages_with_header_and_page_numbers_on_each() {
    let doc = invoice(500, Locale::En);
    let pdf = render_pdf(&doc).unwrap();
    let pages = page_count(&pdf);
    assert!(pages >= 10, "500 lines on only {pages} pages");
    for n in 1..=pages {
        let t = squash(&text(&pdf, Some((n, n))));
        assert!(t.contains(&format!("Page {n} of {pages}")), "page {n}: {t}");
        assert!(
            t.contains("Description Quantity Unit price Tax Amount"),
            "page {n} lacks the table header: {t}"
        );
    }
    let all = squash(&text(&pdf, None));
    for i in [1, 2, 250, 499, 500] {
        assert!(
            all.contains(&format!("Item {i:04} –")),
            "line {i} is missing"
        );
    }
    let last = squash(&text(&pdf, Some((pages, pages))));
    assert!(last.contains("Amount due"), "{last}");
}

#[test]
fn a_description_longer_than_a_page_flows_over_pages() {
    let mut doc = invoice(3, Locale::En);
    let words: Vec<String> = (0..1200).map(|i| format!("w{i}")).collect();
    lines(&mut doc)[1].description = words.join(" ");
    let pdf = render_pdf(&doc).unwrap();
    let pages = page_count(&pdf);
    assert!(pages >= 3, "{pages} pages");
    let all = squash(&text(&pdf, None));
    assert!(
        words_in_order(&all, &lines(&mut doc)[1].description.clone()),
        "words lost: {all}"
    );
    for n in 1..=pages {
        let t = squash(&text(&pdf, Some((n, n))));
        assert!(t.contains(&format!("Page {n} of {pages}")), "page {n}: {t}");
    }
    // Its amount is printed once, on the page where the row starts.
    assert_eq!(all.matches("€266.90").count(), 1, "{all}");
}

#[test]
fn the_same_document_renders_to_the_same_bytes() {
    let doc = invoice(40, Locale::Fr);
    let a = render_pdf(&doc).unwrap();
    let b = render_pdf(&doc).unwrap();
    assert!(a == b, "two renders differ");
    let mut other = doc.clone();
    other.number = "INV-2025-0043".into();
    assert!(render_pdf(&other).unwrap() != a);
}

fn xmp(pdf: &[u8]) -> String {
    // PDF/A keeps the metadata stream uncompressed so any tool can read it.
    let s = String::from_utf8_lossy(pdf);
    let start = s.find("<x:xmpmeta").expect("an XMP packet");
    let end = s[start..]
        .find("</x:xmpmeta>")
        .expect("a closed XMP packet")
        + start;
    s[start..end].to_string()
}

fn declares_pdfa_3b(xmp: &str) -> bool {
    let part = xmp.contains("<pdfaid:part>3</pdfaid:part>") || xmp.contains("pdfaid:part=\"3\"");
    let conf = xmp.contains("<pdfaid:conformance>B</pdfaid:conformance>")
        || xmp.contains("pdfaid:conformance=\"B\"");
    part && conf
}

#[test]
fn invoices_and_credit_notes_declare_pdf_a_3b() {
    for kind in [
        DocumentKind::Invoice,
        DocumentKind::CreditNote,
        DocumentKind::Quotation,
    ] {
        let mut doc = invoice(2, Locale::En);
        doc.kind = kind;
        let x = xmp(&render_pdf(&doc).unwrap());
        assert!(declares_pdfa_3b(&x), "{kind:?}: {x}");
        assert!(
            x.contains("INV-2025-0042"),
            "the title is in the metadata: {x}"
        );
    }
}

#[test]
fn fonts_are_embedded_subsets() {
    let pdf = render_pdf(&invoice(3, Locale::En)).unwrap();
    let s = String::from_utf8_lossy(&pdf);
    assert!(s.contains("/FontFile2"), "fonts are embedded");
    // A subset's name carries a six-letter tag: ABCDEF+DejaVuSans.
    assert!(s.contains("+DejaVuSans"), "fonts are subset");
    // Both faces together are ~1.4 MB; subsets keep the file small.
    assert!(pdf.len() < 150_000, "{} bytes", pdf.len());
}

/// The title, the labels, the page counter and the dates are in `locale`'s language.
fn prints_in(locale: Locale, words: [&str; 6]) {
    let doc = invoice(2, locale);
    let t = squash(&text(&render_pdf(&doc).unwrap(), None));
    let lower = t.to_lowercase();
    for w in words {
        assert!(
            lower.contains(&w.to_lowercase()),
            "{locale:?}: {w:?} missing from {t}"
        );
    }
    let date = locale.date(doc.issue_date);
    assert!(
        t.contains(&normalise(&date)),
        "{locale:?}: date {date:?} missing from {t}"
    );
    let title = t.split_whitespace().next().unwrap_or_default();
    assert_eq!(
        title, words[0],
        "{locale:?}: the first word printed is the title"
    );
}

#[test]
fn english() {
    prints_in(
        Locale::En,
        [
            "Invoice",
            "Bill to",
            "Description",
            "Subtotal",
            "Amount due",
            "Page 1 of 1",
        ],
    );
}

#[test]
fn spanish() {
    prints_in(
        Locale::Es,
        [
            "Factura",
            "Facturar a",
            "Descripción",
            "Cantidad",
            "Importe pendiente",
            "Página 1 de 1",
        ],
    );
}

#[test]
fn french() {
    prints_in(
        Locale::Fr,
        [
            "Facture",
            "Facturer à",
            "Désignation",
            "Sous-total",
            "Montant dû",
            "Page 1 sur 1",
        ],
    );
}

#[test]
fn german() {
    prints_in(
        Locale::De,
        [
            "Rechnung",
            "Rechnungsempfänger",
            "Beschreibung",
            "Zwischensumme",
            "Offener Betrag",
            "Seite 1 von 1",
        ],
    );
}

#[test]
fn dutch() {
    prints_in(
        Locale::Nl,
        [
            "Factuur",
            "Factureren aan",
            "Omschrijving",
            "Subtotaal",
            "Openstaand bedrag",
            "Pagina 1 van 1",
        ],
    );
}

#[test]
fn portuguese() {
    prints_in(
        Locale::Pt,
        [
            "Fatura",
            "Faturar para",
            "Descrição",
            "Quantidade",
            "Valor em aberto",
            "Página 1 de 1",
        ],
    );
}

#[test]
fn quotations_show_valid_until_and_status_marks_show() {
    let mut doc = invoice(2, Locale::En);
    doc.kind = DocumentKind::Quotation;
    doc.due_date = None;
    doc.valid_until = Some(fixture::date(2025, 5, 1));
    doc.mark = Mark::Accepted;
    let t = squash(&text(&render_pdf(&doc).unwrap(), None));
    assert!(t.contains("Quotation"), "{t}");
    assert!(
        t.contains("Valid until 2025-05-01") || t.contains("Valid until"),
        "{t}"
    );
    assert!(!t.contains("Due date"), "{t}");
    assert!(t.contains("ACCEPTED"), "{t}");

    for (mark, word) in [
        (Mark::Draft, "DRAFT"),
        (Mark::Paid, "PAID"),
        (Mark::Cancelled, "CANCELLED"),
    ] {
        let mut doc = invoice(2, Locale::En);
        doc.mark = mark;
        let t = text(&render_pdf(&doc).unwrap(), None);
        assert!(t.contains(word), "{mark:?}: {t}");
    }
}

#[test]
fn credits_and_payments_are_listed_in_the_totals() {
    let mut doc = invoice(2, Locale::En);
    doc.kind = DocumentKind::Invoice;
    totals(&mut doc).credited = Some(money(1_000));
    let t = squash(&text(&render_pdf(&doc).unwrap(), None));
    assert!(t.contains("Amount credited -€10.00"), "{t}");
    assert!(t.contains("Amount paid -€"), "{t}");
}

#[test]
fn a_minimal_document_renders() {
    let mut doc = invoice(0, Locale::En);
    doc.logo = None;
    doc.brand_color = None;
    doc.payment_instructions = None;
    doc.payment_link = None;
    doc.notes = None;
    doc.footer = None;
    doc.seller = invoicing_render::Party {
        name: "Solo".into(),
        ..Default::default()
    };
    doc.buyer = invoicing_render::Party {
        name: "Client".into(),
        ..Default::default()
    };
    totals(&mut doc).taxes.clear();
    totals(&mut doc).paid = None;
    totals(&mut doc).due = None;
    let t = squash(&text(&render_pdf(&doc).unwrap(), None));
    assert!(
        t.contains("Solo") && t.contains("Client") && t.contains("Total"),
        "{t}"
    );
}

#[test]
fn a_broken_logo_is_an_error_not_a_silent_omission() {
    let mut doc = invoice(1, Locale::En);
    doc.logo = Some(Logo {
        bytes: b"not a png".to_vec(),
        kind: ImageKind::Png,
    });
    assert!(matches!(
        render_pdf(&doc),
        Err(RenderError::Logo {
            kind: ImageKind::Png,
            ..
        })
    ));
    doc.logo = Some(Logo {
        bytes: fixture::logo_png(),
        kind: ImageKind::Jpeg,
    });
    assert!(matches!(
        render_pdf(&doc),
        Err(RenderError::Logo {
            kind: ImageKind::Jpeg,
            ..
        })
    ));
}

#[test]
fn text_outside_the_fonts_repertoire_becomes_question_marks() {
    let mut doc = invoice(1, Locale::En);
    lines(&mut doc)[0].description = "\u{10900}\u{10901} office rent \u{E000}".into();
    let t = squash(&text(&render_pdf(&doc).unwrap(), None));
    assert!(t.contains("?? office rent ?"), "{t}");
}

/// A customer in Chinese with an address in Korean, and lines in Japanese, Arabic and Hebrew.
fn every_script() -> invoicing_render::Document {
    let mut doc = invoice(4, Locale::En);
    doc.buyer.name = "王芳".into();
    doc.buyer.company = Some("山田商事".into());
    doc.buyer.address_lines[0] = "서울특별시 중구 세종대로 110".into();
    lines(&mut doc)[0].description = "年間保守契約（東京本社）".into();
    lines(&mut doc)[1].description = "خدمات استشارية".into();
    lines(&mut doc)[2].description = "שירותי ייעוץ".into();
    lines(&mut doc)[3].description = "Support for مرحبا and שלום".into();
    doc
}

#[test]
fn chinese_japanese_korean_arabic_and_hebrew_come_back_as_typed_in_logical_order() {
    let doc = every_script();
    let pdf = render_pdf(&doc).unwrap();
    let t = text(&pdf, None);
    let rows: Vec<String> = t.lines().map(squash).collect();
    for needle in [
        "王芳",
        "山田商事",
        "서울특별시 중구 세종대로 110",
        "年間保守契約（東京本社）",
        "خدمات استشارية",
        "שירותי ייעוץ",
    ] {
        assert!(
            rows.iter().any(|r| r.contains(needle)),
            "{needle:?} missing from:\n{t}"
        );
    }
    // The payment link's query is the only question mark: nothing was replaced.
    assert_eq!(t.matches('?').count(), 1, "{t}");
    let fonts = fixture::fonts(&pdf);
    for font in ["DroidSansFallback", "NanumGothic", "DejaVuSans"] {
        assert!(fonts.contains(font), "{fonts}");
    }
}

#[test]
fn a_latin_only_document_does_not_embed_the_fallback_font_or_grow() {
    let pdf = render_pdf(&invoice(3, Locale::En)).unwrap();
    let fonts = fixture::fonts(&pdf);
    assert!(
        !fonts.contains("DroidSansFallback") && !fonts.contains("NanumGothic"),
        "{fonts}"
    );
    // 46,532 bytes before shaping and the fallback font came in (2026-11-25).
    assert!(
        pdf.len() <= 46_532 * 110 / 100,
        "{} bytes, more than 10 % over 46,532",
        pdf.len()
    );
}

#[test]
fn a_document_in_every_script_is_still_pdf_a_and_the_same_bytes_each_time() {
    let doc = every_script();
    let pdf = render_pdf(&doc).unwrap();
    assert!(declares_pdfa_3b(&xmp(&pdf)));
    assert_eq!(pdf, render_pdf(&doc).unwrap());
}

/// Writes a PNG of the first page to the target directory for a person to look at
/// (`pdftoppm -png -r 60`); run with `--ignored`.
#[test]
#[ignore = "writes a picture for a person to look at"]
fn picture_for_a_person() {
    let mut doc = every_script();
    doc.mark = Mark::Paid;
    let pdf = render_pdf(&doc).unwrap();
    let path = fixture::save(&pdf, "look");
    let out = path.with_extension("");
    let status = std::process::Command::new("pdftoppm")
        .args([
            "-png",
            "-r",
            "110",
            "-singlefile",
            path.to_str().unwrap(),
            out.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(status.success());
    eprintln!("{}.png", out.display());
}

/// The table's header is never left at the foot of a page without a row under it: when the
/// first row does not fit below it, both start on the next page.
#[test]
fn the_table_header_keeps_its_first_row() {
    let mut doc = invoice(1, Locale::En);
    let cjk = |n: usize| {
        "山田商事株式会社"
            .chars()
            .cycle()
            .take(n)
            .collect::<String>()
    };
    doc.buyer.name = cjk(256);
    doc.buyer.company = Some(cjk(256));
    lines(&mut doc)[0].description = "年間保守契約".chars().cycle().take(600).collect();
    for depth in 0..40 {
        doc.buyer.address_lines = (0..depth).map(|i| format!("Line {i}")).collect();
        let pdf = render_pdf(&doc).unwrap();
        let first = text(&pdf, Some((1, 1)));
        let row_start: String = lines(&mut doc)[0].description.chars().take(4).collect();
        assert!(
            !first.contains("Description") || first.contains(&row_start),
            "{depth} address lines: page 1 ends with the table header alone:\n{first}"
        );
    }
}
