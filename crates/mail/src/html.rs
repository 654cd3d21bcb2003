//! The HTML part: one table-free, inline-styled column that mail clients render alike.

use invoicing_domain::locale::Locale;

pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Paragraphs of plain text as HTML, with `links` (those present) made clickable.
pub(crate) fn paragraphs(text: &str, links: &[Option<&str>]) -> String {
    text.split("\n\n")
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let mut html = escape(p).replace('\n', "<br>");
            for link in links.iter().flatten().filter(|l| !l.is_empty()) {
                let escaped = escape(link);
                html = html.replace(
                    &escaped,
                    &format!("<a href=\"{escaped}\" style=\"color:inherit\">{escaped}</a>"),
                );
            }
            format!("<p style=\"margin:0 0 16px\">{html}</p>")
        })
        .collect()
}

pub(crate) struct Page<'a> {
    pub locale: Locale,
    pub title: &'a str,
    pub merchant: &'a str,
    pub has_logo: bool,
    pub accent: String,
    pub message: Option<&'a str>,
    pub body: &'a str,
    pub link: Option<&'a str>,
    /// The customer's portal, linked where the body names it.
    pub portal_link: Option<&'a str>,
    pub link_label: &'a str,
    pub summary: Vec<(&'a str, String)>,
}

pub(crate) fn render(p: &Page<'_>) -> String {
    let logo = if p.has_logo {
        format!(
            "<img src=\"cid:logo\" alt=\"{}\" style=\"max-height:64px;max-width:220px;display:block;margin-bottom:12px\">",
            escape(p.merchant)
        )
    } else {
        String::new()
    };
    let message = p
        .message
        .map(|m| {
            format!(
                "<div dir=\"auto\" style=\"border-left:4px solid {};padding:4px 12px;margin:0 0 20px\">{}</div>",
                p.accent,
                paragraphs(m, &[])
            )
        })
        .unwrap_or_default();
    let summary: String = p
        .summary
        .iter()
        .map(|(label, value)| {
            format!(
                "<tr><td style=\"padding:4px 16px 4px 0;color:#555\">{}</td><td style=\"padding:4px 0;font-weight:bold\">{}</td></tr>",
                escape(label),
                escape(value)
            )
        })
        .collect();
    let button = p
        .link
        .map(|l| {
            format!(
                "<p style=\"margin:24px 0\"><a href=\"{}\" style=\"background:{};color:#fff;padding:10px 18px;border-radius:4px;text-decoration:none;display:inline-block\">{}</a></p>",
                escape(l),
                p.accent,
                escape(p.link_label)
            )
        })
        .unwrap_or_default();
    format!(
        "<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title></head>\
         <body style=\"margin:0;padding:0;background:#f4f4f5\">\
         <div style=\"max-width:600px;margin:0 auto;padding:24px;background:#ffffff;\
         font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#222\">\
         {logo}<div dir=\"auto\" style=\"font-size:20px;font-weight:bold;margin-bottom:20px\">{merchant}</div>\
         {message}{body}\
         <table style=\"border-collapse:collapse;margin:8px 0\">{summary}</table>{button}\
         </div></body></html>\n",
        lang = p.locale.code(),
        title = escape(p.title),
        merchant = escape(p.merchant),
        body = paragraphs(p.body, &[p.link, p.portal_link]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_merchant_typed_takes_its_own_direction_and_the_catalogue_text_stays_ltr() {
        let html = render(&Page {
            locale: Locale::En,
            title: "Invoice INV-1",
            merchant: "شركة النور",
            has_logo: false,
            accent: "#1F5FBF".into(),
            message: Some("شكرا لتعاملكم معنا"),
            body: "Here is your invoice.",
            link: None,
            portal_link: None,
            link_label: "Pay",
            summary: Vec::new(),
        });
        assert!(
            html.contains("<div dir=\"auto\" style=\"font-size:20px;font-weight:bold;margin-bottom:20px\">شركة النور</div>"),
            "{html}"
        );
        assert!(
            html.contains("<div dir=\"auto\" style=\"border-left:4px solid #1F5FBF"),
            "{html}"
        );
        assert!(html.contains("<html lang=\"en\">"), "{html}");
        assert!(
            html.contains("<p style=\"margin:0 0 16px\">Here is your invoice.</p>"),
            "{html}"
        );
    }
}
